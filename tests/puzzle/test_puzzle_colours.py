"""Coloured boards: spelling, the two puzzles' starts and goals, moves onto equal sizes, bad boards refused."""

from __future__ import annotations

import pytest
from hanoibot.errors import IllegalMove, StateError
from hanoibot.puzzle import Move
from hanoibot.puzzle.colours import ColourState, start_and_goal


def test_bicolor_start_alternates_and_goal_is_monochrome_with_the_bottoms_kept() -> None:
    start, goal = start_and_goal("bicolor", 4)
    assert str(start) == "A:4r,3g,2r,1g/B:4g,3r,2g,1r/C:"
    assert str(goal) == "A:4r,3r,2r,1r/B:4g,3g,2g,1g/C:"


def test_tricolor_goal_is_a_derangement() -> None:
    start, goal = start_and_goal("tricolor", 2)
    assert str(start) == "A:2r,1r/B:2g,1g/C:2b,1b"
    assert str(goal) == "A:2b,1b/B:2r,1r/C:2g,1g"


def test_spelling_round_trips_and_equal_sizes_stack() -> None:
    state = ColourState.parse("A:2r,2g,1b/B:1r/C:")
    assert str(state) == "A:2r,2g,1b/B:1r/C:" and state.top(0) == (1, 2)
    after = state.apply(Move(1, 1, 0))  # size 1 onto size 1: allowed
    assert after.stack(0) == [(2, 0), (2, 1), (1, 2), (1, 0)]


def test_a_disk_may_not_go_onto_a_smaller_one() -> None:
    state = ColourState.parse("A:2r/B:1g/C:")
    with pytest.raises(IllegalMove, match="smaller disk"):
        state.apply(Move(2, 0, 1))
    with pytest.raises(IllegalMove, match="no disk of size 2 on top of peg B"):
        state.apply(Move(2, 1, 0))


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("A:1r,2g/B:/C:", "disk 2 stands on smaller disk 1"),
        ("A:2x/B:1r/C:", "bad disk '2x'"),
        ("A:2r/B:1r/D:", "unknown peg 'D'"),
        ("A2r/B:/C:", "bad peg entry 'A2r'"),
    ],
)
def test_impossible_boards_are_refused_naming_the_value(text: str, named: str) -> None:
    with pytest.raises(StateError, match=named):
        ColourState.parse(text)


def test_unknown_puzzle_is_refused() -> None:
    with pytest.raises(StateError, match="unknown puzzle 'quad'"):
        start_and_goal("quad", 2)
