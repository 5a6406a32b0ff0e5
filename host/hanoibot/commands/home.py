"""``hanoibot home --port URL``: send the limits and bring the arm to its start pose at servo speed.

A latched fault or e-stop is only released with ``--clear`` (look at the arm first: it may hold a disk). Motion
that an earlier command left queued or held (a run that stopped or was killed) is dropped first.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .status import add_port_arguments, open_robot


def register(subparsers: Any) -> None:
    """Add the ``home`` sub-command."""
    parser = subparsers.add_parser(
        "home",
        help="bring the arm to its start pose",
        description="Configure the board's pulse limits and move the arm to its start pose.",
        epilog=(
            "examples:\n  hanoibot home --port /dev/ttyACM0\n  hanoibot home --port /dev/ttyACM0 --clear\n"
            "  hanoibot home --port /dev/ttyACM0 --release   # outputs off, e.g. before unplugging\n"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_port_arguments(parser)
    parser.add_argument("--clear", action="store_true", help="release a latched fault or e-stop first")
    parser.add_argument(
        "--release", action="store_true", help="switch every servo output off instead (the arm goes limp: support it)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Home the arm; returns 0 when it is home, 1 if the board faulted on the way."""
    from ..run.release import lift_clear, release_board
    from ..run.sequencer import Phase

    with open_robot(args) as robot:
        if args.release:
            robot.session.release()
            print(f"home: every servo output is off on {robot.port_url} (the arm is limp)")
            return 0
        release_board(robot.session, clear=args.clear)
        lift_clear(robot)
        status = robot.session.status()
        sequencer = robot.sequencer()
        configure = status.mode == "UNCONFIGURED"
        if sequencer.connect(open_link=False, configure=configure) is not Phase.READY:
            print(f"hanoibot: homing failed: {sequencer.reason}", file=sys.stderr)
            return 1
        print(f"home: the arm is at its start pose on {robot.port_url}")
        return 0
