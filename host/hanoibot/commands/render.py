"""``hanoibot render``: look at a plan before the arm plays it — the board in ASCII, or an animated SVG with the arm."""

from __future__ import annotations

import argparse

from ..cli_support.plan_options import add_plan_arguments, plan_request, whole_number
from ..cli_support.port_options import add_config_argument
from ..errors import RenderError
from ..planner import plan_for
from ..words import count_of

#: Most moves drawn unless --limit says otherwise (an SVG of 2**20 moves helps nobody).
DEFAULT_LIMIT = 255
#: Most disks a text board is drawn with (one line per disk: 255 boards of 100 disks are 25 500 lines).
MAX_TEXT_DISKS = 100

EPILOG = """Without --out, prints the board after every move as text (fits 80 columns for up to 8 disks on up to
8 pegs). With --out FILE.svg, writes an animated SVG of the run: pegs, disks and the arm at the end of every
planned motion, laid out from the robot config.

examples:
  hanoibot render -n 3                          the 8 boards of a 3-disk solution, as text
  hanoibot render -n 4 --out run.svg            an animated picture of the arm solving 4 disks
  hanoibot render --from ACAB --to C --out fix.svg --frame-s 0.3
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``render`` sub-command."""
    parser = subparsers.add_parser(
        "render",
        help="draw a plan: text boards or an animated SVG with the arm",
        description="Draw what a plan will do: every board as text, or an animated SVG of the arm playing it.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_plan_arguments(parser)
    add_config_argument(parser)
    parser.add_argument("--out", metavar="FILE.svg", help="write an animated SVG here instead of printing text")
    parser.add_argument("--force", action="store_true", help="replace the --out file if it exists")
    parser.add_argument("--frame-s", metavar="S", default="0.4", help="seconds each SVG frame shows (default 0.4)")
    parser.add_argument("--limit", metavar="M", default=None, help=f"draw at most M moves (default {DEFAULT_LIMIT})")
    parser.set_defaults(run=run)


def _frame_seconds(text: str) -> float:
    """The --frame-s option as a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 3600:
        raise RenderError(f"--frame-s {text!r} is not valid: expected a number of seconds above 0 (e.g. 0.4)")
    return value


def run(args: argparse.Namespace) -> int:
    """Draw the requested plan; returns 0."""
    import sys
    from itertools import islice

    from ..cli_support.output_files import check_output_paths
    from ..render import render_board_ascii, render_run_svg

    request = plan_request(args)
    limit = whole_number(args.limit, "--limit", minimum=1) or DEFAULT_LIMIT
    frame_s = _frame_seconds(args.frame_s)
    if args.out is None and request.n_disks > MAX_TEXT_DISKS:
        raise RenderError(
            f"-n {request.n_disks}: a text board is one line per disk, so {limit} boards of {request.n_disks} disks "
            f"would be {limit * request.n_disks:,} lines; text boards go up to {MAX_TEXT_DISKS} disks: "
            "expected a smaller -n (the moves alone: hanoibot solve --format plain)"
        )
    if args.out is None and args.config is not None:
        from ..config import load_config

        load_config(args.config)  # text boards need no geometry, but a bad --config is still bad input
    plan = plan_for(request)
    moves = list(islice(plan, min(limit, plan.length, sys.maxsize)))  # islice refuses a larger stop
    if args.out is None:
        state = plan.start
        print(f"start {state}\n{render_board_ascii(state)}")
        for k, move in enumerate(moves, start=1):
            state = state.apply(move, plan.rules)
            print(f"\nmove {k} of {plan.length}: {move.plain()}\n{render_board_ascii(state)}")
        return 0
    from ..config import load_config
    from ..render.plan_frames import plan_frames

    config = load_config(args.config)
    frames = plan_frames(config, plan.start, moves)
    check_output_paths({"--out": args.out}, {"--config": args.config}, force=args.force)  # before the long part
    svg = render_run_svg(config, frames, frame_s=frame_s)
    try:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(svg)
    except OSError as err:
        raise RenderError(f"cannot write --out {args.out!r}: {err.strerror or err}") from err
    print(f"wrote {len(moves)} of {count_of(plan.length, 'move')} to {args.out}")
    return 0
