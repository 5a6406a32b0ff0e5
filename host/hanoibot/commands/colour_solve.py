"""``hanoibot solve --puzzle bicolor|tricolor``: the moves of a coloured-tower puzzle, in the solve formats."""

from __future__ import annotations

import argparse
import json
from itertools import islice

from ..errors import PlanError
from .plan_options import whole_number

#: Most sizes a coloured puzzle may have (its plan is generated move by move).
MAX_SIZES = 24


def refuse_plan_options(args: argparse.Namespace) -> None:
    """PlanError naming the first option that does not apply to a coloured puzzle (its start and goal are fixed)."""
    given = {
        "--pegs": args.pegs not in (None, "3"),
        "--rules": args.rules not in (None, "classic"),
        "--from": args.from_state is not None,
        "--to": args.to_state is not None,
        "--method": getattr(args, "method", None) is not None,
        "--all-optimal": bool(getattr(args, "all_optimal", False)),
    }
    for option, present in given.items():
        if present:
            raise PlanError(f"--puzzle {args.puzzle} does not take {option}: its pegs, start and goal are fixed")


def puzzle_sizes(args: argparse.Namespace) -> int:
    """The size count ``-n`` of a coloured puzzle (required), checked."""
    from ..puzzle.colours import PUZZLES

    if args.puzzle not in PUZZLES:
        raise PlanError(f"unknown puzzle {args.puzzle!r}: expected one of {', '.join(PUZZLES)}")
    refuse_plan_options(args)
    sizes = whole_number(args.disks, "-n", minimum=1, maximum=MAX_SIZES)
    if sizes is None:
        raise PlanError(f"--puzzle {args.puzzle} needs -n N: the number of disk sizes (1 to {MAX_SIZES})")
    return sizes


def make_colour_plan(puzzle: str, sizes: int) -> object:
    """The exact plan when the board is small enough, else the level-by-level construction."""
    from ..planner.colour_run import colour_plan

    return colour_plan(puzzle, sizes)


def solve_puzzle(args: argparse.Namespace) -> int:
    """Print the moves of ``--puzzle`` with ``-n`` sizes in ``--format`` (text, plain, json); returns 0."""
    from ..planner.colours import ColourPlan
    from ..puzzle import PEG_LETTERS
    from ..puzzle.colours import COLOUR_NAMES

    sizes = puzzle_sizes(args)
    plan = make_colour_plan(args.puzzle, sizes)
    assert isinstance(plan, ColourPlan)
    if plan.length == 0:
        raise PlanError(f"--puzzle {args.puzzle} -n {sizes}: the start already is the goal; expected -n 2 or more")
    first = whole_number(args.start, "--start", minimum=1) or 1
    if first > plan.length:
        raise PlanError(f"--start {first} is past the end: the plan has {plan.length} moves")
    limit = whole_number(args.limit, "--limit", minimum=0)
    lo = first - 1
    hi = plan.length if limit is None else min(plan.length, lo + limit)
    if args.format == "text":
        # "in", not ":": a board written with pegs ends in "C:" when C is empty (no "C:: 3 moves").
        print(f"{plan.start} -> {plan.goal} in {plan.length} moves, {plan.note}; method {plan.method}")
    elif args.format == "json":
        header = {"puzzle": plan.puzzle, "sizes": sizes, "start": str(plan.start), "goal": str(plan.goal)}
        header |= {"length": plan.length, "optimal": plan.optimal, "note": plan.note, "method": plan.method}
        print(json.dumps(header))
    state = plan.start
    width = len(str(hi))
    for k, move in enumerate(islice(plan, hi), start=1):
        top = state.top(move.src)
        state = state.apply(move)
        if k <= lo or top is None:
            continue
        src, dst, colour = PEG_LETTERS[move.src], PEG_LETTERS[move.dst], COLOUR_NAMES[top[1]]
        if args.format == "plain":
            print(f"{move.disk}{colour[0]} {src} {dst}")
        elif args.format == "json":
            print(json.dumps({"k": k, "size": move.disk, "colour": colour, "from": src, "to": dst}))
        else:
            print(f"  {k:>{width}}  size {move.disk} {colour:<5}  {src} -> {dst}")
    return 0
