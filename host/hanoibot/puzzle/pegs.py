"""Peg names: pegs are numbered 0, 1, 2, … internally and lettered A, B, C, … for people."""

from __future__ import annotations

from ..errors import StateError

MIN_PEGS = 3
MAX_PEGS = 26
PEG_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def peg_letter(peg: int) -> str:
    """The letter of peg number ``peg`` (0 -> 'A')."""
    return PEG_LETTERS[peg]


def peg_index(letter: str, pegs: int = MAX_PEGS) -> int:
    """The number of the peg called ``letter`` (case-insensitive); a letter past the last peg is an error."""
    index = PEG_LETTERS.find(letter.upper()) if len(letter) == 1 else -1
    if index < 0 or index >= pegs:
        raise StateError(f"unknown peg {letter!r}: expected one of {PEG_LETTERS[:pegs]}")
    return index


def check_peg_count(pegs: int) -> int:
    """Return ``pegs`` if it is a supported peg count (3 to 26), else raise."""
    if not MIN_PEGS <= pegs <= MAX_PEGS:
        raise StateError(f"peg count {pegs} is not supported: expected {MIN_PEGS} to {MAX_PEGS}")
    return pegs
