"""``--port`` and ``--config`` as every command offers them, with help that states the one rule for their defaults.

The rule (:func:`hanoibot.config.user.resolve_port`, :func:`~hanoibot.config.user.resolve_config`): the option on
the command line, else the environment (``HANOIBOT_PORT``, ``HANOIBOT_CONFIG``), else what ``hanoibot init`` wrote
into the user's config folder, else ``sim://`` (the simulated robot) and the shipped robot config. The CLI fills a
missing option by it before a command runs (:func:`hanoibot.cli.fill_user_defaults`). Only argparse is imported
here: registering a command stays cheap.
"""

from __future__ import annotations

import argparse
from typing import Any

#: The rule for the port, in the words ``--help`` shows.
PORT_RULE = "default: $HANOIBOT_PORT, else the port hanoibot init remembered, else sim://, the simulator"
#: The rule for the robot config, in the words ``--help`` shows.
CONFIG_RULE = "default: $HANOIBOT_CONFIG, else hanoibot init's robot.toml, else the shipped robot"


def add_port_argument(parser: Any, what: str = "") -> None:
    """``--port URL`` with the rule in its help; ``what`` says more about the port (e.g. "of the arm")."""
    more = f" {what}" if what else ""
    parser.add_argument("--port", metavar="URL", help=f"serial port or pyserial URL{more} ({PORT_RULE})")


def add_config_argument(parser: Any) -> None:
    """``--config FILE`` with the rule in its help."""
    parser.add_argument("--config", metavar="FILE", help=f"robot config TOML ({CONFIG_RULE})")


def add_port_and_config(parser: argparse.ArgumentParser) -> None:
    """``--port`` and ``--config``, both with the rule."""
    add_port_argument(parser)
    add_config_argument(parser)
