"""Every optimal plan: checked against a brute-force walk over every legal move sequence of the optimal length."""

from __future__ import annotations

import pytest
from hanoibot.errors import IllegalMove, PlanError
from hanoibot.planner import make_plan
from hanoibot.planner.all_optimal import all_optimal_plans
from hanoibot.puzzle import Move, Rules, State


def brute_force(start: State, goal: State, rules: Rules, length: int) -> set[tuple[Move, ...]]:
    """Every legal sequence of ``length`` moves from ``start`` that ends at ``goal`` (independent of the search)."""
    found: set[tuple[Move, ...]] = set()

    def walk(state: State, moves: tuple[Move, ...]) -> None:
        if len(moves) == length:
            if state == goal:
                found.add(moves)
            return
        for src in range(rules.pegs):
            if not state.stacks[src]:
                continue
            for dst in range(rules.pegs):
                move = Move(state.stacks[src][-1], src, dst)
                try:
                    after = state.apply(move, rules)
                except IllegalMove:
                    continue
                walk(after, (*moves, move))

    walk(start, ())
    return found


def shortest_brute_force(start: State, goal: State, rules: Rules) -> set[tuple[Move, ...]]:
    length = 0
    while not (found := brute_force(start, goal, rules, length)):
        length += 1
    return found


@pytest.mark.parametrize(
    ("pegs", "rules", "start", "goal"),
    [
        (4, "linear", "BB", "CC"),
        (4, "classic", "AAA", "DDD"),
        (3, "big-on-top", "AAA", "CCC"),
        (3, "cyclic", "AA", "CC"),
        (4, "classic", "A:1,2/B:/C:/D:", "DD"),
    ],
)
def test_every_optimal_plan_and_no_other(pegs: int, rules: str, start: str, goal: str) -> None:
    the_rules = Rules.named(rules, pegs)
    start_state, goal_state = State.parse(start, pegs=pegs), State.parse(goal, pegs=pegs)
    plan = make_plan(start_state.n_disks, pegs=pegs, rules=the_rules, start=start_state, goal=goal_state)
    plans = all_optimal_plans(plan, max_states=10_000)
    assert {tuple(each) for each in plans} == shortest_brute_force(start_state, goal_state, the_rules)
    assert len(plans) == len({tuple(each) for each in plans})
    assert tuple(plans[0]) == tuple(plan), "the planner's own plan comes first"


def test_the_classic_transfer_is_unique() -> None:
    plan = make_plan(10)
    assert all_optimal_plans(plan, max_states=1) == (plan,)


def test_past_the_state_limit_it_refuses_with_a_line_saying_so() -> None:
    plan = make_plan(8, pegs=4)
    with pytest.raises(PlanError, match="--all-optimal needs an exact sweep of more than 100 states"):
        all_optimal_plans(plan, max_states=100)


def test_too_many_plans_are_refused_with_their_number() -> None:
    plan = make_plan(4, pegs=4)
    with pytest.raises(PlanError, match=r"there are \d+ optimal plans, more than the 3 printed at once"):
        all_optimal_plans(plan, max_states=10_000, max_plans=3)
