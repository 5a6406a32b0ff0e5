"""Coloured puzzles over numbered disks (what the arm plays): legal move by move under the plan's rules, ending
on the goal, as long as the exact search's optimum, and replanned from any board."""

from __future__ import annotations

import pytest
from hanoibot.planner.colour_run import ColourRunPlan
from hanoibot.planner.colours import shortest_moves
from hanoibot.puzzle import State
from hanoibot.puzzle.colours import colours_of, start_and_goal
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.mark.parametrize(("puzzle", "sizes"), [("bicolor", 2), ("bicolor", 3), ("tricolor", 2), ("bicolor", 5)])
def test_every_move_is_legal_on_the_numbered_board_and_the_plan_ends_on_the_goal(puzzle: str, sizes: int) -> None:
    plan = ColourRunPlan(puzzle, sizes)
    start, goal = start_and_goal(puzzle, sizes)
    state = plan.start
    assert colours_of(state.stacks, plan.per_size) == start
    count = 0
    for move in plan:
        assert state.top(move.src) == move.disk
        state = state.apply(move, plan.rules)  # raises IllegalMove for a disk on a smaller one
        count += 1
    assert count == plan.length and state == plan.goal
    assert colours_of(state.stacks, plan.per_size) == goal
    assert plan.state_at(plan.length) == plan.goal and plan.move_at(plan.length - 1) == list(plan)[-1]


@pytest.mark.parametrize(("puzzle", "sizes"), [("bicolor", 3), ("tricolor", 2)])
def test_the_small_puzzles_are_played_in_the_fewest_moves(puzzle: str, sizes: int) -> None:
    start, goal = start_and_goal(puzzle, sizes)
    plan = ColourRunPlan(puzzle, sizes)
    assert plan.optimal and plan.length == len(shortest_moves(start, goal))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 22))
def test_a_replan_from_a_board_on_the_way_reaches_the_goal_in_the_fewest_moves(k: int) -> None:
    plan = ColourRunPlan("tricolor", 2)
    board = plan.state_at(k)
    replanned = plan.replan_from(board)
    assert replanned.start == board and replanned.goal == plan.goal
    assert replanned.length == plan.length - k  # the rest of an optimal plan is optimal from there
    state = board
    for move in replanned:
        state = state.apply(move, replanned.rules)
    assert state == plan.goal


def test_a_replan_refuses_a_board_of_another_size() -> None:
    from hanoibot.errors import PlanError

    with pytest.raises(PlanError, match="expected 6 on 3"):
        ColourRunPlan("bicolor", 3).replan_from(State.tower(4))
