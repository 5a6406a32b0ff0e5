"""``hanoibot home --port URL``: send the limits and bring the arm to its start pose at servo speed.

A latched fault or e-stop is only released with ``--clear``. Motion that an earlier command left queued or held (a
run that stopped or was killed) is dropped first. The arm then lifts straight up clear of every peg; a disk in the
gripper is put down on a legal peg (``--journal`` says which disk it is and where the others are, and gets where
it went) before the arm travels home: see :mod:`hanoibot.run.going_home`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import JournalError
from ..ops.person import person_asker
from .status import add_port_arguments, open_robot


def register(subparsers: Any) -> None:
    """Add the ``home`` sub-command."""
    parser = subparsers.add_parser(
        "home",
        help="bring the arm to its start pose",
        description="Configure the board's pulse limits and move the arm to its start pose.",
        epilog=(
            "examples:\n  hanoibot home --port /dev/ttyACM0\n  hanoibot home --port /dev/ttyACM0 --clear\n"
            "  hanoibot home --port /dev/ttyACM0 --clear --journal run.journal   # after an e-stop mid-move\n"
            "  hanoibot home --port /dev/ttyACM0 --release   # outputs off, e.g. before unplugging\n"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_port_arguments(parser)
    parser.add_argument("--clear", action="store_true", help="release a latched fault or e-stop first")
    parser.add_argument(
        "--journal",
        metavar="FILE",
        help="the stopped run's journal: says which disk the gripper holds, and records where it was put down",
    )
    parser.add_argument(
        "--release", action="store_true", help="switch every servo output off instead (the arm goes limp: support it)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Home the arm; returns 0 when it is home, 1 if the board faulted on the way (a held disk that cannot be put
    down safely, or a latched fault without ``--clear``, is a one-line error, exit 2)."""
    from ..run.going_home import home_arm, put_away

    if args.journal == "":
        raise JournalError("--journal is empty: expected the journal file of the run that stopped")
    with open_robot(args) as robot:
        if args.release:
            robot.session.release()
            print(f"home: every servo output is off on {robot.port_url} (the arm is limp)")
            return 0
        ask = person_asker(robot.session) if sys.stdin.isatty() else None
        said, next_cmd_id = put_away(robot, clear=args.clear, journal_path=args.journal, ask=ask)
        if said:
            print(f"home: {said}" + (f" (recorded in {args.journal})" if args.journal else ""))
        failed = home_arm(robot, next_cmd_id)
        if failed is not None:
            print(f"hanoibot: homing failed: {failed}", file=sys.stderr)
            return 1
        print(f"home: the arm is at its start pose on {robot.port_url}")
        return 0
