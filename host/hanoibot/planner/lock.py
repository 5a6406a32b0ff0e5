"""Solvers for the twin-tower lock (:mod:`hanoibot.puzzle.lock`): fewest presses by exact search, and a
constructive strategy for any length whose press count is computed in O(N) per choice.

The strategy picks the first button ``p``, a colour ``T`` and which tower goes first. After the first press (it
moves the shared smallest disk one step round), it gathers the first tower on ``T`` with the textbook gathering
(largest misplaced disk: gather the smaller ones on the third peg, move it, move the small tower onto it), then the
second tower the same way; moves of the shared smallest disk move it in both towers at once and end on ``T``. The
smallest disk steps only one way round, so a move against that way costs two presses.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..errors import PlanError
from ..puzzle.lock import Lock
from .classic.methods import recursive_moves

#: Longest lock the exact search takes by default (it visits up to N * 3**N lock states).
EXACT_MAX_LENGTH = 8


def fewest_presses(lock: Lock, *, max_length: int = EXACT_MAX_LENGTH) -> list[int]:
    """The shortest list of buttons (1-based) that opens ``lock``, by breadth-first search over (split, colours)."""
    if lock.length > max_length:
        raise PlanError(
            f"lock of {lock.length} elements is too long for the exact search: expected at most {max_length}"
        )
    if lock.is_open:
        return []
    parent: dict[Lock, tuple[Lock, int] | None] = {lock: None}
    queue = deque([lock])
    while queue:
        here = queue.popleft()
        for button in range(1, here.length + 1):
            there = here.press(button)
            if there in parent:
                continue
            parent[there] = (here, button)
            if there.is_open:
                presses = []
                link = parent[there]
                while link is not None:
                    presses.append(link[1])
                    link = parent[link[0]]
                return presses[::-1]
            queue.append(there)
    raise PlanError(f"lock {lock.colours()} cannot be opened under rules {lock.rules.name}")


def _forward(src: int, dst: int, step: int) -> bool:
    """True if the smallest disk's one-step move src -> dst goes the way it steps."""
    return (dst - src) % 3 == step % 3


def tower_presses(k: int, src: int, dst: int, step: int) -> int:
    """Presses to move a tower of ``k`` disks src -> dst: 2**k - 1 moves, plus one more press for each of the
    2**(k-1) smallest-disk moves when they all go against the way it steps."""
    if k == 0:
        return 0
    first = dst if k % 2 else 3 - src - dst
    return (1 << k) - 1 + (0 if _forward(src, first, step) else 1 << (k - 1))


def gather_presses(pegs: Sequence[int], target: int, step: int) -> int:
    """Presses to gather a tower (pegs of its disks, smallest first) on ``target`` by the textbook gathering."""
    presses = 0
    for i in range(len(pegs) - 1, 0, -1):
        if pegs[i] != target:
            spare = 3 - pegs[i] - target
            presses += 1 + tower_presses(i, spare, target, step)
            target = spare
    if pegs[0] != target:
        presses += 1 if _forward(pegs[0], target, step) else 2
    return presses


def _gather_moves(pegs: Sequence[int], target: int) -> Iterator[tuple[int, int, int]]:
    """The (disk, src, dst) moves of the textbook gathering of ``pegs`` on ``target``."""
    if not pegs:
        return
    top = len(pegs)
    if pegs[-1] == target:
        yield from _gather_moves(pegs[:-1], target)
        return
    spare = 3 - pegs[-1] - target
    yield from _gather_moves(pegs[:-1], spare)
    yield top, pegs[-1], target
    yield from recursive_moves(top - 1, spare, target, 0)


def _tower(pegs: Sequence[int], split: int, left: bool) -> list[int]:
    """Element indexes of the left or right tower, smallest disk (the split) first."""
    return list(range(split, -1, -1)) if left else list(range(split, len(pegs)))


@dataclass(frozen=True)
class Strategy:
    """The constructive plan for a lock: first button, target colour (peg), which tower first, press count.

    For a lock already split (its memory cell set) ``first_button`` is the split button and is not pressed again
    first: the presses start with the gathering."""

    lock: Lock
    first_button: int
    target: int
    left_first: bool
    presses: int

    def buttons(self) -> Iterator[int]:
        """The buttons to press, lazily (the first is :attr:`first_button`)."""
        split = self.first_button - 1
        step = self.lock.rules.smallest_step
        if self.lock.split is None:
            after = self.lock.press(self.first_button)
            yield self.first_button
        else:
            after = self.lock
        pegs = list(after.pegs)
        for left in (self.left_first, not self.left_first):
            elements = _tower(pegs, split, left)
            for disk, src, dst in _gather_moves([pegs[e] for e in elements], self.target):
                element = elements[disk - 1]
                pegs[element] = dst
                if disk == 1 and not _forward(src, dst, step):
                    yield element + 1
                yield element + 1


def strategy(lock: Lock) -> Strategy:
    """The cheapest choice of first button, target colour and tower order for the constructive strategy; for a
    lock already split, of target colour and tower order from where it is."""
    if lock.is_open:
        raise PlanError(f"lock {lock.colours()} is already open: every element shows one colour")
    step = lock.rules.smallest_step
    best: Strategy | None = None
    buttons = range(1, lock.length + 1) if lock.split is None else (lock.split + 1,)
    for button in buttons:
        split = button - 1
        pressed = lock.split is None
        pegs = list(lock.press(button).pegs if pressed else lock.pegs)
        for target in range(3):
            for left_first in (True, False):
                first = [pegs[e] for e in _tower(pegs, split, left_first)]
                second = [pegs[e] for e in _tower(pegs, split, not left_first)]
                second[0] = target
                count = int(pressed) + gather_presses(first, target, step) + gather_presses(second, target, step)
                if best is None or count < best.presses:
                    best = Strategy(lock, button, target, left_first, count)
    assert best is not None
    return best
