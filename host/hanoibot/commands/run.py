"""``hanoibot run``: plan a puzzle and play it on the arm (the simulated one by default), journaled.

Ctrl-C pauses safely: the board is told to HOLD at the next segment boundary, then the operator chooses to
continue or stop; while it asks, the link and the port's control socket stay served (``hanoibot estop`` from
another terminal ends the run e-stopped). Exit codes: 0 done, 1 the run stopped in fault or e-stop (or the report
could not be written at the end), 2 bad input (nothing moved; this includes a --report or --journal path that
cannot be written), 130 stopped by the operator.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..planner import plan_for
from .output_files import check_output_paths, write_report
from .plan_options import add_plan_arguments, plan_request

if TYPE_CHECKING:
    from ..config import RobotConfig
    from ..planner.base import Plan
    from ..puzzle import State
    from ..run.runner import Run

EPILOG = """examples:
  hanoibot run                                       3 disks A -> C on the simulated arm (sim://)
  hanoibot run -n 5 --journal run.journal            the same with a journal, for `hanoibot resume`
  hanoibot run --from ACAB --to C --report r.json    from a shuffled start; one JSON report at the end
  hanoibot run --port '/dev/ttyACM0' -n 4            on a real board
  hanoibot run --port 'sim://?flip=1e-2&seed=3'      the simulated arm over a noisy wire
  hanoibot run --port '/dev/ttyACM0' --release       servo outputs off once the run is done (the arm goes limp)
  hanoibot run --puzzle bicolor -n 3                 the coloured disks: two alternating towers made monochrome
  hanoibot run --puzzle tricolor -n 2                three colour towers, each to another peg

exit codes: 0 done, 1 fault or e-stop, 2 bad input (nothing moved), 130 stopped by the operator
"""


def register(subparsers: Any) -> None:
    """Add the ``run`` sub-command."""
    parser = subparsers.add_parser(
        "run",
        help="play a puzzle on the arm (simulated by default)",
        description="Plan the moves and play them on the arm, with a live progress bar and the board.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_plan_arguments(parser)
    parser.add_argument(
        "--puzzle", metavar="NAME", help="bicolor or tricolor: the coloured disks of [board.colour_set], -n sizes"
    )
    add_robot_arguments(parser)
    parser.add_argument("--journal", metavar="FILE", help="write a journal to FILE (must not exist) for resume")
    parser.set_defaults(run=run)


def add_robot_arguments(parser: argparse.ArgumentParser) -> None:
    """The options ``run`` and ``resume`` share: port, robot config, report file, plain output."""
    parser.add_argument("--port", metavar="URL", help="serial port or pyserial URL (default sim://)")
    parser.add_argument("--config", metavar="FILE", help="robot config TOML (default hardware/robot.toml)")
    parser.add_argument("--report", metavar="FILE", help="write one JSON object with the outcome to FILE")
    parser.add_argument("--plain", action="store_true", help="plain progress lines even on a terminal")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="when the link fails, print its last frames (times in s, > written, < read) to stderr",
    )
    parser.add_argument(
        "--release",
        action="store_true",
        help="switch every servo output off once the run is done (the arm goes limp: support it); not after a fault",
    )


def run(args: argparse.Namespace) -> int:
    """Check everything, open the board, then play the plan; see the module doc for exit codes."""
    from ..config import load_config
    from ..run.board_setup import check_board_fits, sim_port_url
    from ..run.journal import Journal
    from ..run.robot import Robot
    from ..run.runner import Run

    check_not_empty(args)
    if args.puzzle is not None:
        plan, config = colour_plan_and_config(args)
    else:
        if args.disks is None and args.from_state is None and args.to_state is None:
            args.disks = "3"
        request = plan_request(args)
        config = load_config(args.config)
        check_board_fits(config, request.n_disks, request.pegs)
        plan = plan_for(request)
    check_output_paths({"--report": args.report, "--journal": args.journal}, {"--config": args.config})
    port_url = sim_port_url(args.port or "sim://", plan.start, args.config, plan.rules)
    robot = Robot(port_url, config)
    robot.open()
    try:
        journal = Journal.create(args.journal) if args.journal else None
    except BaseException:
        robot.close()
        raise
    with robot, journal if journal is not None else contextlib.nullcontext():
        view = make_view(robot, plan.length, plan.start, args, per_size=plan.rules.per_size)
        job = Run(robot, plan, journal=journal, on_move_done=view.move_done)
        return drive(job, view, args)


def colour_plan_and_config(args: argparse.Namespace) -> tuple[Plan, RobotConfig]:
    """The plan of ``--puzzle`` with ``-n`` sizes and the robot config with its coloured disks in use."""
    from ..config import load_config
    from ..errors import PlanError
    from ..planner.colour_run import ColourRunPlan
    from .colour_solve import puzzle_sizes

    sizes = puzzle_sizes(args)
    plan = ColourRunPlan(args.puzzle, sizes)
    if plan.length == 0:
        raise PlanError(f"--puzzle {args.puzzle} -n {sizes}: the start already is the goal; expected -n 2 or more")
    return plan, load_config(args.config).with_colour_disks(sizes, plan.per_size)


def check_not_empty(args: argparse.Namespace) -> None:
    """OutputFileError for an option given as an empty string (``--port ''``): refused, never taken as the default."""
    from ..errors import OutputFileError

    for name in ("port", "config", "report", "journal", "board"):
        value = getattr(args, name, None)
        if value is not None and not value.strip():
            raise OutputFileError(f"--{name} {value!r} is empty: expected a value (or leave the option out)")


def make_view(
    robot: Any, total: int, state: State, args: argparse.Namespace, *, first_k: int = 0, per_size: int = 1
) -> Any:
    """The progress view, on robot time (the simulated clock on sim://); ``per_size`` > 1 for coloured disks."""
    import time

    from .run_view import RunView

    clock = robot.board_clock
    now_s = clock.now_s if clock is not None else time.monotonic
    return RunView(
        total,
        state,
        now_s,
        first_k=first_k,
        live=False if args.plain else None,
        simulated=clock is not None,
        per_size=per_size,
    )


@contextlib.contextmanager
def pause_on_interrupt(job: Run) -> Iterator[None]:
    """While inside, Ctrl-C asks the run to pause (HOLD) at the next segment boundary instead of killing it."""

    def handler(signum: int, frame: object) -> None:
        job.request_pause()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


#: The question asked at a pause; shown literally (no markup), so the keys in brackets stay visible.
PAUSE_QUESTION = "paused: the arm is held. [c]ontinue or [s]top? "


@contextlib.contextmanager
def interrupt_raises() -> Iterator[None]:
    """While inside, Ctrl-C raises KeyboardInterrupt (at the pause prompt it means stop, not another pause)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def ask_continue(view: Any, keep_waiting: Callable[[], bool] | None = None) -> bool:
    """Ask the operator, after a pause, whether to continue (True) or stop; stop when nobody can answer, at
    end of input and at Ctrl-C. While no answer has come, ``keep_waiting()`` runs every few ms (it serves the
    link); once it returns False (the run ended meanwhile, e.g. e-stopped from another process) the question is
    dropped and the answer is False."""
    if not sys.stdin.isatty():
        view.message("paused: the arm is held; no terminal to ask, stopping")
        return False
    with interrupt_raises():
        while True:
            try:
                answer = view.ask(PAUSE_QUESTION, keep_waiting)
            except (EOFError, KeyboardInterrupt):
                return False
            if answer is None:
                return False
            if answer.strip().lower() in ("c", "continue"):
                return True
            if answer.strip().lower() in ("s", "stop"):
                return False


def colours_wrong(job: Run) -> str | None:
    """Why a finished coloured puzzle's board (as the simulated board's disks show it) is not its goal, or None."""
    from ..planner.colour_run import ColourRunPlan
    from ..puzzle.colours import colour_words

    if not isinstance(job.plan, ColourRunPlan):
        return None
    colours = job.board_colours()
    if colours == job.plan.colour_goal:
        return None
    seen = colour_words(colours) if colours is not None else "a disk off the pegs"
    return f"the board's colours are {seen}, not the goal {colour_words(job.plan.colour_goal)}"


def drive(job: Run, view: Any, args: argparse.Namespace, **start_options: bool) -> int:
    """Run ``job`` with the view and the pause prompt, write the report, and return the exit code."""
    from ..run.sequencer import Phase
    from .words import count_of

    with view, pause_on_interrupt(job):
        phase = job.start(**start_options)
        while phase is Phase.PAUSED:
            with view.paused():
                go_on = ask_continue(view, job.keep_waiting)
            if job.phase is not Phase.PAUSED:  # e-stopped from another process, or the link failed, meanwhile
                view.message("")  # end the prompt's line
                phase = job.phase
            else:
                phase = job.go_on() if go_on else job.stop()
    report = job.report()
    written = write_report(report, args.report) if args.report else True
    if phase is Phase.DONE:
        colours = f"; colours {report.colours}" if report.colours is not None else ""
        board = f"board {report.final}{colours}"
        print(f"done: {report.moves_done} of {count_of(report.moves_total, 'move')}, {board}", flush=True)
        if args.release:
            job.robot.session.release()
            print(f"released: every servo output is off on {job.robot.port_url} (the arm is limp)", flush=True)
        wrong = colours_wrong(job)
        if wrong:
            print(f"hanoibot: {wrong}", file=sys.stderr)
            return 1
        return 0 if written else 1
    where = f"after {report.moves_done} of {count_of(report.moves_total, 'move')}"
    journal_hint = f"; continue with: hanoibot resume --journal {job.journal.path}" if job.journal else ""
    if job.journal and phase is Phase.ESTOPPED:  # an e-stop is released only when asked to
        journal_hint = f"; look at the arm, then continue with: hanoibot resume --journal {job.journal.path} --clear"
    if phase is Phase.DISCONNECTED:
        print(f"hanoibot: stopped by the operator {where}{journal_hint}", file=sys.stderr)
        return 130
    print(f"hanoibot: run stopped in {phase.value} {where}: {job.sequencer.reason}{journal_hint}", file=sys.stderr)
    if args.debug and report.frame_trace:
        print(f"hanoibot: the last {len(report.frame_trace)} frames on the link:", file=sys.stderr)
        for line in report.frame_trace:
            print(f"  {line}", file=sys.stderr)
    return 1
