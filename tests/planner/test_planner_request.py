"""PlanRequest: one frozen, validated request that every planner entry takes."""

from __future__ import annotations

import pytest
from hanoibot.errors import PlanError, StateError
from hanoibot.planner import PlanRequest, count_for, count_moves, make_plan, plan_for
from hanoibot.planner.request import tower_peg
from hanoibot.puzzle import Rules, State


def test_a_request_is_frozen_and_fills_in_the_classic_rules_for_its_pegs() -> None:
    request = PlanRequest(3, pegs=5)
    assert request.rules == Rules(5)
    with pytest.raises(AttributeError, match="immutable"):
        request.n_disks = 4  # type: ignore[misc]


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ({"n_disks": 0}, StateError, "disk count 0"),
        ({"n_disks": True}, StateError, "disk count True"),
        ({"n_disks": 3, "pegs": 2}, StateError, "peg count 2"),
        ({"n_disks": 3, "max_states": 0}, PlanError, "state limit 0"),
        ({"n_disks": 3, "pegs": 4, "rules": Rules(3)}, PlanError, "made for 3 pegs, not 4"),
        ({"n_disks": 3, "start": State.tower(2)}, StateError, "has 2 disks but 3 were asked for"),
        ({"n_disks": 2, "goal": State.tower(2, 0, 4)}, StateError, "has 4 pegs but the board has 3"),
        ({"n_disks": 2, "goal": State.tower(2, 1), "goal_any": True}, PlanError, "not both"),
    ],
)
def test_a_bad_request_is_refused_when_made(fields: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        PlanRequest(**fields)  # type: ignore[arg-type]


def test_default_towers_are_not_built_for_a_huge_request() -> None:
    request = PlanRequest(10**6, pegs=4)
    assert request.towers() == (0, 3) and request.regular
    assert "start_state" not in vars(request) and "goal_state" not in vars(request)


@pytest.mark.parametrize(
    ("text", "peg"), [("AAA", 0), ("CCC", 2), ("A:1,2,3/B:/C:", None), ("A:3,1,2/B:/C:", None), ("AAB", None)]
)
def test_tower_peg_names_the_peg_of_a_perfect_tower_only(text: str, peg: int | None) -> None:
    # Per-peg form lists bottom first: A:3,2,1 is the ordered tower, A:1,2,3 stands it on its head.
    state = State.parse(text)
    assert tower_peg(state) == peg
    assert tower_peg(State.parse("A:3,2,1/B:/C:")) == 0


def test_keyword_entries_build_the_same_request() -> None:
    request = PlanRequest(4, start=State.parse("ACAB"), goal=State.tower(4, 1))
    assert list(make_plan(4, start=State.parse("ACAB"), goal=State.tower(4, 1))) == list(plan_for(request))
    assert count_moves(4, start=State.parse("ACAB"), goal=State.tower(4, 1)) == count_for(request)
