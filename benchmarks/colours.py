"""Coloured towers benchmark, by hand: ``.venv/bin/python benchmarks/colours.py [--largest]``.

(a) The exact search (hanoibot.planner.colour_search, through ColourPlan) against a plain breadth-first search
    written here (a state is a tuple of pegs of (size, colour), bottom first; no tricks), both in this process, on
    the puzzles where the plain search finishes in seconds: CPU time of each, boards the plain search visited and
    distances the exact search held, the ratio of times, and both optima (they must agree).
(b) The exact search alone where the plain search would take minutes or more: bicolor up to 10 sizes (11 with
    ``--largest``), tricolor up to 5: CPU time, distances held, the optimum, the construction's length and its
    excess over the optimum; every plan is replayed move by move and must reach the goal.
(c) Beyond the exact search: the level-by-level construction, the proven lower bound (the same puzzle with the
    smallest sizes taken as one colour) and the gap between them, with the CPU time of the bound.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from hanoibot.planner import colours as colour_planner
from hanoibot.planner.colour_search import ColourSearch
from hanoibot.planner.colours import ColourPlan, level_length, lower_bound
from hanoibot.puzzle.colours import ColourState, start_and_goal

Stacks = tuple[tuple[tuple[int, int], ...], ...]
PLAIN = [("bicolor", 3), ("bicolor", 4), ("bicolor", 5), ("tricolor", 2), ("tricolor", 3)]
EXACT = [("bicolor", 6), ("bicolor", 7), ("bicolor", 8), ("bicolor", 9), ("bicolor", 10), ("tricolor", 4)]
EXACT += [("tricolor", 5)]
BEYOND = [("bicolor", 12), ("bicolor", 16), ("bicolor", 24), ("tricolor", 6), ("tricolor", 8), ("tricolor", 12)]


def plain_bfs(start: Stacks, goal: Stacks) -> tuple[int, int]:
    """(optimum, boards visited) by breadth-first search over plain stacks."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            return dist[here], len(dist)
        for src, dst in itertools.permutations(range(3), 2):
            if here[src] and (not here[dst] or here[dst][-1][0] >= here[src][-1][0]):
                pegs = list(here)
                pegs[dst] = (*pegs[dst], pegs[src][-1])
                pegs[src] = pegs[src][:-1]
                there = tuple(pegs)
                if there not in dist:
                    dist[there] = dist[here] + 1
                    queue.append(there)
    raise AssertionError("goal not reached")


def as_stacks(state: ColourState) -> Stacks:
    return tuple(tuple(state.stack(p)) for p in range(3))


def exact(puzzle: str, sizes: int) -> tuple[int, int, float]:
    """(optimum, distances held, CPU s) of the exact search from cold caches, its plan replayed."""
    colour_planner._search.cache_clear()
    begin = time.process_time()
    plan = ColourPlan(puzzle, sizes)
    moves = list(plan)
    seconds = time.process_time() - begin
    assert plan.optimal and len(moves) == plan.length
    state = plan.start
    for move in moves:
        state = state.apply(move)
    assert state == plan.goal
    colours = tuple(tuple(sorted(c for peg in level for c in peg)) for level in plan.start.levels)
    return plan.length, colour_planner._search(colours).entries, seconds


def main(largest: bool) -> None:
    ColourSearch.forget_boards = lambda self: None  # keep what the search held of the boards, to count it
    print("(a) exact search against a plain breadth-first search, same process")
    header = f"{'puzzle':>9} {'n':>3} {'optimum':>8} {'BFS s':>8} {'BFS boards':>11} {'exact s':>8} {'held':>8}"
    print(f"{header} {'ratio':>7}")
    for puzzle, sizes in PLAIN:
        start, goal = start_and_goal(puzzle, sizes)
        begin = time.process_time()
        best, boards = plain_bfs(as_stacks(start), as_stacks(goal))
        bfs_s = time.process_time() - begin
        length, held, exact_s = exact(puzzle, sizes)
        assert length == best, (puzzle, sizes, length, best)
        print(
            f"{puzzle:>9} {sizes:>3} {best:>8} {bfs_s:>8.3f} {boards:>11} {exact_s:>8.3f} {held:>8} "
            f"{bfs_s / exact_s:>6.1f}x"
        )
    print("(b) exact search alone (the plain search would take minutes or more)")
    print(f"{'puzzle':>9} {'n':>3} {'optimum':>8} {'exact s':>8} {'held':>8} {'construction':>13} {'excess':>7}")
    for puzzle, sizes in EXACT + ([("bicolor", 11)] if largest else []):
        if sizes > colour_planner.EXACT_SIZES[2 if puzzle == "bicolor" else 3]:
            colour_planner.EXACT_SIZES[2] = sizes  # --largest: past the planner's own limit
        length, held, exact_s = exact(puzzle, sizes)
        built = level_length(*start_and_goal(puzzle, sizes))
        print(
            f"{puzzle:>9} {sizes:>3} {length:>8} {exact_s:>8.2f} {held:>8} {built:>13} "
            f"{100 * (built - length) / length:>6.1f}%"
        )
    print("(c) beyond: the construction and the proven lower bound")
    print(f"{'puzzle':>9} {'n':>3} {'construction':>13} {'lower bound':>12} {'gap':>7} {'bound s':>8}")
    for puzzle, sizes in BEYOND:
        start, goal = start_and_goal(puzzle, sizes)
        colour_planner._search.cache_clear()
        begin = time.process_time()
        bound = lower_bound(start, goal)
        bound_s = time.process_time() - begin
        built = level_length(start, goal)
        print(f"{puzzle:>9} {sizes:>3} {built:>13} {bound:>12} {100 * (built - bound) / bound:>6.2f}% {bound_s:>8.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--largest", action="store_true", help="also bicolor with 11 sizes (about a minute)")
    main(parser.parse_args().largest)
