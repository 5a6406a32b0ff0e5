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
    from ..ops.follow import Follow, Kind, Run
    from ..planner.base import Plan
    from ..puzzle import State

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

    check_not_empty(args)
    if args.puzzle is not None:
        plan, config = colour_plan_and_config(args)
    else:
        if args.disks is None and args.from_state is None and args.to_state is None:
            args.disks = "3"
        config = load_config(args.config)
        plan = plan_for(plan_request(args))
    check_output_paths({"--report": args.report, "--journal": args.journal}, {"--config": args.config})
    started = open_run(RunRequest(plan, config, args.port or "sim://", args.config, args.journal))
    try:
        view = make_view(started.robot, plan.length, plan.start, args, per_size=plan.rules.per_size)
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
def pause_on_interrupt(follow: Follow) -> Iterator[None]:
    """While inside, Ctrl-C asks the run to pause (HOLD) at the next segment boundary instead of killing it."""

    def handler(signum: int, frame: object) -> None:
        follow.request_pause()

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


def drive(job: Run, view: Any, args: argparse.Namespace, **start_options: bool) -> int:
    """Follow ``job`` (:class:`hanoibot.ops.follow.Follow`) with the view and the pause prompt, write the report,
    and return the exit code."""
    from ..ops.follow import Follow, Kind, RunEvent

    def show(event: RunEvent) -> None:
        if event.kind is Kind.MOVE_DONE:
            view.move_done(event.index, event.move, event.board)

    follow = Follow(job, show)
    with view, pause_on_interrupt(follow):
        follow.start(**start_options)
        while follow.is_paused:
            with view.paused():
                go_on = ask_continue(view, follow.keep_waiting)
            if not follow.is_paused:  # e-stopped from another process, or the link failed, meanwhile
                view.message("")  # end the prompt's line
            elif go_on:
                follow.go_on()
            else:
                follow.stop()
    follow.end()
    written = write_report(follow.report(), args.report) if args.report else True
    return _show_end(follow, args, written)


def _show_end(follow: Follow, args: argparse.Namespace, written: bool) -> int:
    """Print how the followed run ended; the exit code (see the module doc)."""
    from ..ops.follow import Kind
    from ..ops.home import release

    end = follow.last
    assert end is not None
    if end.kind is Kind.FINISHED:
        print(end.words, flush=True)
        if args.release:
            print(f"released: {release(follow.job.robot)}", flush=True)
        wrong = follow.colours_wrong()
        if wrong:
            print(f"hanoibot: {wrong}", file=sys.stderr)
            return 1
        return 0 if written else 1
    reason = f": {end.reason}" if end.reason else ""
    print(f"hanoibot: run {end.words}{reason}{resume_hint(follow, end.kind)}", file=sys.stderr)
    if end.kind is Kind.STOPPED:
        return 130
    trace = follow.report().frame_trace
    if args.debug and trace:
        print(f"hanoibot: the last {len(trace)} frames on the link:", file=sys.stderr)
        for line in trace:
            print(f"  {line}", file=sys.stderr)
    return 1


def resume_hint(follow: Follow, kind: Kind) -> str:
    """``; continue with: ...`` naming the command that goes on from the run's journal ("" without one)."""
    from ..ops.follow import Kind

    if follow.journal_path is None:
        return ""
    journal = f"hanoibot resume --journal {follow.journal_path}"
    if kind is Kind.ESTOPPED:  # an e-stop is released only when asked to
        return f"; look at the arm, then continue with: {journal} --clear"
    return f"; continue with: {journal}"
