"""Lazy move trees: random access, streaming from k and state_at agree with plain iteration and replay.

Oracles: the classic planner of part A (:class:`~hanoibot.planner.classic.plan.ClassicPlan`, itself checked against
a textbook recursion and OEIS A000225) and replay through the puzzle model.
"""

from __future__ import annotations

import pytest
from hanoibot.errors import PlanError
from hanoibot.planner.classic import ClassicPlan
from hanoibot.planner.general.transfer import ClassicTower, Seq, Step, TransferPlan, move_at, moves_from, state_after
from hanoibot.puzzle import Move, Rules, State
from hypothesis import given
from hypothesis import strategies as st


def textbook(n: int, src: int, dst: int) -> list[Move]:
    """The classic optimal transfer from the classic planner (an independent implementation)."""
    return list(ClassicPlan(n, src, dst)) if n else []


def composite() -> Seq:
    """Tower of 3 A->B, disk 4 A->C, the tower back B->C by a reversed C->B transfer: 15 moves."""
    return Seq(
        (
            ClassicTower(range(1, 4), 0, 1, 2),
            Step(Move(4, 0, 2)),
            Seq((ClassicTower(range(1, 4), 2, 1, 0),)).reversed(),
        )
    )


@pytest.mark.parametrize("n", range(0, 9))
def test_classic_tower_matches_textbook_in_every_access_path(n: int) -> None:
    tower = ClassicTower(range(1, n + 1), 0, 2, 1)
    expected = list(textbook(n, 0, 2))
    assert tower.length == len(expected)
    assert [move_at(tower, k) for k in range(tower.length)] == expected
    if expected:
        assert list(moves_from(tower, 0)) == expected


@given(st.integers(0, 14))
def test_moves_from_any_k_is_the_tail(k: int) -> None:
    run = composite()
    everything = list(moves_from(run, 0))
    assert list(moves_from(run, k)) == everything[k:]
    assert everything == list(textbook(4, 0, 2))


def test_reversed_runs_turn_each_move_round_in_reverse_order() -> None:
    forward = Seq((Step(Move(1, 0, 1)), ClassicTower(range(1, 3), 2, 0, 1)))
    backward = forward.reversed()
    assert list(moves_from(backward, 0)) == [Move(m.disk, m.dst, m.src) for m in reversed(list(moves_from(forward, 0)))]
    assert backward.reversed() is forward


@given(st.integers(0, 15))
def test_state_after_equals_replay(k: int) -> None:
    start = State.tower(4)
    state = start
    for move in list(moves_from(composite(), 0))[:k]:
        state = state.apply(move)
    assert state_after(composite(), start.pegs_of_disks(), k) == list(state.pegs_of_disks())


def test_transfer_plan_checks_indices_and_offers_alternatives() -> None:
    plan = TransferPlan(
        State.tower(4), State.tower(4, 2), Rules(3), composite(), method="test", optimal=True, note="optimal"
    )
    assert plan.length == 15
    assert plan.state_at(15) == State.tower(4, 2)
    assert plan.all_optimal() == (plan,)
    with pytest.raises(PlanError, match="move index 15 is out of range"):
        plan.move_at(15)
    with pytest.raises(PlanError, match="state index -1"):
        plan.state_at(-1)


@pytest.mark.parametrize(("src", "dst", "aux"), [(0, 2, 1), (2, 1, 0), (3, 1, 0), (1, 4, 2)])
def test_classic_tower_closed_forms_from_any_k_on_any_pegs(src: int, dst: int, aux: int) -> None:
    n = 6
    real = {0: src, 1: aux, 2: dst}
    expected = [Move(m.disk, real[m.src], real[m.dst]) for m in textbook(n, 0, 2)]
    tower = ClassicTower(range(1, n + 1), src, dst, aux)
    for k in range(len(expected)):
        assert tower.move_at(k) == expected[k]
        assert list(moves_from(tower, k)) == expected[k:]
    where = [src] * n
    for k, move in enumerate(expected, start=1):
        where[move.disk - 1] = move.dst
        probe = [-1] * n
        tower.pegs_after(k, probe)
        assert probe == where


@pytest.mark.parametrize(("src", "dst", "aux"), [(0, 2, 1), (3, 1, 0)])
def test_large_towers_stream_from_blocks_with_their_own_disks_and_pegs(src: int, dst: int, aux: int) -> None:
    n = 14  # 16383 moves: several memoised blocks and the larger disks between them
    labels = range(5, 5 + n)
    real = {0: src, 1: aux, 2: dst}
    expected = [Move(labels[m.disk - 1], real[m.src], real[m.dst]) for m in textbook(n, 0, 2)]
    tower = ClassicTower(labels, src, dst, aux)
    assert list(moves_from(tower, 0)) == expected
    for k in (1, 4094, 4095, 4096, 8191, 12345, len(expected) - 1):
        assert list(moves_from(tower, k)) == expected[k:]
