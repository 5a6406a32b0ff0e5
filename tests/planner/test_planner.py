"""The planner entry points: make_plan / count_moves pick the classic plan or delegate, and check requests."""

from __future__ import annotations

import sys

import pytest
from hanoibot.errors import PlanError, StateError
from hanoibot.planner import ClassicPlan, PlanRequest, count_moves, make_plan
from hanoibot.puzzle import Rules, State


def test_defaults_are_the_classic_transfer_a_to_c() -> None:
    plan = make_plan(3)
    assert isinstance(plan, ClassicPlan)
    assert (plan.start, plan.goal, plan.length, plan.optimal) == (State.tower(3), State.tower(3, 2), 7, True)
    assert count_moves(3) == 7


def test_towers_on_any_pegs_and_methods() -> None:
    plan = make_plan(4, start=State.tower(4, 2), goal=State.tower(4, 1), rules=Rules(3), method="gray")
    assert isinstance(plan, ClassicPlan)
    assert (plan.src, plan.dst, plan.method) == (2, 1, "gray")
    assert count_moves(64) == 2**64 - 1


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: make_plan(0), StateError, "disk count 0 is not supported"),
        (lambda: count_moves(-2), StateError, "disk count -2"),
        (lambda: make_plan(3, start=State.parse("AA")), StateError, "start state AA has 2 disks but 3"),
        (
            lambda: make_plan(2, goal=State.tower(2, 1, pegs=4)),
            StateError,
            "goal state .* has 4 pegs but the board has 3",
        ),
        (lambda: make_plan(3, goal=State.tower(3)), PlanError, "source peg A is the target peg"),
        (lambda: count_moves(3, start=State.tower(3, 1), goal=State.tower(3, 1)), PlanError, "source peg B"),
        (
            lambda: make_plan(3, pegs=4, start=State.tower(3, 0, 4), method="bits"),
            PlanError,
            "method 'bits' applies only",
        ),
    ],
)
def test_bad_requests(call: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]


def test_other_requests_go_to_the_general_planner(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    class FakeGeneral:
        @staticmethod
        def make_general_plan(request: PlanRequest) -> str:
            calls.append(("plan", request))
            return "general plan"

        @staticmethod
        def count_general_moves(request: PlanRequest) -> int:
            calls.append(("count", request))
            return 42

    monkeypatch.setitem(sys.modules, "hanoibot.planner.general", FakeGeneral)
    start = State.parse("ACB")
    assert make_plan(3, start=start) == "general plan"
    assert count_moves(3, pegs=4, max_states=10) == 42
    assert make_plan(3, goal_any=True) == "general plan"
    assert make_plan(3, rules=Rules.named("cyclic")) == "general plan"
    assert calls[0] == ("plan", PlanRequest(3, 3, Rules(3), start, None, False, 2_000_000))
    assert calls[1] == ("count", PlanRequest(3, pegs=4, max_states=10))
