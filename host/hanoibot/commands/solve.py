"""``hanoibot solve``: print the moves of a plan as text, plain ``DISK FROM TO`` lines or JSON lines."""

from __future__ import annotations

import argparse

from ..cli_support.plan_options import add_plan_arguments, plan_request, whole_number
from ..planner import Plan, plan_for

FORMATS = ("text", "plain", "json")
METHOD_NAMES = ("recursive", "iterative", "gray", "bits", "turing")

EPILOG = """output formats:
  text    a header line (start -> goal, length, optimality note, method), then numbered moves: '  5  disk 1  A -> C'
  plain   one move per line, 'DISK FROM TO' with peg letters: '1 A C' (no header; --all-optimal: blank line between)
  json    first line a header object {"disks", "pegs", "rules", "start", "goal", "length", "optimal", "note",
          "method", "first", "last"}; then one object per move: {"k": 1, "disk": 1, "from": "A", "to": "C"}
          ("optimal": true = proven, null = conjectured (Frame-Stewart, 5+ pegs), false = not proven optimal)

methods (classic 3-peg tower transfer only; all give the identical optimal sequence):
  recursive (default), iterative, gray (Gray-code counter), bits (closed bit formula), turing (Basov's 16-row
  Turing machine run literally; its step count is printed as a footer in text, on stderr for plain and json).
  turing also runs from a shuffled --from tape (up to 20 disks): it halts only on its own run from a tower,
  elsewhere it loops forever, and solve says so

examples:
  hanoibot solve -n 3                                   the 7 moves of a 3-disk tower from A to C
  hanoibot solve -n 20 --format plain > moves.txt       1048575 lines like '1 A B'
  hanoibot solve -n 64 --start 10000000000000000000 --limit 3 --format plain
  hanoibot solve --from ACAB --to C --format json       from a given state to the tower on C
  hanoibot solve -n 5 --to B --method turing            A to B, run on the Turing machine
  hanoibot solve --from ACABC --method turing           the seed's shuffled tape: the machine never halts
  hanoibot solve --puzzle bicolor -n 3                  two alternating towers made monochrome
  hanoibot solve --puzzle tricolor -n 2 --format plain  three colour towers, each to another peg: '1r A B'
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``solve`` sub-command."""
    parser = subparsers.add_parser(
        "solve",
        help="print the moves of a plan",
        description="Plan the moves from a start state to a goal state and print them.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_plan_arguments(parser)
    parser.add_argument("--format", default="text", metavar="F", help="text (default), plain or json")
    parser.add_argument("--start", metavar="K", help="first move to print, 1-based (default 1); O(n) to reach")
    parser.add_argument("--limit", metavar="M", help="print at most M moves (default: to the end)")
    parser.add_argument("--method", metavar="NAME", help=f"classic only: {', '.join(METHOD_NAMES)}")
    parser.add_argument(
        "--all-optimal",
        action="store_true",
        help="print every optimal plan (exact sweep within --max-states; refused beyond it or past 1000 plans)",
    )
    parser.add_argument("--puzzle", metavar="NAME", help="bicolor or tricolor: the coloured towers, -n sizes")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check the options, make the plan and print the chosen moves; returns 0."""
    from ..cli_support.solve_output import write_plan
    from ..errors import PlanError
    from ..words import count_of

    if args.format not in FORMATS:
        raise PlanError(f"unknown format {args.format!r}: expected one of {', '.join(FORMATS)}")
    if args.puzzle is not None:
        from ..cli_support.colour_solve import solve_puzzle

        return solve_puzzle(args)
    if args.method is not None and args.method not in METHOD_NAMES:
        raise PlanError(f"unknown method {args.method!r}: expected one of {', '.join(METHOD_NAMES)}")
    first = whole_number(args.start, "--start", minimum=1) or 1
    limit = whole_number(args.limit, "--limit", minimum=0)
    request = plan_request(args, args.method)
    plan = plan_for(request)
    plans: tuple[Plan, ...] = (plan,)
    if args.all_optimal:
        from ..planner.all_optimal import all_optimal_plans  # the exact sweep: the general planners

        plans = all_optimal_plans(plan, max_states=request.max_states)
    for number, each in enumerate(plans):
        if first > max(each.length, 1):
            accepted = f"1 to {each.length}" if each.length else "1: the start already is the goal"
            raise PlanError(
                f"--start {first} is past the end: the plan has {count_of(each.length, 'move')} (expected {accepted})"
            )
        lo = first - 1
        hi = each.length if limit is None else min(each.length, lo + limit)
        if number and args.format == "plain":
            print()
        write_plan(each, lo, hi, args.format)
    return 0
