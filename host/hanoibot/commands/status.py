"""``hanoibot status --port URL``: what the board says about itself (boot, mode, faults, grip, pulses)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

EPILOG = """examples:
  hanoibot status                          the simulated board
  hanoibot status --port /dev/ttyACM0      a real board
  hanoibot status --port /dev/ttyACM0 --json
"""


def register(subparsers: Any) -> None:
    """Add the ``status`` sub-command."""
    parser = subparsers.add_parser(
        "status",
        help="show the board's boot id, mode, faults, grip and servo pulses",
        description="Connect to the board and print its STATUS. Nothing moves.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_port_arguments(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    parser.set_defaults(run=run)


def add_port_arguments(parser: argparse.ArgumentParser) -> None:
    """``--port`` and ``--config``, shared by home, jog, calibrate, status and estop (help states the rule of
    :mod:`hanoibot.cli_support.port_options`)."""
    from ..cli_support.port_options import add_port_and_config

    add_port_and_config(parser)


def resolved_config_path(args: argparse.Namespace) -> Path:
    """The robot config file the command uses (``--config``, else :func:`hanoibot.config.user.resolve_config`)."""
    from ..config.user import resolve_config

    return resolve_config(args.config)


def robot_for(args: argparse.Namespace, *, diagnostic: bool = False) -> Any:
    """The robot on ``--port`` with ``--config`` (:func:`hanoibot.ops.board.open_robot`), link open; with
    ``diagnostic`` also a board that does not fit the config (see ``Robot.mismatches``)."""
    from ..config import load_config
    from ..config.user import resolve_port
    from ..ops import board

    config = load_config(resolved_config_path(args))
    return board.open_robot(resolve_port(args.port), args.config, config=config, diagnostic=diagnostic)


def run(args: argparse.Namespace) -> int:
    """Print the board's status, with a warning per way it differs from the config; returns 0."""
    import sys

    from ..ops.board import status as board_status

    with robot_for(args, diagnostic=True) as robot:
        status = board_status(robot)
        fields = dict(status._asdict())
        fields["faults"] = list(status.faults)
        fields["pulses_us"] = list(status.pulses_us)
        fields["port"] = robot.port_url
        fields["warnings"] = list(robot.mismatches)
        for mismatch in robot.mismatches:  # a diagnostic shows the board as it is, and says what does not fit
            print(f"warning: {mismatch}", file=sys.stderr)
        if args.json:
            import json

            print(json.dumps(fields, sort_keys=True))
            return 0
        from ..ops.board_words import Grip, Rail

        grip = (
            "no sensor" if status.grip is Grip.NONE else f"{status.grip} (current reading {status.grip_raw} of 65535)"
        )
        rail = {Rail.ON: "powered", Rail.OFF: "OFF (e-stop pressed or supply off)"}.get(status.rail, "not sensed")
        print(f"port        {robot.port_url}")
        print(f"boot id     {status.boot_id}")
        print(f"mode        {status.mode}")
        print(f"faults      {', '.join(status.faults) or 'none'}")
        print(f"commands    last done {status.last_done_cmd}, last queued {status.last_queued_cmd}")
        print(f"queue       {status.free_slots} free slots")
        print(f"grip        {grip}")
        print(f"servo power {rail}")
        print(f"pulses_us   {' '.join(str(p) for p in status.pulses_us)}")
    return 0
