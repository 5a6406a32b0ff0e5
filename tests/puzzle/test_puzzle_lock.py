"""The twin-tower lock's rules: each tower behaves as a Hanoi tower of the puzzle model, the smallest disk steps
round, the first or last button makes one tower (the seed's remark), and bad locks are refused."""

from __future__ import annotations

import itertools

import pytest
from hanoibot.errors import StateError
from hanoibot.puzzle import State
from hanoibot.puzzle.lock import Lock, LockRules


def hanoi_press(pegs: tuple[int, ...], elements: list[int], element: int) -> int | None:
    """Where the Hanoi model (State.legal_moves) lets ``element`` go in the tower made of ``elements`` (smallest
    first, disk 1 excluded): its only legal peg, or None if it cannot move."""
    state = State.from_pegs([pegs[e] for e in elements])
    disk = elements.index(element) + 1
    targets = [m.dst for m in state.legal_moves() if m.disk == disk]
    assert len(targets) <= 1  # a disk other than the smallest has at most one legal move
    return targets[0] if targets else None


@pytest.mark.parametrize("n", range(2, 6))
def test_every_press_after_the_split_is_a_hanoi_move_in_its_tower(n: int) -> None:
    for pegs in itertools.product(range(3), repeat=n):
        for split in range(n):
            lock = Lock(pegs, split)
            left, right = list(range(split, -1, -1)), list(range(split, n))
            for element in range(n):
                after = lock.press(element + 1)
                assert after.split == split
                if element == split:
                    assert after.pegs[element] == (pegs[element] + 1) % 3
                    continue
                tower = left if element < split else right
                target = hanoi_press(pegs, tower, element)
                want = pegs if target is None else (*pegs[:element], target, *pegs[element + 1 :])
                assert after.pegs == want, (pegs, split, element)


@pytest.mark.parametrize("button", ["first", "last"])
def test_first_or_last_button_makes_one_tower_of_all_elements(button: str) -> None:
    n = 5
    for pegs in itertools.product(range(3), repeat=n):
        first = 1 if button == "first" else n
        lock = Lock(pegs).press(first)
        # disk k of the one tower is element k (first button) or element n + 1 - k (last button)
        order = list(range(n)) if button == "first" else list(range(n - 1, -1, -1))
        state = State.from_pegs([lock.pegs[e] for e in order])
        for disk in range(2, n + 1):
            element = order[disk - 1]
            moves = [m for m in state.legal_moves() if m.disk == disk]
            after = lock.press(element + 1)
            assert after.pegs[element] == (moves[0].dst if moves else lock.pegs[element])


def test_first_press_stores_the_split_and_moves_that_element() -> None:
    lock = Lock.parse("RYGGR").press(3)
    assert lock.split == 2 and lock.colours() == "RYRGR"  # green steps round to red
    assert lock.press(1).split == 2  # the memory cell keeps the first button


def test_the_lock_opens_on_any_single_colour() -> None:
    assert Lock.parse("GGGG").is_open and Lock.parse("yyy").is_open and not Lock.parse("RRY").is_open


def test_another_reading_steps_the_smallest_disk_the_other_way() -> None:
    backwards = LockRules("backwards", smallest_step=-1)
    assert Lock.parse("RY", backwards).press(1).colours() == "GY"
    assert Lock.parse("RY").press(1).colours() == "YY"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("RYXG", "colour 'X' at position 3"),
        ("RYGB", "colour 'B' at position 4 of lock 'RYGB' is not one of R, Y, G"),
        ("ABCX", "colour 'X' at position 4"),
        ("R", "lock 'R' has 1 elements"),
        ("R" * 65, "has 65 elements"),
    ],
)
def test_bad_locks_are_refused_naming_the_value(text: str, named: str) -> None:
    with pytest.raises(StateError, match=named):
        Lock.parse(text)


def test_a_lock_in_basovs_peg_letters_is_the_same_lock() -> None:
    assert Lock.parse("acabc") == Lock.parse("RGRYG")


def test_a_button_that_does_not_exist_is_refused() -> None:
    with pytest.raises(StateError, match="button 6 does not exist: expected 1 to 5"):
        Lock.parse("RYGGR").press(6)
