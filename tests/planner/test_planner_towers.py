"""Tower arithmetic against a replay of the textbook recursion and against the published closed bit formula."""

from __future__ import annotations

import itertools

from hanoibot.planner.classic import towers
from hypothesis import given
from hypothesis import strategies as st


def textbook(n: int, src: int, dst: int) -> list[tuple[int, int, int]]:
    """The textbook recursion as (disk, from, to) triples (independent oracle)."""
    if not n:
        return []
    aux = 3 - src - dst
    return [*textbook(n - 1, src, aux), (n, src, dst), *textbook(n - 1, aux, dst)]


PAIRS = st.sampled_from(list(itertools.permutations(range(3), 2)))


@given(n=st.integers(1, 10), pair=PAIRS, data=st.data())
def test_move_and_pegs_agree_with_replay(n: int, pair: tuple[int, int], data: st.DataObject) -> None:
    moves = textbook(n, *pair)
    k = data.draw(st.integers(0, len(moves) - 1))
    assert towers.move_at(n, *pair, k) == moves[k]
    where = [pair[0]] * n
    for disk, _, to_peg in moves[:k]:
        where[disk - 1] = to_peg
    assert towers.pegs_after(n, *pair, k) == where
    assert towers.index_of(n, *pair, where) == k


@given(n=st.integers(1, 300).filter(lambda n: n % 2 == 1), data=st.data())
def test_move_at_matches_the_closed_bit_formula_for_large_odd_towers(n: int, data: st.DataObject) -> None:
    # Published formula: move m goes from peg (m & m-1) % 3 to ((m | m-1) + 1) % 3; odd n ends on peg 2.
    m = data.draw(st.integers(1, 2**n - 1))
    disk, src, dst = towers.move_at(n, 0, 2, m - 1)
    assert (src, dst) == ((m & (m - 1)) % 3, ((m | (m - 1)) + 1) % 3)
    assert disk == len(bin(m)) - len(bin(m).rstrip("0")) + 1


def test_ruler_sequence_of_moving_disks() -> None:
    # OEIS A001511: 1, 2, 1, 3, 1, 2, 1, 4, ...
    assert [towers.moving_disk(k) for k in range(15)] == [1, 2, 1, 3, 1, 2, 1, 4, 1, 2, 1, 3, 1, 2, 1]


def test_pieces_cover_any_range_in_order() -> None:
    expected = textbook(7, 0, 1)
    for lo, hi in [(0, 127), (5, 6), (63, 64), (10, 100), (126, 127), (40, 40)]:
        pieces = towers.tower_pieces(
            7, 0, 1, lo, hi, leaf_height=2, leaf=lambda h, s, d, a, b: textbook(h, s, d)[a:b], single=lambda *m: [m]
        )
        assert [m for piece in pieces for m in piece] == expected[lo:hi]


def test_pieces_of_a_huge_tower_start_in_linear_memory() -> None:
    # Each stacked sub-tower once carried its end index 2**h - 1: n numbers of up to n bits, O(n**2) bits in all
    # (25 MB at n = 20 000, 460 MB at n = 80 000). A linear stack of small tuples stays well under 5 MB.
    import tracemalloc

    n = 20_000
    tracemalloc.start()
    try:
        for hi in ((1 << n) - 1, 3):
            pieces = towers.tower_pieces(
                n, 0, 2, 0, hi, leaf_height=2, leaf=lambda h, s, d, a, b: (h, a, b), single=lambda *m: m
            )
            assert next(pieces) == (2, 0, 3)
        peak_bytes = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak_bytes < 5_000_000, peak_bytes


def test_pieces_cover_every_range_of_a_small_tower() -> None:
    expected = textbook(6, 2, 0)
    for lo in range(len(expected) + 1):
        for hi in range(lo, len(expected) + 1):
            pieces = towers.tower_pieces(
                6, 2, 0, lo, hi, leaf_height=1, leaf=lambda h, s, d, a, b: textbook(h, s, d)[a:b], single=lambda *m: [m]
            )
            assert [m for piece in pieces for m in piece] == expected[lo:hi], (lo, hi)
