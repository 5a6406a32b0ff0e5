"""``hanoibot estop --port URL``: latch the board's e-stop (the arm holds its pose; queued motion is dropped).

The latch stays until ``hanoibot home --clear``. This is a software stop over the link; the hardware e-stop
that cuts servo power is described in hardware/README.md.
"""

from __future__ import annotations

import argparse
from typing import Any

from .status import add_port_arguments, open_robot


def register(subparsers: Any) -> None:
    """Add the ``estop`` sub-command."""
    parser = subparsers.add_parser(
        "estop",
        help="latch the board's e-stop",
        description="Send ESTOP: the arm holds its pose, queued motion is dropped, the latch needs home --clear.",
        epilog="examples:\n  hanoibot estop --port /dev/ttyACM0\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_port_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Latch the e-stop and report the board's mode; returns 0 when the board confirms it."""
    with open_robot(args) as robot:
        robot.session.estop()
        status = robot.session.status()
        print(f"e-stop latched on {robot.port_url}: mode {status.mode}; release with hanoibot home --clear")
        return 0 if status.mode == "ESTOP" else 1
