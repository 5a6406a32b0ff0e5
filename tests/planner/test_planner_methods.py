"""The four generator methods, including the recursive method's unfolding above its memoised blocks."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import pytest
from hanoibot.planner.classic import methods
from hanoibot.puzzle import Move
from hypothesis import given
from hypothesis import strategies as st

GENERATORS = [methods.recursive_moves, methods.iterative_moves, methods.gray_moves, methods.bits_moves]


def textbook(n: int, src: int, dst: int) -> list[Move]:
    """The textbook recursion (independent oracle)."""
    if not n:
        return []
    aux = 3 - src - dst
    return [*textbook(n - 1, src, aux), Move(n, src, dst), *textbook(n - 1, aux, dst)]


@pytest.mark.parametrize("block_disks", [0, 1, 2, 3])
@given(n=st.integers(1, 9), pair=st.sampled_from(list(itertools.permutations(range(3), 2))), data=st.data())
def test_recursive_unfolding_above_small_blocks_matches_textbook(
    block_disks: int, n: int, pair: tuple[int, int], data: st.DataObject
) -> None:
    expected = textbook(n, *pair)
    k = data.draw(st.integers(0, len(expected) - 1))
    saved = methods.BLOCK_DISKS
    methods.BLOCK_DISKS = block_disks
    try:
        assert list(methods.recursive_moves(n, *pair, k)) == expected[k:]
    finally:
        methods.BLOCK_DISKS = saved


@pytest.mark.parametrize("generator", GENERATORS)
def test_generators_reuse_move_objects(generator: Callable[..., Iterator[Move]]) -> None:
    moves = list(generator(6, 0, 2, 0))
    assert len({id(m) for m in moves}) == len(set(moves))  # one object per distinct move


@pytest.mark.parametrize("generator", GENERATORS)
def test_generators_start_past_the_middle_of_a_deep_tower(generator: Callable[..., Iterator[Move]]) -> None:
    n = 300
    k = 2 ** (n - 1) - 1  # the largest disk's only move
    assert next(iter(generator(n, 2, 1, k))) == Move(n, 2, 1)
