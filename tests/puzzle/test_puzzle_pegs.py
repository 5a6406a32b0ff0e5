"""Peg letters and numbers."""

import re

import pytest
from hanoibot.errors import StateError
from hanoibot.puzzle import MAX_PEGS, MIN_PEGS, check_peg_count, peg_index, peg_letter


def test_letters_and_numbers_round_trip() -> None:
    for peg in range(MAX_PEGS):
        assert peg_index(peg_letter(peg)) == peg
        assert peg_index(peg_letter(peg).lower()) == peg
    assert peg_letter(0) == "A" and peg_letter(25) == "Z"


@pytest.mark.parametrize(("letter", "pegs"), [("D", 3), ("?", 26), ("AB", 26), ("", 3)])
def test_unknown_letters(letter: str, pegs: int) -> None:
    with pytest.raises(
        StateError, match=re.escape(f"unknown peg {letter!r}: expected one of {'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[:pegs]}")
    ):
        peg_index(letter, pegs)


def test_peg_counts() -> None:
    assert check_peg_count(MIN_PEGS) == 3 and check_peg_count(MAX_PEGS) == 26
    for bad in (2, 27):
        with pytest.raises(StateError, match=f"peg count {bad} is not supported: expected 3 to 26"):
            check_peg_count(bad)
