"""Greedy gathering of a regular board into a perfect tower.

Oracle: the full breadth-first sweep of :func:`distances_from` (on 3 pegs the greedy gather is optimal, so its
O(n) length must equal the search distance for every board), and replay through the puzzle model.
"""

from __future__ import annotations

import itertools

import pytest
from hanoibot.planner.general.gather import gather, gather_length3
from hanoibot.planner.general.search import RegularCodec, distances_from
from hanoibot.planner.general.transfer import moves_from
from hanoibot.puzzle import Rules, State
from hypothesis import given
from hypothesis import strategies as st
from planner_checks import boards


def play(state: State, target: int) -> tuple[State, int]:
    """Replay the gather of every disk of ``state`` to ``target``; return the end state and the move count."""
    run = gather(range(1, state.n_disks + 1), state.pegs_of_disks(), target, state.pegs)
    count = 0
    for move in moves_from(run, 0) if run.length else ():
        state = state.apply(move)
        count += 1
    assert count == run.length
    return state, count


@pytest.mark.parametrize("n", range(1, 6))
def test_three_peg_gather_is_optimal_for_every_board(n: int) -> None:
    codec = RegularCodec(n, Rules(3))
    for peg in range(3):
        tower = State.tower(n, peg)
        distance = distances_from(tower, Rules(3))  # moves are reversible: distance to = distance from
        for where in itertools.product(range(3), repeat=n):
            state = State.from_pegs(where)
            assert gather_length3(where, peg) == distance[codec.encode(state)]
    for where in itertools.product(range(3), repeat=min(n, 4)):
        end, count = play(State.from_pegs(where), 2)
        assert end == State.tower(len(where), 2)
        assert count == gather_length3(where, 2)


@given(st.data(), st.integers(1, 7), st.integers(4, 7))
def test_gather_on_more_pegs_is_valid(data: st.DataObject, n: int, pegs: int) -> None:
    state = data.draw(boards(n, pegs, regular=True))
    target = data.draw(st.integers(0, pegs - 1))
    end, _ = play(state, target)
    assert end == State.tower(n, target, pegs)


def test_gather_of_a_subset_with_larger_floors() -> None:
    # Disks 1, 2, 3 gather on C while 5 and 4 lie underneath as floors.
    state = State([(5, 3), (4, 2), (1,)])
    run = gather((1, 2, 3), (2, 1, 0), 2, 3)
    for move in moves_from(run, 0):
        state = state.apply(move)
    assert state.stacks == ((5,), (4,), (3, 2, 1))
    assert run.length == gather_length3((2, 1, 0), 2)
