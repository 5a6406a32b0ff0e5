"""Optimal plans between any two regular 3-peg states (Hinz), and their O(n) counts.

Oracle: the exact search engine — a full breadth-first sweep from every state gives all ordered pairs for
n <= 5; plans are replayed through the puzzle model. Tower-to-tower lengths are checked against 2**n - 1
(OEIS A000225).
"""

from __future__ import annotations

import itertools

import pytest
from hanoibot.planner.general.regular3 import (
    candidate_lengths,
    count_regular3,
    count_to_nearest_tower,
    nearest_tower_plan,
    regular3_plan,
)
from hanoibot.planner.general.search import RegularCodec, distances_from
from hanoibot.puzzle import Rules, State
from hypothesis import given, settings
from hypothesis import strategies as st
from planner_checks import boards, replay

RULES = Rules(3)


@pytest.mark.parametrize("n", range(1, 6))
def test_counts_equal_search_for_all_ordered_pairs(n: int) -> None:
    codec = RegularCodec(n, RULES)
    states = [State.from_pegs(where) for where in itertools.product(range(3), repeat=n)]
    for start in states:
        distance = distances_from(start, RULES)
        for goal in states:
            assert count_regular3(start, goal) == distance[codec.encode(goal)]


@pytest.mark.parametrize("n", range(1, 4))
def test_plans_replay_for_all_ordered_pairs(n: int) -> None:
    states = [State.from_pegs(where) for where in itertools.product(range(3), repeat=n)]
    for start, goal in itertools.product(states, states):
        plan = regular3_plan(start, goal, RULES)
        for each in plan.all_optimal():
            assert replay(each) == goal
            assert each.length == plan.length == count_regular3(start, goal)


@settings(max_examples=40)
@given(st.data(), st.integers(6, 8))
def test_random_pairs_up_to_eight_disks(data: st.DataObject, n: int) -> None:
    start, goal = data.draw(boards(n, 3, regular=True)), data.draw(boards(n, 3, regular=True))
    plan = regular3_plan(start, goal, RULES)
    assert replay(plan) == goal
    assert plan.length == distances_from(start, RULES)[RegularCodec(n, RULES).encode(goal)]
    k = data.draw(st.integers(0, plan.length))
    replayed = start
    for move in list(plan)[:k]:
        replayed = replayed.apply(move)
    assert plan.state_at(k) == replayed


def test_ties_give_two_different_optimal_plans() -> None:
    # AB -> BA: disk 2 moves once (3 moves) or twice (3 moves).
    plan = regular3_plan(State.parse("AB"), State.parse("BA"), RULES)
    first, second = plan.all_optimal()
    assert first.length == second.length == 3
    assert list(first) != list(second)
    once, twice = candidate_lengths((0, 1), (1, 0))
    assert once == twice == 3


def test_towers_and_large_counts() -> None:
    assert count_regular3(State.tower(30), State.tower(30, 2)) == 2**30 - 1
    n = 100_000
    start, goal = State.tower(n), State.tower(n, 1)
    assert count_regular3(start, goal) == 2**n - 1
    almost = State.from_pegs([1] * (n - 1) + [0])
    # Disk n alone is off: gather the others on C (2**(n-1) - 1), move it, bring them back.
    assert count_regular3(almost, goal) == 2 ** (n - 1) + 2 ** (n - 1) - 1


def test_nearest_tower() -> None:
    start = State.parse("ABB")
    assert count_to_nearest_tower(start) == (1, 1)
    plan = nearest_tower_plan(start, RULES)
    assert (plan.goal, plan.length, plan.optimal) == (State.tower(3, 1), 1, True)
    assert replay(plan) == plan.goal
