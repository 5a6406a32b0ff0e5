"""Shuffled towers: any board, irregular stacks included, to a perfect tower under classic rules.

Every plan is replayed move by move through the puzzle model (the size rule is checked against the disk each
move lands on). Oracle for quality: exact search, which the strategy can never beat.
"""

from __future__ import annotations

import pytest
from hanoibot.errors import PlanError
from hanoibot.planner.general.search import shortest_path
from hanoibot.planner.general.shuffled import SHUFFLED_MAX_DISKS, shuffled_plan, shuffled_run
from hanoibot.puzzle import Rules, State
from hypothesis import given, settings
from hypothesis import strategies as st
from planner_checks import boards, replay


@settings(max_examples=60)
@given(st.data(), st.integers(1, 12), st.integers(3, 5))
def test_every_plan_replays_to_the_requested_tower(data: st.DataObject, n: int, pegs: int) -> None:
    start = data.draw(boards(n, pegs, regular=False))
    target = data.draw(st.integers(0, pegs - 1))
    plan = shuffled_plan(start, target, Rules(pegs))
    assert replay(plan) == State.tower(n, target, pegs)
    assert plan.optimal is False and "not proven optimal" in plan.note


@settings(max_examples=30)
@given(st.data(), st.integers(1, 5))
def test_never_shorter_than_the_optimum_and_nearest_tower_is_nearest(data: st.DataObject, n: int) -> None:
    start = data.draw(boards(n, 3, regular=False))
    plan = shuffled_plan(start, None, Rules(3))
    towers = [State.tower(n, peg) for peg in range(3)]
    assert plan.length >= shortest_path(start, towers, Rules(3)).length
    assert plan.length == min(shuffled_run(start, peg).length for peg in range(3))
    assert replay(plan) == plan.goal


def test_the_example_board_and_random_access() -> None:
    start = State.parse("A:3,1,2/B:4/C:")
    plan = shuffled_plan(start, 2, Rules(3))
    moves = list(plan)
    assert [plan.move_at(k) for k in range(plan.length)] == moves
    assert plan.state_at(len(moves)) == State.tower(4, 2)


def test_large_boards_plan_quickly_and_lazily() -> None:
    order = list(range(40, 0, -1))
    order[10], order[30] = order[30], order[10]  # two disks out of place, deep in the stack
    plan = shuffled_plan(State([order, [], []]), 1, Rules(3))
    # Disk 40 must leave A for B with the 39 others on C, and they must all follow onto it.
    assert plan.length >= 40
    assert plan.move_at(0) == next(iter(plan))
    last = plan.move_at(plan.length - 1)
    assert (last.disk, last.dst) == (1, 1)


def test_restricted_rules_and_huge_boards_are_refused_with_advice() -> None:
    with pytest.raises(PlanError, match="classic rules only"):
        shuffled_plan(State.parse("A:1,2/B:/C:"), 2, Rules.named("linear"))
    huge = State([[1, *range(SHUFFLED_MAX_DISKS + 1, 1, -1)], [], []])
    with pytest.raises(PlanError, match=f"{SHUFFLED_MAX_DISKS + 1} disks is too large"):
        shuffled_plan(huge, 2, Rules(3))
