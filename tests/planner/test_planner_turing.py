"""The Turing machine: its literal table, hand-traced runs, and agreement with the other methods."""

from __future__ import annotations

import itertools

import pytest
from hanoibot.errors import PlanError
from hanoibot.planner.classic import ClassicPlan
from hanoibot.planner.classic.turing import TABLE, TuringRun, machine_goal_peg, run_table
from hanoibot.puzzle import Move


def textbook(n: int, src: int, dst: int) -> list[Move]:
    if not n:
        return []
    aux = 3 - src - dst
    return [*textbook(n - 1, src, aux), Move(n, src, dst), *textbook(n - 1, aux, dst)]


def test_table_has_sixteen_rows_over_the_tape_alphabet() -> None:
    assert len(TABLE) == 16
    for (_state, read), (write, step, nxt) in TABLE.items():
        assert read in "#ABC" and write in "#ABC"
        assert step in (-1, 1)
        assert nxt in {s for s, _ in TABLE}
        assert (read == "#") == (write == "#")  # the end marks are never overwritten


def test_one_disk_by_hand() -> None:
    # seek on '#' -> R, small; small on A writes B -> R, on_B; on_B reads '#': no row, halt.
    assert run_table("#A#") == ("#B#", 2)


def test_two_disks_by_hand() -> None:
    # 1: seek # R | 2: small A->B R | 3: on_B A->C L | 4: seek B L | 5: seek # R | 6: small B->C R
    # 7: on_C C R | halt on '#'
    assert run_table("#AA#") == ("#CC#", 7)
    run = TuringRun(2, 0, 2)
    assert list(run) == [Move(1, 0, 1), Move(2, 0, 2), Move(1, 1, 2)]
    assert run.machine_steps == 7 and run.is_halted


@pytest.mark.parametrize("n", range(1, 9))
def test_machine_moves_the_tower_to_some_other_peg(n: int) -> None:
    final, _ = run_table("#" + "A" * n + "#")
    assert final == "#" + "ABC"[machine_goal_peg(n)] * n + "#"


@pytest.mark.parametrize("n", range(1, 10))
def test_decoded_moves_match_the_textbook_for_every_peg_pair(n: int) -> None:
    for src, dst in itertools.permutations(range(3), 2):
        run = TuringRun(n, src, dst)
        assert list(run) == textbook(n, src, dst)
        assert run.machine_steps == run_table("#" + "A" * n + "#")[1]


@pytest.mark.parametrize("n", [5, 8])
def test_restart_mid_run_matches_the_tail(n: int) -> None:
    moves = textbook(n, 2, 0)
    for k in range(len(moves)):
        assert list(TuringRun(n, 2, 0, k)) == moves[k:]


def test_steps_grow_with_the_work() -> None:
    steps = [run_table("#" + "A" * n + "#")[1] for n in range(1, 12)]
    assert all(b > 2 * a for a, b in itertools.pairwise(steps))  # at least doubling per disk: 2^n - 1 moves


def test_plan_with_turing_method_counts_steps() -> None:
    moves = ClassicPlan(4, method="turing").moves_from(0)
    assert len(list(moves)) == 15
    assert moves.machine_steps == run_table("#AAAA#")[1]  # type: ignore[attr-defined]


def test_zero_disks_is_refused() -> None:
    with pytest.raises(PlanError, match="disk count 0"):
        TuringRun(0, 0, 2)
