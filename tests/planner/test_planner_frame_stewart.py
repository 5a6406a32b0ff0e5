"""Frame–Stewart counts and plans on 4 to 26 pegs.

Oracles:
* published sequences — OEIS A007664 (4 pegs, offset 0), A007665 (5 pegs, offset 1), A182058 (6 pegs, offset 1);
* the multi-peg table for 3–7 pegs and 1–10 disks, taken from OEIS A137695 (Frame–Stewart numbers by pegs and
  disks; its example matrix lists the rows for 3, 4, 5, … pegs), cross-checked against A000225, A007664, A007665
  and A182058;
* the textbook recursion FS_p(n) = min_k 2 FS_p(k) + FS_{p-1}(n-k), computed here by dynamic programming;
* exact search (breadth-first) for small towers.
"""

from __future__ import annotations

from functools import cache

import pytest
from hanoibot.planner.general.frame_stewart import fs_count, fs_split, optimality, tower_plan
from hanoibot.planner.general.search import shortest_path
from hanoibot.puzzle import Rules, State
from hypothesis import given
from hypothesis import strategies as st
from planner_checks import replay

A007664 = [0, 1, 3, 5, 9, 13, 17, 25, 33, 41, 49, 65, 81, 97, 113, 129, 161, 193, 225, 257, 289, 321, 385, 449]
A007665 = [1, 3, 5, 7, 11, 15, 19, 23, 27, 31, 39, 47, 55, 63, 71, 79, 87, 95, 103, 111, 127, 143, 159, 175]
A182058 = [1, 3, 5, 7, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 57, 65, 73, 81, 89]
#: pegs -> moves for 1..10 disks (OEIS A137695, example matrix, rows 3 to 7 pegs).
TABLE_3_TO_7_PEGS = {
    3: [1, 3, 7, 15, 31, 63, 127, 255, 511, 1023],
    4: [1, 3, 5, 9, 13, 17, 25, 33, 41, 49],
    5: [1, 3, 5, 7, 11, 15, 19, 23, 27, 31],
    6: [1, 3, 5, 7, 9, 13, 17, 21, 25, 29],
    7: [1, 3, 5, 7, 9, 11, 15, 19, 23, 27],
}


@cache
def textbook_fs(n: int, pegs: int) -> int:
    """FS by the defining minimum over every split (quadratic; the independent oracle)."""
    if n == 0:
        return 0
    if pegs == 3:
        return 2**n - 1
    if n == 1:
        return 1
    return min(2 * textbook_fs(k, pegs) + textbook_fs(n - k, pegs - 1) for k in range(1, n))


def test_published_sequences() -> None:
    assert [fs_count(n, 4) for n in range(len(A007664))] == A007664
    assert [fs_count(n, 5) for n in range(1, len(A007665) + 1)] == A007665
    assert [fs_count(n, 6) for n in range(1, len(A182058) + 1)] == A182058


@pytest.mark.parametrize("pegs", sorted(TABLE_3_TO_7_PEGS))
def test_multi_peg_table(pegs: int) -> None:
    assert [fs_count(n, pegs) for n in range(1, 11)] == TABLE_3_TO_7_PEGS[pegs]


@given(st.integers(1, 60), st.integers(4, 12))
def test_closed_form_and_split_match_the_textbook_minimum(n: int, pegs: int) -> None:
    assert fs_count(n, pegs) == textbook_fs(n, pegs)
    k = fs_split(n, pegs)
    assert 0 <= k < n
    assert 2 * fs_count(k, pegs) + fs_count(n - k, pegs - 1) == fs_count(n, pegs)


def test_a_million_disks_on_4_and_10_pegs() -> None:
    four = fs_count(10**6, 4)
    assert len(str(four)) == 429
    # The last increment is a power of two: FS(n) - FS(n - 1) = 2**t with C(t + 1, 2) < n <= C(t + 2, 2).
    assert four - fs_count(10**6 - 1, 4) == 2**1413
    assert fs_count(10**6, 10) < fs_count(10**6, 4)


@pytest.mark.parametrize(("n", "pegs"), [(1, 4), (3, 4), (5, 4), (6, 4), (4, 5), (6, 5), (3, 6), (5, 7), (8, 26)])
def test_plans_replay_and_have_the_counted_length(n: int, pegs: int) -> None:
    plan = tower_plan(n, 0, pegs - 1, Rules(pegs))
    assert plan.length == fs_count(n, pegs)
    assert replay(plan) == State.tower(n, pegs - 1, pegs)
    assert [plan.move_at(k) for k in range(plan.length)] == list(plan)


@pytest.mark.parametrize(("n", "pegs"), [(n, 4) for n in range(1, 7)] + [(n, 5) for n in range(1, 6)])
def test_counts_equal_exact_search(n: int, pegs: int) -> None:
    found = shortest_path(State.tower(n, 0, pegs), [State.tower(n, 1, pegs)], Rules(pegs))
    assert found.length == fs_count(n, pegs)


def test_optimality_labels() -> None:
    assert optimality(3)[0] is True
    assert optimality(4)[0] is True and "4 pegs" in optimality(4)[1]
    assert optimality(5)[0] is None and "conjectured" in optimality(5)[1]
