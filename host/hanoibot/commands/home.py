"""``hanoibot home --port URL``: send the limits and bring the arm to its start pose at servo speed.

A latched fault or e-stop is only released with ``--clear``. Motion that an earlier command left queued or held (a
run that stopped or was killed) is dropped first. The arm then lifts straight up clear of every peg; a disk in the
gripper is put down on a legal peg (the stopped run's journal says which disk it is and where the others are, and
gets where it went) before the arm travels home: see :mod:`hanoibot.ops.home`. Without ``--journal`` the newest
stopped run on the port is that journal (``hanoibot runs``). On ``sim://`` a new simulated
board starts with the disks where that journal last saw them.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .status import add_port_arguments


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
        help="the stopped run's journal: says which disk the gripper holds, and records where it was put down "
        "(default: the newest stopped run on the port, see hanoibot runs)",
    )
    parser.add_argument(
        "--release", action="store_true", help="switch every servo output off instead (the arm goes limp: support it)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Home the arm; returns 0 when it is home, 1 if the board faulted on the way (a held disk that cannot be put
    down safely, or a latched fault without ``--clear``, is a one-line error, exit 2)."""
    from ..ops.board import open_robot
    from ..ops.home import home, release
    from ..ops.journals import journal_for
    from ..ops.person import person_asker

    journal = journal_for(args.port, args.journal) if not args.release else None
    port, said = _port_for(args.port, journal, args.config)
    if said:
        print(f"home: {said}")
    with open_robot(port, args.config) as robot:
        if args.release:
            print(f"home: {release(robot)}")
            return 0
        result = home(
            robot,
            clear=args.clear,
            journal_path=journal,
            ask=person_asker(robot.session) if sys.stdin.isatty() else None,
        )
        if result.put_down:
            print(f"home: {result.put_down}" + (f" (recorded in {result.journal})" if result.journal else ""))
        if not result.is_home:
            print(f"hanoibot: homing failed: {result.failed}", file=sys.stderr)
            return 1
        print(f"home: the arm is at its start pose on {robot.port_url}")
        return 0


def _port_for(port: str, journal: Any, config_path: str | None) -> tuple[str, str]:
    """The port to open, and what to say about it: on ``sim://`` with a journal, a new simulated board with the
    disks where the journal last saw them."""
    from ..ops.resume import sim_board_from_journal
    from ..sim_url import is_sim

    if journal is None or not is_sim(port):
        return port, ""
    return sim_board_from_journal(port, journal, config_path)
