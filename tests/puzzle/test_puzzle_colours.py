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


@pytest.mark.parametrize(("puzzle", "sizes"), [("bicolor", 3), ("tricolor", 2), ("tricolor", 3)])
def test_numbered_disks_round_trip_and_are_numbered_size_first(puzzle: str, sizes: int) -> None:
    from hanoibot.puzzle.colours import COLOURS_PER_SIZE, colours_of, physical_state, size_and_colour

    per_size = COLOURS_PER_SIZE[puzzle]
    for state in start_and_goal(puzzle, sizes):
        board = physical_state(state, per_size)
        assert colours_of(board.stacks, per_size) == state
        for peg in range(3):
            assert [size_and_colour(d, per_size) for d in board.stacks[peg]] == state.stack(peg)
    # the bicolor start by hand: A holds 3 red (5), 2 green (4), 1 red (1); B 3 green (6), 2 red (3), 1 green (2)
    if puzzle == "bicolor":
        assert physical_state(start_and_goal(puzzle, sizes)[0], 2).stacks == ((5, 4, 1), (6, 3, 2), ())


def test_numbered_stacks_that_are_no_coloured_board_are_refused() -> None:
    from hanoibot.puzzle.colours import colour_words, colours_of

    with pytest.raises(StateError, match="disk 3 stands on smaller disk 1"):
        colours_of([[1, 3], [2, 4], []], 2)
    with pytest.raises(StateError, match="2 of each size"):
        colours_of([[3, 2, 1], [], []], 2)
    assert colour_words(colours_of([[4, 3], [2], [1]], 2)) == "A green red / B green / C red"
