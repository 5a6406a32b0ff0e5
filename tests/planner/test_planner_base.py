"""The generic defaults of Plan, exercised through a tiny plan that only knows ``move_at``."""

from __future__ import annotations

import pytest
from hanoibot.errors import PlanError
from hanoibot.planner.base import Plan
from hanoibot.puzzle import Move, Rules, State

SHUTTLE = [Move(1, 0, 1), Move(1, 1, 2), Move(1, 2, 0), Move(1, 0, 2)]


class ShuttlePlan(Plan):
    """One disk visiting B, C, A and then C: a valid but not optimal plan."""

    def __init__(self) -> None:
        super().__init__(State.tower(1), State.tower(1, 2), Rules(3), len(SHUTTLE), optimal=False, note="not optimal")

    def move_at(self, k: int) -> Move:
        return SHUTTLE[self.check_index(k)]


def test_iteration_and_moves_from_use_move_at() -> None:
    plan = ShuttlePlan()
    assert list(plan) == SHUTTLE
    assert list(plan.moves_from(2)) == SHUTTLE[2:]
    assert list(plan.moves_from(4)) == []
    with pytest.raises(PlanError, match="state index 5 is out of range"):
        plan.moves_from(5)


def test_state_at_replays() -> None:
    plan = ShuttlePlan()
    assert [plan.state_at(k).to_string() for k in range(5)] == ["A", "B", "C", "A", "C"]


def test_index_of_finds_the_first_visit_or_none() -> None:
    plan = ShuttlePlan()
    assert plan.index_of(State.tower(1, 0)) == 0
    assert plan.index_of(State.tower(1, 2)) == 2
    assert plan.index_of(State.tower(2)) is None


def test_all_optimal_defaults_to_the_plan_itself() -> None:
    plan = ShuttlePlan()
    assert plan.all_optimal() == (plan,)


def test_out_of_range_and_negative_lengths_are_plan_errors() -> None:
    plan = ShuttlePlan()
    with pytest.raises(PlanError, match="move index 4 is out of range: expected 0 to 3"):
        plan.move_at(4)
    with pytest.raises(PlanError, match="state index 5"):
        plan.state_at(5)
    with pytest.raises(PlanError, match="plan length -1 is negative"):
        Plan(State.tower(1), State.tower(1), Rules(3), -1)


def test_move_at_must_be_provided() -> None:
    with pytest.raises(NotImplementedError, match="Plan does not implement move_at"):
        Plan(State.tower(1), State.tower(1, 2), Rules(3), 1).move_at(0)


def test_empty_plan_iterates_nothing() -> None:
    plan = Plan(State.tower(2), State.tower(2), Rules(3), 0)
    assert list(plan) == []
    assert plan.state_at(0) == State.tower(2)
    assert plan.index_of(State.tower(2)) == 0
