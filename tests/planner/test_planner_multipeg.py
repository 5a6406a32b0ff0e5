"""Plans between regular states on 4+ pegs beyond exact search: valid, never better than the optimum.

Oracle: exact search on small boards; replay through the puzzle model.
"""

from __future__ import annotations

from hanoibot.planner.general.multipeg import multipeg_plan
from hanoibot.planner.general.search import shortest_path
from hanoibot.puzzle import Rules, State
from hypothesis import given, settings
from hypothesis import strategies as st
from planner_checks import boards, replay


@settings(max_examples=40)
@given(st.data(), st.integers(1, 5), st.integers(4, 5))
def test_valid_and_not_better_than_search(data: st.DataObject, n: int, pegs: int) -> None:
    rules = Rules(pegs)
    start, goal = data.draw(boards(n, pegs, regular=True)), data.draw(boards(n, pegs, regular=True))
    plan = multipeg_plan(start, goal, rules)
    assert replay(plan) == goal
    assert plan.length >= shortest_path(start, [goal], rules).length
    assert plan.optimal is False


def test_nearest_tower_and_large_boards() -> None:
    rules = Rules(4)
    plan = multipeg_plan(State.parse("ADDD", pegs=4), None, rules)
    assert (plan.goal, plan.length) == (State.tower(4, 3, 4), 1)
    big = State.from_pegs([k % 4 for k in range(30)], 4)
    plan = multipeg_plan(big, State.tower(30, 2, 4), rules)
    assert plan.length > 0
    state = big
    for move in plan.moves_from(0):
        state = state.apply(move, rules)
    assert state == State.tower(30, 2, 4)
