"""``Plan.runs_from``: the runs of moves the writers format equal the plan move for move, for every planner.

Oracles: the textbook recursion for the classic transfer; for every other plan ``move_at``, which walks the plan's
tree to one move without the memoised blocks the runs come from (the slow, simple path), and a replay under the
plan's rules that must reach its goal in exactly ``length`` moves (lengths themselves are checked against published
sequences and exact search in the planners' own tests).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hanoibot.planner import make_plan
from hanoibot.planner.base import Plan
from hanoibot.planner.general.frame_stewart import FrameStewartTower
from hanoibot.planner.general.transfer import move_at, moves_from
from hanoibot.puzzle import Move, Rules, State
from hypothesis import given, settings
from hypothesis import strategies as st
from planner_checks import boards, replay

PAIRS = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]


def textbook(n: int, src: int, dst: int) -> Iterator[Move]:
    """The optimal classic transfer by the textbook recursion."""
    if n:
        aux = 3 - src - dst
        yield from textbook(n - 1, src, aux)
        yield Move(n, src, dst)
        yield from textbook(n - 1, aux, dst)


def flat(plan: Plan, k: int) -> list[Move]:
    """The moves of ``plan.runs_from(k)``, one list."""
    return [move for run in plan.runs_from(k) for move in run]


def check_runs(plan: Plan, expected: list[Move]) -> None:
    """Runs from the start and from moves near block edges equal ``expected`` and its tails."""
    assert flat(plan, 0) == expected
    for k in {1, len(expected) // 3, 4094, 4095, 4096, len(expected) - 1, len(expected)}:
        if 0 <= k <= len(expected):
            assert flat(plan, k) == expected[k:]


@pytest.mark.parametrize("method", ["recursive", "iterative", "gray", "bits", "turing"])
@pytest.mark.parametrize(("src", "dst"), PAIRS)
def test_classic_runs_are_the_textbook_moves(method: str, src: int, dst: int) -> None:
    for n in range(1, 11):
        plan = make_plan(n, start=State.tower(n, src), goal=State.tower(n, dst), method=method)
        check_runs(plan, list(textbook(n, src, dst)))


def test_classic_runs_past_one_block_are_the_textbook_moves() -> None:
    plan = make_plan(14, start=State.tower(14, 2), goal=State.tower(14, 1))
    check_runs(plan, list(textbook(14, 2, 1)))


def check_against_move_at(plan: Plan) -> None:
    """Runs equal ``move_at`` move for move, and the plan replays legally to its goal."""
    expected = [plan.move_at(k) for k in range(plan.length)]
    check_runs(plan, expected)
    assert list(plan) == expected
    assert replay(plan) == plan.goal


@pytest.mark.parametrize("pegs", [4, 5, 6, 7])
def test_frame_stewart_runs_equal_move_at(pegs: int) -> None:
    for n in range(1, 11):
        for src, dst in ((0, pegs - 1), (pegs - 2, 1)):
            check_against_move_at(
                make_plan(n, pegs=pegs, start=State.tower(n, src, pegs), goal=State.tower(n, dst, pegs))
            )


@pytest.mark.parametrize("rules", ["linear", "cyclic", "big-on-top"])
@pytest.mark.parametrize(("src", "dst"), PAIRS)
def test_restricted_runs_equal_move_at(rules: str, src: int, dst: int) -> None:
    for n in range(1, 7):
        check_against_move_at(
            make_plan(n, rules=Rules.named(rules), start=State.tower(n, src), goal=State.tower(n, dst))
        )


def test_large_restricted_and_multi_peg_runs_cross_blocks() -> None:
    for plan in (
        make_plan(9, rules=Rules.named("linear")),
        make_plan(10, rules=Rules.named("cyclic")),
        make_plan(60, pegs=4),
    ):
        assert plan.length > 4096
        check_against_move_at(plan)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), pegs=st.integers(3, 5), n=st.integers(1, 7))
def test_runs_from_any_regular_start_equal_move_at(data: st.DataObject, pegs: int, n: int) -> None:
    start = data.draw(boards(n, pegs, regular=True))
    check_against_move_at(make_plan(n, pegs=pegs, start=start, goal_any=True))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), m=st.integers(0, 12), pegs=st.integers(4, 7))
def test_renamed_frame_stewart_blocks_equal_move_at(data: st.DataObject, m: int, pegs: int) -> None:
    """Towers on any disks and any order of free pegs share canonical blocks, renamed; each move is still right."""
    board = data.draw(st.integers(pegs, 9))
    free = data.draw(st.permutations(range(board)))[:pegs]
    src, dst = free[data.draw(st.integers(0, pegs - 1))], free[data.draw(st.integers(0, pegs - 1))]
    labels = sorted(data.draw(st.sets(st.integers(1, 40), min_size=m, max_size=m)))
    tower = FrameStewartTower(labels, src, dst, free)
    expected = [move_at(tower, k) for k in range(tower.length)] if src != dst or not m else None
    if expected is not None:
        assert list(moves_from(tower, 0)) == expected
        assert all(move.disk in labels and {move.src, move.dst} <= set(free) for move in expected)
