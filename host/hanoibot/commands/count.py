"""``hanoibot count``: print the exact number of moves of a plan, alone on one line."""

from __future__ import annotations

import argparse

from ..planner import count_for
from .plan_options import add_plan_arguments, plan_request

EPILOG = """The number is exact (a whole number of any size) and is computed without generating moves where the
mathematics allows it.

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
    """Print the move count of the requested plan; returns 0."""
    print(count_for(plan_request(args)))
    return 0
