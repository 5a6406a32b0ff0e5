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

from ..cli_support.output_files import check_output_paths, write_report
from ..cli_support.plan_options import add_plan_arguments, plan_request
from ..planner import plan_for

if TYPE_CHECKING:
    from ..config import RobotConfig
    from ..planner.base import Plan
    from ..puzzle import State
    from ..run.runner import Run

EPILOG = """examples:
  hanoibot run                                       3 disks A -> C on the port of the rule below (sim:// at first)
  hanoibot run -n 5 --journal run.journal            the same with the journal in run.journal (default: hanoibot runs)
  hanoibot run --from ACAB --to C --report r.json    from a shuffled start; one JSON report at the end
  hanoibot run --port '/dev/ttyACM0' -n 4            on a real board
  hanoibot run --port 'sim://?flip=1e-2&seed=3'      the simulated arm over a noisy wire
  hanoibot run --port '/dev/ttyACM0' --release       servo outputs off once the run is done (the arm goes limp)
  hanoibot run --puzzle bicolor -n 3                 the coloured disks: two alternating towers made monochrome
  hanoibot run --puzzle tricolor -n 2                three colour towers, each to another peg

port and config: --port/--config, else $HANOIBOT_PORT/$HANOIBOT_CONFIG, else hanoibot init's, else sim:// and
the shipped robot (the simulator; `make demo` always runs there)

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
    parser.add_argument(
        "--journal",
        metavar="FILE",
        help="write the journal to FILE (must not exist); default: a new one in the state folder (hanoibot runs)",
    )
    parser.set_defaults(run=run)


def add_robot_arguments(parser: argparse.ArgumentParser, *, from_journal: bool = False) -> None:
    """The options ``run`` and ``resume`` share: port, robot config, report file, plain output. ``from_journal``:
    the command goes on with a journaled run, which names its port and config (``resume``)."""
    from ..cli_support.port_options import PORT_RULE, add_port_and_config

    if from_journal:
        parser.add_argument(
            "--port",
            metavar="URL",
            help=f"serial port or pyserial URL: the newest stopped run on it goes on, there ({PORT_RULE}; "
            "with --journal FILE: the port that journal names)",
        )
        parser.add_argument(
            "--config",
            metavar="FILE",
            help="robot config TOML (default: the one the run's journal names, which the run was planned with)",
        )
    else:
        add_port_and_config(parser)
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
    from ..ops.start import RunRequest, open_run
    from ..run.board_setup import check_puzzle_fits_board

    check_not_empty(args)
    if args.puzzle is not None:
        plan, config = colour_plan_and_config(args)
    else:
        if args.disks is None and args.from_state is None and args.to_state is None:
            args.disks = "3"
        request = plan_request(args)
        config = load_config(args.config)
        check_puzzle_fits_board(config, request.n_disks, request.pegs)
        plan = plan_for(request)
    check_output_paths({"--report": args.report, "--journal": args.journal}, {"--config": args.config})
    started = open_run(RunRequest(plan, config, args.port or "sim://", args.config, args.journal))
    try:
        view = make_view(started.robot, plan.length, plan.start, args, per_size=plan.rules.per_size)
        started.job.sequencer.on_move_done = view.move_done
        return drive(started.job, view, args)
    finally:
        started.close()


def colour_plan_and_config(args: argparse.Namespace) -> tuple[Plan, RobotConfig]:
    """The plan of ``--puzzle`` with ``-n`` sizes and the robot config with its coloured disks in use."""
    from ..cli_support.colour_solve import puzzle_sizes
    from ..config import load_config
    from ..errors import PlanError
    from ..planner.colour_run import ColourRunPlan

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

    from ..cli_support.run_view import RunView

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


#: The pause question's answers: a key at a terminal (no Enter needed), a key or a word on a line otherwise.
PAUSE_ANSWERS = {"c": True, "s": False, "continue": True, "stop": False}


def ask_continue(view: Any, keep_waiting: Callable[[], bool] | None = None) -> bool:
    """Ask the operator, after a pause, whether to continue (True) or stop; stop when nobody can answer, at
    end of input and at Ctrl-C. At a terminal one key answers (``c`` or ``s``, no Enter). While no answer has
    come, ``keep_waiting()`` runs every few ms (it serves the link); once it returns False (the run ended
    meanwhile, e.g. e-stopped from another process) the question is dropped and the answer is False."""
    if not sys.stdin.isatty():
        view.message("paused: the arm is held; no terminal to ask, stopping")
        return False
    with interrupt_raises():
        try:
            answer = view.choose(PAUSE_QUESTION, PAUSE_ANSWERS, keep_waiting)
        except (EOFError, KeyboardInterrupt):
            return False
        return bool(answer)


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
    from ..cli_support.words import count_of
    from ..run.sequencer import Phase

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
    print(f"hanoibot: {stopped_words(phase)} {where}{_reason(job)}{resume_hint(job, phase)}", file=sys.stderr)
    if phase is Phase.DISCONNECTED:
        return 130
    if args.debug and report.frame_trace:
        print(f"hanoibot: the last {len(report.frame_trace)} frames on the link:", file=sys.stderr)
        for line in report.frame_trace:
            print(f"  {line}", file=sys.stderr)
    return 1


def _reason(job: Run) -> str:
    """``: why`` the run stopped ("" when the operator stopped it)."""
    from ..run.sequencer import Phase

    return f": {job.sequencer.reason}" if job.phase is not Phase.DISCONNECTED and job.sequencer.reason else ""


def stopped_words(phase: object) -> str:
    """How a run that did not finish ended, in words (``e-stopped``, ``stopped by the operator``, ...)."""
    from ..run.sequencer import Phase

    words: dict[object, str] = {
        Phase.ESTOPPED: "run e-stopped",
        Phase.FAULT: "run stopped by a fault",
        Phase.PAUSED: "run paused",
        Phase.DISCONNECTED: "stopped by the operator",
    }
    return words.get(phase, f"run ended ({phase})")


def resume_hint(job: Run, phase: object) -> str:
    """``; continue with: ...`` naming the command that goes on from the run's journal ("" without one)."""
    from ..run.sequencer import Phase

    if job.journal is None:
        return ""
    journal = f"hanoibot resume --journal {job.journal.path}"
    if phase is Phase.ESTOPPED:  # an e-stop is released only when asked to
        return f"; look at the arm, then continue with: {journal} --clear"
    return f"; continue with: {journal}"
