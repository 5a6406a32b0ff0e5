"""Tests for the run glue: plan specs in the journal, the report, and deciding where a resume goes on."""

from __future__ import annotations

import json

import pytest
from hanoibot.errors import JournalError
from hanoibot.planner import make_plan
from hanoibot.puzzle import State
from hanoibot.run.runner import RunReport, plan_from_spec, plan_spec


@pytest.mark.parametrize(
    ("n", "pegs", "start", "goal"),
    [(3, 3, None, None), (5, 4, None, None), (4, 3, "ACAB", "CCCC"), (3, 3, "A:3,1/B:2/C:", "BBB")],
)
def test_a_plan_is_rebuilt_from_its_spec(n: int, pegs: int, start: str | None, goal: str | None) -> None:
    plan = make_plan(
        n,
        pegs=pegs,
        start=State.parse(start, pegs) if start else None,
        goal=State.parse(goal, pegs) if goal else None,
    )
    spec = json.loads(json.dumps(plan_spec(plan)))  # as it comes back from the journal
    again = plan_from_spec(spec)
    assert (again.start, again.goal, again.rules, again.length) == (plan.start, plan.goal, plan.rules, plan.length)
    assert list(again) == list(plan)


def test_a_spec_the_planner_no_longer_agrees_with_is_refused() -> None:
    spec = plan_spec(make_plan(3)) | {"length": 8}
    with pytest.raises(JournalError, match="8 moves but the planner now makes 7"):
        plan_from_spec(spec)
    with pytest.raises(JournalError, match="lacks 'goal'"):
        plan_from_spec({k: v for k, v in plan_spec(make_plan(3)).items() if k != "goal"})


def test_the_report_is_one_json_object_with_every_field() -> None:
    report = RunReport("done", 7, 7, "AAA", "CCC", 0.1, 16.6, 0.0, 2.37, 3, [])
    assert json.loads(report.to_json()) == {
        "status": "done",
        "moves_done": 7,
        "moves_total": 7,
        "start": "AAA",
        "final": "CCC",
        "wall_s": 0.1,
        "simulated_s": 16.6,
        "paused_s": 0.0,
        "s_per_move": 2.37,
        "retransmits": 3,
        "faults": [],
        "colours": None,
        "frame_trace": [],
    }
