"""Lock solvers: the exact search is minimal (checked by trying every shorter press sequence), the strategy opens
every lock in the number of presses it announces, never fewer than the exact minimum."""

from __future__ import annotations

import itertools
from collections import deque

import pytest
from hanoibot.errors import PlanError
from hanoibot.planner.lock import fewest_presses, gather_presses, strategy, tower_presses
from hanoibot.puzzle import State
from hanoibot.puzzle.lock import Lock, LockRules
from hypothesis import given, settings
from hypothesis import strategies as st


def opens(lock: Lock, buttons: list[int] | tuple[int, ...]) -> bool:
    for button in buttons:
        lock = lock.press(button)
    return lock.is_open


def test_exact_search_is_minimal_by_trying_every_shorter_sequence() -> None:
    for pegs in itertools.product(range(3), repeat=3):
        lock = Lock(pegs)
        best = fewest_presses(lock)
        assert opens(lock, best)
        for length in range(len(best)):
            assert not any(opens(lock, seq) for seq in itertools.product(range(1, 4), repeat=length))


@pytest.mark.parametrize("n", range(2, 6))
def test_strategy_opens_every_lock_in_its_announced_presses(n: int) -> None:
    for pegs in itertools.product(range(3), repeat=n):
        lock = Lock(pegs)
        if lock.is_open:
            assert fewest_presses(lock) == []
            continue
        plan = strategy(lock)
        buttons = list(plan.buttons())
        assert len(buttons) == plan.presses and buttons[0] == plan.first_button
        assert opens(lock, buttons)
        assert plan.presses >= len(fewest_presses(lock))


@pytest.mark.parametrize("n", [2, 3, 4, pytest.param(5, marks=pytest.mark.slow)])
def test_strategy_from_a_split_lock_opens_it_in_its_announced_presses(n: int) -> None:
    for pegs in itertools.product(range(3), repeat=n):
        for split in range(n):
            lock = Lock(pegs, split)
            if lock.is_open:
                continue
            plan = strategy(lock)
            buttons = list(plan.buttons())
            assert plan.first_button == split + 1
            assert len(buttons) == plan.presses and opens(lock, buttons)
            assert plan.presses >= len(fewest_presses(lock))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=6, max_size=11).filter(lambda p: len(set(p)) > 1))
def test_strategy_on_longer_locks_opens_them_as_counted(pegs: list[int]) -> None:
    lock = Lock(tuple(pegs))
    plan = strategy(lock)
    buttons = list(plan.buttons())
    assert len(buttons) == plan.presses and opens(lock, buttons)


@pytest.mark.parametrize("k", range(1, 7))
def test_tower_presses_count_the_literal_presses(k: int) -> None:
    # a tower of k disks on one colour, first button pressed at its small end: move it by pressing
    for src, dst in itertools.permutations(range(3), 2):
        pegs = [src] * k
        presses = gather_presses(pegs, dst, 1)
        assert presses == tower_presses(k, src, dst, 1)
        moves = 2**k - 1
        assert presses in (moves, moves + 2 ** (k - 1))


def test_exact_search_refuses_long_locks() -> None:
    with pytest.raises(PlanError, match="lock of 9 elements is too long"):
        fewest_presses(Lock((0,) * 8 + (1,)))


def test_open_lock_has_no_strategy() -> None:
    with pytest.raises(PlanError, match="already open"):
        strategy(Lock.parse("RRR"))


def model_press(pegs: tuple[int, ...], split: int | None, button: int) -> tuple[tuple[int, ...], int]:
    """The seed's lock built from the Hanoi model, not from Lock.press: the first button is the split; the split
    element steps A -> B -> C -> A; another element makes the one legal move of its disk (State.legal_moves) in the
    tower from the split to it, if it has one."""
    index = button - 1
    split = index if split is None else split
    if index == split:
        return (*pegs[:index], (pegs[index] + 1) % 3, *pegs[index + 1 :]), split
    tower = list(range(split, index - 1, -1)) if index < split else list(range(split, index + 1))
    state = State.from_pegs([pegs[e] for e in tower])
    moves = [m for m in state.legal_moves() if m.disk == len(tower)]
    if not moves:
        return pegs, split
    return (*pegs[:index], moves[0].dst, *pegs[index + 1 :]), split


def model_fewest(pegs: tuple[int, ...]) -> int:
    """Fewest presses that open the lock, by breadth-first search over the model above."""
    start: tuple[tuple[int, ...], int | None] = (pegs, None)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if len(set(here[0])) == 1:
            return dist[here]
        for button in range(1, len(pegs) + 1):
            there = model_press(here[0], here[1], button)
            if there not in dist:
                dist[there] = dist[here] + 1
                queue.append(there)
    raise AssertionError(f"{pegs} never opens")


@pytest.mark.parametrize("n", [4, pytest.param(5, marks=pytest.mark.slow)])
def test_exact_search_equals_a_search_over_the_hanoi_model_on_every_lock(n: int) -> None:
    for pegs in itertools.product(range(3), repeat=n):
        best = fewest_presses(Lock(pegs))
        assert len(best) == model_fewest(pegs), pegs
        assert opens(Lock(pegs), best)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_both_solvers_follow_another_reading_of_the_rules(n: int) -> None:
    backwards = LockRules("backwards", smallest_step=-1)
    for pegs in itertools.product(range(3), repeat=n):
        lock = Lock(pegs, None, backwards)
        if lock.is_open:
            continue
        best = fewest_presses(lock)
        assert opens(lock, best) and len(best) == model_fewest_backwards(pegs)
        plan = strategy(lock)
        buttons = list(plan.buttons())
        assert len(buttons) == plan.presses >= len(best) and opens(lock, buttons)


def model_fewest_backwards(pegs: tuple[int, ...]) -> int:
    """model_fewest with the smallest disk stepping C -> B -> A -> C: the model's pegs mirrored (A <-> C)."""
    return model_fewest(tuple(2 - p for p in pegs))
