"""Bulk DISK FROM TO text: identical to formatting each textbook move, for any range, with bounded blocks."""

from __future__ import annotations

import itertools

import pytest
from hanoibot.planner.classic import bulk
from hypothesis import given
from hypothesis import strategies as st


def textbook_lines(n: int, src: int, dst: int) -> list[str]:
    """``DISK FROM TO`` lines of the textbook recursion (independent oracle)."""
    if not n:
        return []
    aux = 3 - src - dst
    here = f"{n} {'ABC'[src]} {'ABC'[dst]}\n"
    return [*textbook_lines(n - 1, src, aux), here, *textbook_lines(n - 1, aux, dst)]


def text(n: int, src: int, dst: int, lo: int, hi: int) -> str:
    return b"".join(bytes(piece) for piece in bulk.plain_pieces(n, src, dst, lo, hi)).decode()


@pytest.mark.parametrize("block_disks", [1, 3, 16])
@given(n=st.integers(1, 11), pair=st.sampled_from(list(itertools.permutations(range(3), 2))), data=st.data())
def test_any_range_equals_the_formatted_moves(
    block_disks: int, n: int, pair: tuple[int, int], data: st.DataObject
) -> None:
    lines = textbook_lines(n, *pair)
    lo = data.draw(st.integers(0, len(lines)))
    hi = data.draw(st.integers(lo, len(lines)))
    saved = bulk.BLOCK_DISKS
    bulk.BLOCK_DISKS = block_disks
    try:
        assert text(n, *pair, lo, hi) == "".join(lines[lo:hi])
    finally:
        bulk.BLOCK_DISKS = saved


def test_two_digit_disks_and_byte_offsets() -> None:
    lines = textbook_lines(12, 0, 2)
    assert text(12, 0, 2, 2047, 2048) == "12 A C\n"
    for k in (0, 1, 1000, 2047, 4094):
        assert bulk.byte_offset(12, k) == sum(len(line) for line in lines[:k])


def test_large_tower_starts_anywhere_without_earlier_moves() -> None:
    n = 64
    lines = text(n, 0, 2, 10**19 - 1, 10**19 + 2).splitlines()
    assert len(lines) == 3
    # Published closed formula: move m from peg (m & m-1) % 3 to ((m | m-1) + 1) % 3; for even n it moves the
    # tower from peg 0 to peg 1, so its pegs 0, 1, 2 are our A, C, B here.
    frame = "ACB"
    for m, line in enumerate(lines, start=10**19):
        disk = (m & -m).bit_length()
        assert line == f"{disk} {frame[(m & (m - 1)) % 3]} {frame[((m | (m - 1)) + 1) % 3]}"


def test_blocks_are_bounded_whatever_n_is() -> None:
    pieces = bulk.plain_pieces(40, 0, 2, 0, 2**40 - 1)
    biggest = max(len(next(pieces)) for _ in range(50))
    assert biggest <= 7 * 2**bulk.BLOCK_DISKS
