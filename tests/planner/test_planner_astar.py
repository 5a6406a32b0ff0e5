"""A* from shuffled boards: optimal plans within the state limit, a proven lower bound beside the fallback plan.

Oracle: a textbook breadth-first search over :class:`State` objects (``legal_moves``/``apply``), written here and
sharing no code with the planner's search. "Strongly shuffled" boards are random deals of a random disk order
with at least a third of the neighbouring pairs upside down (a larger disk directly on a smaller one).
"""

from __future__ import annotations

import itertools
import random
import re
from collections import deque

import pytest
from hanoibot.planner import DEFAULT_MAX_STATES, make_plan
from hanoibot.planner.general.astar import shuffled_search
from hanoibot.planner.general.choose import SHUFFLED_SEARCH_MAX_DISKS
from hanoibot.planner.general.search import shortest_path
from hanoibot.puzzle import Rules, State
from planner_checks import replay


def strongly_shuffled(n_disks: int, pegs: int, rng: random.Random) -> State:
    """A random board with at least ``n_disks // 3`` larger-on-smaller neighbours."""
    while True:
        order = rng.sample(range(1, n_disks + 1), n_disks)
        cuts = sorted(rng.randint(0, n_disks) for _ in range(pegs - 1))
        bounds = [0, *cuts, n_disks]
        stacks = [order[bounds[i] : bounds[i + 1]] for i in range(pegs)]
        upside_down = sum(1 for stack in stacks for low, high in itertools.pairwise(stack) if high > low)
        if upside_down >= n_disks // 3:
            return State(stacks)


def bfs_length(start: State, goals: list[State]) -> int:
    """Fewest moves from ``start`` to any of ``goals`` (textbook BFS over State objects, classic rules)."""
    targets = set(goals)
    depth = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state in targets:
            return depth[state]
        for move in state.legal_moves():
            nxt = state.apply(move)
            if nxt not in depth:
                depth[nxt] = depth[state] + 1
                queue.append(nxt)
    raise AssertionError(f"no goal reachable from {start}")


@pytest.mark.parametrize("n_disks", [7, 8])
@pytest.mark.parametrize("seed", range(4))
def test_plan_length_equals_breadth_first_search(n_disks: int, seed: int) -> None:
    rng = random.Random(1000 * n_disks + seed)
    start = strongly_shuffled(n_disks, 3, rng)
    towers = [State.tower(n_disks, peg) for peg in range(3)]
    goals = {
        "tower on C": (State.tower(n_disks, 2), {}),
        "nearest tower": (None, {"goal_any": True}),
        "regular goal": (State.from_pegs([rng.randrange(3) for _ in range(n_disks)]), {}),
    }
    for name, (goal, extra) in goals.items():
        plan = make_plan(n_disks, start=start, goal=goal, **extra)
        expected = bfs_length(start, towers if goal is None else [goal])
        assert (name, plan.length, plan.optimal) == (name, expected, True)
        assert replay(plan) == plan.goal


@pytest.mark.parametrize("seed", range(3))
def test_four_pegs_plan_length_equals_breadth_first_search(seed: int) -> None:
    start = strongly_shuffled(6, 4, random.Random(seed))
    plan = make_plan(6, pegs=4, start=start, goal_any=True)
    assert plan.length == bfs_length(start, [State.tower(6, peg, 4) for peg in range(4)])
    assert plan.optimal is True and replay(plan) == plan.goal


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_twelve_strongly_shuffled_disks_are_proven_optimal_with_the_default_limit(seed: int) -> None:
    start = strongly_shuffled(12, 3, random.Random(seed))
    plan = make_plan(12, start=start, goal_any=True)
    oracle = shortest_path(start, [State.tower(12, peg) for peg in range(3)], Rules(3), max_states=10**7)
    assert (plan.optimal, plan.method, plan.length) == (True, "search", oracle.length)
    assert replay(plan) == plan.goal


def test_twelve_disks_within_the_default_limit() -> None:
    start = State.parse("A:10,12,7,6,3,2,5/B:11,8,4,9,1/C:")
    towers = [State.tower(12, peg) for peg in range(3)]
    found = shuffled_search(start, towers, Rules(3), max_states=DEFAULT_MAX_STATES)
    assert found.plan is not None and found.visited < DEFAULT_MAX_STATES
    assert found.plan.length == found.lower_bound
    assert replay(found.plan) in towers


@pytest.mark.parametrize("seed", range(6))
def test_stopped_search_states_a_true_lower_bound_beside_a_valid_plan(seed: int) -> None:
    start = strongly_shuffled(7, 3, random.Random(seed))
    plan = make_plan(7, start=start, goal=State.tower(7, 2), max_states=40)
    optimum = bfs_length(start, [State.tower(7, 2)])
    assert replay(plan) == State.tower(7, 2)
    if plan.optimal:
        assert plan.length == optimum
        return
    found = re.search(r"(\d+) moves, at least (\d+) needed", plan.note)
    assert found is not None, plan.note
    assert int(found[1]) == plan.length and int(found[2]) <= optimum <= plan.length


def test_too_many_disks_for_search_get_the_strategy_and_the_heuristic_bound() -> None:
    n = SHUFFLED_SEARCH_MAX_DISKS + 6
    start = State([[1, *range(n, 1, -1)], [], []])
    plan = make_plan(n, start=start)
    assert plan.optimal is False and plan.goal == State.tower(n, 2)
    # The tower of disks 2..n must leave disk 1 (2**(n-1) - 1 moves) and disk 1 must move: 2**(n-1) at least.
    found = re.search(r"at least (\d+) needed \(exact search is tried up to", plan.note)
    assert found is not None and int(found[1]) == 2 ** (n - 1) <= plan.length
