"""``hanoibot resume --journal FILE``: finish a journaled run after the host stopped, every move exactly once.

Same board boot: the board is asked which command ids finished; what finished is recorded, what did not is
sent again with fresh ids, and the run goes on. Board reset (new boot id): the arm is homed, the operator
confirms where the disks are (``--board STATE`` or a prompt), and the rest is replanned from that state.
After ``hanoibot home --journal FILE`` put the disks down, the rest is replanned from where it recorded them.
A latched e-stop is released only with ``--clear`` (look at the arm first); without it nothing moves.
Exit codes as ``hanoibot run``; 2 also for a journal of another robot config or plan, or no confirmation.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from .run import add_robot_arguments

if TYPE_CHECKING:
    from ..planner.base import Plan
    from ..planner.colour_run import ColourRunPlan
    from ..puzzle import State
    from ..run.journal import JournalLog

EPILOG = """examples:
  hanoibot resume --journal run.journal                      after the host was killed or the cable pulled
  hanoibot resume --journal run.journal --clear              after an e-stop: release it and go on
  hanoibot resume --journal run.journal --board ACB          after a board reset: the disks are as ACB
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
    parser.add_argument("--journal", metavar="FILE", required=True, help="the journal the run wrote")
    parser.add_argument("--board", metavar="STATE", help="where the disks are now, if the board was reset")
    parser.add_argument(
        "--clear", action="store_true", help="release a latched e-stop and go on (look at the arm first)"
    )
    add_robot_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check the journal against the robot, rejoin the board and finish the run."""
    from ..config import load_config
    from ..planner.colour_run import ColourRunPlan
    from ..run.board_setup import sim_port_url
    from ..run.journal import Journal, load_journal
    from ..run.recovery import check_journal, recorded_board, resume_after_reset, resume_same_boot
    from ..run.robot import Robot
    from .output_files import check_output_paths
    from .run import check_not_empty, drive, make_view
    from .words import count_of

    check_not_empty(args)

    log = load_journal(args.journal)
    board = _parse_board(args.board, int(log.plan_spec["pegs"])) if args.board else recorded_board(log)
    if log.end_status == "done":
        print(f"nothing to resume: the run in {args.journal} finished ({count_of(log.moves_done, 'move')})")
        return 0
    config = load_config(args.config or log.config_path or None)
    plan = check_journal(log, config.config_hash, args.journal)
    if isinstance(plan, ColourRunPlan):
        config = config.with_colour_disks(plan.sizes, plan.per_size)
        if args.board and board is not None:
            _check_colour_board(args.board, board, plan)
    port = args.port or log.port or "sim://"
    check_output_paths({"--report": args.report}, {"--journal": args.journal, "--config": args.config})
    if _is_sim(port):
        # an in-process simulated board never outlives the host: it is always a new boot
        board = board or _ask_board(log, plan, "the simulated board starts afresh")
        port = sim_port_url(_without_board(port), board, args.config or log.config_path or None, plan.rules)
    robot = Robot(port, config)
    robot.open()
    with robot, Journal.open_append(args.journal) as journal:
        if robot.boot_id == log.boot_id and board is None:
            point = resume_same_boot(log, plan, robot, journal, clear=args.clear)
        else:
            board = board or _ask_board(log, plan, f"the board was reset (boot {log.boot_id} -> {robot.boot_id})")
            point = resume_after_reset(log, plan, robot, board)
        view = make_view(
            robot, point.plan.length, point.board_state, args, first_k=point.first_k, per_size=plan.rules.per_size
        )
        job = point.run(robot, journal, on_move_done=view.move_done)
        return drive(job, view, args, **point.start_options())


def _parse_board(text: str, pegs: int) -> State:
    from ..errors import StateError
    from ..puzzle import State

    try:
        return State.parse(text, pegs=pegs)
    except StateError as err:
        raise StateError(f"--board: {err}") from None


def _check_colour_board(text: str, board: State, plan: ColourRunPlan) -> None:
    """StateError naming ``--board`` when its numbered disks are no board of the coloured puzzle's set."""
    from ..errors import StateError
    from ..puzzle.colours import colours_of

    if board.n_disks != plan.start.n_disks:
        raise StateError(
            f"--board {text}: {board.n_disks} disks, expected the {plan.start.n_disks} coloured disks of the run"
        )
    try:
        colours_of(board.stacks, plan.per_size)
    except StateError as err:
        raise StateError(f"--board {text}: {err}") from None


def _ask_board(log: JournalLog, plan: Plan, why: str) -> State:
    """Ask the operator where the disks are now, showing where the journal last saw them (JournalError when
    nobody can answer)."""
    from ..errors import JournalError
    from ..run.recovery import last_known_board

    last = last_known_board(log, plan)
    if not sys.stdin.isatty():
        raise JournalError(f"{why}: confirm where the disks are with --board STATE (last known: {last})")
    text = input(f"{why}. Where are the disks now (last known: {last})? ").strip()
    return _parse_board(text, int(log.plan_spec["pegs"]))


def _is_sim(url: str) -> bool:
    """True for a ``sim://`` URL: an in-process simulated board, which never outlives the host."""
    from ..sim.spec import SimSpec

    spec = SimSpec.from_url(url)
    return spec is not None and spec.scheme == "sim"


def _without_board(url: str) -> str:
    """A sim:// URL without ``board=`` (the confirmed board replaces it) and one-off faults (``reset_after=``)."""
    from ..sim.spec import ONE_OFF_OPTIONS, SimSpec

    spec = SimSpec.from_url(url)
    return url if spec is None else spec.without("board", *ONE_OFF_OPTIONS).to_url()
