"""Coloured towers: the exact search against an independent search written here, and the level-by-level
construction legal move by move, reaching its goal, counted exactly, never shorter than the optimum nor than the
lower bound it is printed with."""

from __future__ import annotations

import itertools
from collections import deque

import pytest
from hanoibot.planner.colour_search import ColourSearch
from hanoibot.planner.colours import ColourPlan, level_length, level_moves, lower_bound, shortest_moves
from hanoibot.puzzle import Move
from hanoibot.puzzle.colours import ColourState, start_and_goal
from hypothesis import given, settings
from hypothesis import strategies as st

Stacks = tuple[tuple[tuple[int, int], ...], ...]


def as_stacks(state: ColourState) -> Stacks:
    return tuple(tuple(state.stack(p)) for p in range(3))


def independent_distance(start: Stacks, goal: Stacks) -> int:
    """BFS over plain stacks of (size, colour), bottom first: an equal or larger disk below every disk."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            return dist[here]
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


def replay(start: ColourState, moves: list[Move]) -> ColourState:
    state = start
    for move in moves:
        state = state.apply(move)  # raises on an illegal move
    return state


@pytest.mark.parametrize(
    ("puzzle", "sizes"),
    [
        ("bicolor", 2),
        ("bicolor", 3),
        ("bicolor", 4),
        ("tricolor", 1),
        ("tricolor", 2),
        ("bicolor", 5),  # the independent search: 2 s on the loaded machine
        pytest.param("bicolor", 6, marks=pytest.mark.slow),  # 25 s
        pytest.param("tricolor", 3, marks=pytest.mark.slow),  # 216000 boards: 7 s
    ],
)
def test_exact_search_is_optimal_and_the_construction_is_legal_and_no_shorter(puzzle: str, sizes: int) -> None:
    start, goal = start_and_goal(puzzle, sizes)
    best = shortest_moves(start, goal)
    assert replay(start, best) == goal
    assert len(best) == independent_distance(as_stacks(start), as_stacks(goal))
    built = list(level_moves(start, goal))
    assert replay(start, built) == goal
    assert level_length(start, goal) == len(built) >= len(best)


@pytest.mark.parametrize("puzzle", ["bicolor", "tricolor"])
def test_construction_for_larger_n_reaches_the_goal_as_counted(puzzle: str) -> None:
    for sizes in range(1, 9):
        start, goal = start_and_goal(puzzle, sizes)
        built = list(level_moves(start, goal))
        assert replay(start, built) == goal and level_length(start, goal) == len(built)


@st.composite
def boards(draw: st.DrawFn, sizes: int, colours: int) -> ColourState:
    """Any board of ``sizes`` sizes with ``colours`` disks per size: each size's disks in any order on any pegs."""
    levels = []
    for _ in range(sizes):
        order = draw(st.permutations(range(colours)))
        cuts = sorted(draw(st.lists(st.integers(0, colours), min_size=2, max_size=2)))
        levels.append([tuple(order[: cuts[0]]), tuple(order[cuts[0] : cuts[1]]), tuple(order[cuts[1] :])])
    return ColourState(levels)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_construction_between_any_two_boards_is_legal_and_counted(data: st.DataObject) -> None:
    colours = data.draw(st.sampled_from([2, 3]))
    sizes = data.draw(st.integers(1, 4))
    start = data.draw(boards(sizes, colours))
    goal = data.draw(boards(sizes, colours))
    built = list(level_moves(start, goal))
    assert replay(start, built) == goal
    assert level_length(start, goal) == len(built)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_construction_is_never_shorter_than_the_exact_search_on_small_boards(data: st.DataObject) -> None:
    start = data.draw(boards(2, 2))
    goal = data.draw(boards(2, 2))
    assert (
        level_length(start, goal)
        >= len(shortest_moves(start, goal))
        == independent_distance(as_stacks(start), as_stacks(goal))
    )


@pytest.mark.parametrize("sizes", [1, 2])
def test_both_tricolor_derangements_need_as_many_moves(sizes: int) -> None:
    start, goal = start_and_goal("tricolor", sizes)
    other = ColourState([(level[2], level[0], level[1]) for level in goal.levels])  # red -> C, green -> A, blue -> B
    assert other != goal
    assert len(shortest_moves(start, other)) == len(shortest_moves(start, goal))


def all_boards(sizes: int, colours: int) -> list[ColourState]:
    """Every board of ``sizes`` sizes with ``colours`` disks per size (each size's disks in any order on any pegs)."""
    levels = {
        (order[:a], order[a:b], order[b:])
        for order in itertools.permutations(range(colours))
        for a in range(colours + 1)
        for b in range(a, colours + 1)
    }
    return [ColourState(chosen) for chosen in itertools.product(sorted(levels), repeat=sizes)]


def independent_distances_from(start: Stacks) -> dict[Stacks, int]:
    """Exact moves from ``start`` to every board it reaches (the independent search above, run to the end)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for src, dst in itertools.permutations(range(3), 2):
            if here[src] and (not here[dst] or here[dst][-1][0] >= here[src][-1][0]):
                pegs = list(here)
                pegs[dst] = (*pegs[dst], pegs[src][-1])
                pegs[src] = pegs[src][:-1]
                there = tuple(pegs)
                if there not in dist:
                    dist[there] = dist[here] + 1
                    queue.append(there)
    return dist


@pytest.mark.parametrize(("sizes", "colours", "boards_count"), [(1, 2, 12), (2, 2, 144), (1, 3, 60)])
def test_search_and_construction_on_every_pair_of_small_boards(sizes: int, colours: int, boards_count: int) -> None:
    """The exact search is optimal and the construction legal, counted and never shorter, from every board to
    every board small enough."""
    boards_all = all_boards(sizes, colours)
    assert len(boards_all) == boards_count  # 12 or 60 arrangements of one size's disks, per size
    stride = 1 if boards_count <= 60 else 16  # the exact search on every pair of 60, on one pair in 16 of 144
    for i, start in enumerate(boards_all):
        dist = independent_distances_from(as_stacks(start))
        assert len(dist) == boards_count  # every board is reachable from every other
        for j, goal in enumerate(boards_all):
            built = list(level_moves(start, goal))
            assert replay(start, built) == goal
            assert level_length(start, goal) == len(built) >= dist[as_stacks(goal)]
            if (i + j) % stride == 0:
                best = shortest_moves(start, goal)
                assert replay(start, best) == goal and len(best) == dist[as_stacks(goal)]


#: Optima found by the issue's own plain breadth-first search (a state a tuple of pegs of (size, colour); issue 23),
#: outside this project's code: bicolor 5 and 6, tricolor 3 and 4 (3 minutes there, too long for a test here).
ISSUE_BFS_OPTIMA = {("bicolor", 5): 67, ("bicolor", 6): 147, ("tricolor", 3): 62, ("tricolor", 4): 150}


@pytest.mark.parametrize(("puzzle", "sizes"), list(ISSUE_BFS_OPTIMA))
def test_exact_search_finds_the_optima_of_the_issues_breadth_first_search(puzzle: str, sizes: int) -> None:
    start, goal = start_and_goal(puzzle, sizes)
    plan = ColourPlan(puzzle, sizes)
    assert plan.optimal and plan.method == "search"
    best = list(plan)
    assert replay(start, best) == goal and len(best) == plan.length == ISSUE_BFS_OPTIMA[(puzzle, sizes)]


@pytest.mark.parametrize(("puzzle", "sizes"), [("bicolor", 8), ("tricolor", 4)])
def test_exact_search_plans_bicolor_8_and_tricolor_4_legally_and_no_longer_than_the_construction(
    puzzle: str, sizes: int
) -> None:
    start, goal = start_and_goal(puzzle, sizes)
    plan = ColourPlan(puzzle, sizes)
    best = list(plan)
    assert plan.optimal and replay(start, best) == goal and len(best) == plan.length
    assert plan.length <= level_length(start, goal)
    # the bound of a relaxed puzzle (the smallest sizes in one colour) never exceeds the optimum
    assert lower_bound(start, goal) <= plan.length


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_exact_search_between_any_two_boards_of_three_sizes_equals_the_independent_search(
    data: st.DataObject,
) -> None:
    colours = data.draw(st.sampled_from([2, 3]))
    sizes = 3 if colours == 2 else 2
    start = data.draw(boards(sizes, colours))
    goal = data.draw(boards(sizes, colours))
    best = shortest_moves(start, goal)
    assert replay(start, best) == goal
    assert len(best) == independent_distance(as_stacks(start), as_stacks(goal))


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_the_relaxed_bound_never_exceeds_the_independent_optimum(data: st.DataObject) -> None:
    colours = data.draw(st.sampled_from([2, 3]))
    sizes = 3 if colours == 2 else 2
    blind = data.draw(st.integers(0, sizes))
    start = data.draw(boards(sizes, colours))
    goal = data.draw(boards(sizes, colours))
    bound = ColourSearch([tuple(range(colours))] * sizes, blind=blind).distance(start, goal)
    assert bound <= independent_distance(as_stacks(start), as_stacks(goal))
    if blind == 0:
        assert bound == independent_distance(as_stacks(start), as_stacks(goal))


@pytest.mark.parametrize(("puzzle", "sizes"), [("bicolor", 14), ("tricolor", 7)])
def test_beyond_the_exact_search_the_construction_is_printed_with_its_gap_to_a_proven_bound(
    puzzle: str, sizes: int
) -> None:
    plan = ColourPlan(puzzle, sizes)
    start, goal = start_and_goal(puzzle, sizes)
    assert not plan.optimal and plan.method == "levels" and plan.length == level_length(start, goal)
    assert plan.lower_bound is not None and 0 < plan.lower_bound <= plan.length
    gap = plan.length - plan.lower_bound
    assert f"at least {plan.lower_bound} moves needed, gap {gap}" in plan.note
