"""``hanoibot resume [--journal FILE]``: finish a journaled run after the host stopped, every move exactly once.

Without ``--journal`` the newest stopped run on the port is found in the state folder (``hanoibot runs`` lists
them); the port follows the rule of every command (``--port``, else ``HANOIBOT_PORT``, else ``hanoibot init``'s,
else ``sim://``), and the run goes on with the port and config its journal names unless told others.
The decisions are :func:`hanoibot.ops.resume.open_resume`'s:
Same board boot: the board is asked which command ids finished; what finished is recorded, what did not is
sent again with fresh ids, and the run goes on. Board reset (new boot id): the arm is homed, the operator
confirms where the disks are (``--board STATE`` or a prompt), and the rest is replanned from that state. A board
that booted while its servos held the arm (bus servos keep their torque: ``feetech://`` after the host was killed)
with the moving disk still in the gripper (its measured pose and the gripper's load say so) needs no ``--board``:
that move is finished first, then the rest is replanned.
After ``hanoibot home --journal FILE`` put the disks down, the rest is replanned from where it recorded them.
On ``sim://`` a new simulated board starts with the disks where the journal last saw them (said in one line).
A latched e-stop is released only with ``--clear`` (look at the arm first); without it nothing moves.
Exit codes as ``hanoibot run``; 2 also for a journal of another robot config or plan, or no confirmation.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .run import add_robot_arguments

EPILOG = """examples:
  hanoibot resume                                            the newest stopped run on the default port (hanoibot runs)
  hanoibot resume --port /dev/ttyACM0 --clear                the newest stopped run on that port, after an e-stop
  hanoibot resume --journal run.journal                      after the host was killed or the cable pulled
  hanoibot resume --journal run.journal --clear              after an e-stop: release it and go on
  hanoibot resume --journal run.journal --board ACB          after a board reset: the disks are as ACB
  hanoibot resume --port feetech:///dev/ttyACM0              after the host died mid-carry: the servos held the disk
  hanoibot resume --journal run.journal --port /dev/ttyACM1  the board came back under another name
"""


def register(subparsers: Any) -> None:
    """Add the ``resume`` sub-command."""
    parser = subparsers.add_parser(
        "resume",
        help="finish a journaled run, every move exactly once",
        description="Continue a run from its journal after a host crash, a pause-and-stop or a board reset.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--journal", metavar="FILE", help="the journal the run wrote (default: the newest stopped run on the port)"
    )
    parser.add_argument("--board", metavar="STATE", help="where the disks are now, if the board was reset")
    parser.add_argument(
        "--clear", action="store_true", help="release a latched e-stop and go on (look at the arm first)"
    )
    add_robot_arguments(parser, from_journal=True)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check the journal against the robot, rejoin the board and finish the run."""
    from ..cli_support.output_files import check_output_paths
    from ..config.user import resolve_port
    from ..errors import JournalError
    from ..ops.journals import journal_for
    from ..ops.resume import Finished, ResumeRequest, open_resume
    from ..words import count_of
    from .run import check_not_empty, drive, make_view

    check_not_empty(args)
    port = resolve_port(args.port)  # the one rule: --port, $HANOIBOT_PORT, init's, sim://
    path = journal_for(port, args.journal)
    if path is None:
        raise JournalError(
            f"no stopped run on {port} in the state folder (hanoibot runs lists them): "
            "name its journal with --journal FILE, or the port with --port URL"
        )
    check_output_paths({"--report": args.report}, {"--journal": str(path), "--config": args.config})
    request = ResumeRequest(path, args.port, args.config, args.board, args.clear)
    resumption = open_resume(request, ask=_ask if sys.stdin.isatty() else None)
    if isinstance(resumption, Finished):
        print(f"nothing to resume: the run in {path} finished ({count_of(resumption.moves_done, 'move')})")
        return 0
    try:
        if resumption.said:
            print(f"resume: {resumption.said}", flush=True)
        point, plan = resumption.point, resumption.plan
        view = make_view(
            resumption.robot,
            point.plan.length,
            point.board_state,
            args,
            first_k=point.first_k,
            per_size=plan.rules.per_size,
        )
        job = resumption.run()
        return drive(job, view, args, **resumption.start_options())
    finally:
        resumption.close()


def _ask(question: str) -> str | None:
    """The operator's answer to ``question`` at the terminal (None at the end of input)."""
    try:
        return input(question).strip()
    except EOFError:
        return None
