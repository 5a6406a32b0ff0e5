"""``hanoibot count``: print the exact number of moves of a plan, alone on one line."""

from __future__ import annotations

import argparse

from ..cli_support.plan_options import add_plan_arguments, plan_request
from ..planner import count_proved

EPILOG = """The number is exact (a whole number of any size) and is computed without generating moves where the
mathematics allows it. It is the optimum when that is proven; otherwise (a valid plan that no search or formula
proves shortest, or Frame-Stewart on 5+ pegs, only conjectured optimal) stderr says so in one line starting with
'hanoibot: note:', and stdout still holds the number alone.

examples:
  hanoibot count -n 64                          18446744073709551615
  hanoibot count -n 10 --from ACABBCAACB --to A
  hanoibot count -n 1000000 --pegs 4            Frame-Stewart (optimal, proven for 4 pegs)
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``count`` sub-command."""
    parser = subparsers.add_parser(
        "count",
        help="print the number of moves alone",
        description="Print the exact number of moves from a start state to a goal state.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_plan_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the move count of the requested plan, and a note on stderr unless it is the proven optimum; returns 0."""
    import sys

    count, optimal, note = count_proved(plan_request(args))
    print(count)
    if optimal is None:
        print(f"hanoibot: note: {count} is conjectured optimal, not proven: {note}", file=sys.stderr)
    elif not optimal:
        print(f"hanoibot: note: {count} is an upper bound, not proven optimal: {note}", file=sys.stderr)
    return 0
