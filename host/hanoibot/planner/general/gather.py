"""Gather a regular arrangement of disks into a perfect tower on one peg (classic rules, any peg count).

Greedy from the largest disk down: a disk already on the peg its tower must reach stays; otherwise everything
smaller first gathers on a spare peg, the disk moves once, and the smaller disks follow as a perfect tower.
On 3 pegs the spare peg is forced and the plan is the unique optimum (the "P2" algorithm of Hinz et al.,
*The Tower of Hanoi — Myths and Maths*, 2013, §2.3); its length is ``sum 2**(d-1)`` over the disks that move,
counted here in O(n) from a bit string. On 4+ pegs the tower part uses Frame–Stewart and the result is valid
but not proven optimal.

The disks are given by ``labels`` (sorted, smallest first) and ``pegs_of`` (peg of ``labels[i]``); other disks
on the board must be larger than all of them and never sit above them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...puzzle import Move
from .frame_stewart import tower
from .transfer import ClassicTower, LazyParts, Seq, Step, Transfer


def gather(labels: Sequence[int], pegs_of: Sequence[int], target: int, pegs: int) -> Transfer:
    """The greedy run gathering ``labels`` (on ``pegs_of``) into a perfect tower on ``target``."""
    if pegs == 3:
        return Gather3(labels, pegs_of, target)
    tails: list[Transfer] = []
    free = range(pegs)
    goal = target
    for i in range(len(labels) - 1, -1, -1):
        peg = pegs_of[i]
        if peg == goal:
            continue
        spare = _spare_peg(peg, goal, pegs_of[i - 1] if i else None, pegs)
        tails.append(Seq((Step(Move(labels[i], peg, goal)), tower(labels[:i], spare, goal, free))))
        goal = spare
    tails.reverse()
    return Seq(tails)


def _walk3(pegs_of: Sequence[int], target: int, movers: list[tuple[int, int]] | None) -> int:
    """Run length of the 3-peg gather (a bit per moving disk); appends (index, goal peg) of movers, largest first."""
    bits = bytearray(b"0" * len(pegs_of))
    goal = target
    top = len(pegs_of) - 1
    for i in range(top, -1, -1):
        peg = pegs_of[i]
        if peg != goal:
            if movers is not None:
                movers.append((i, goal))
            bits[top - i] = 0x31  # ASCII "1"
            goal = 3 - peg - goal
    return int(bits, 2) if bits else 0


def gather_length3(pegs_of: Sequence[int], target: int) -> int:
    """Length of :func:`gather` on 3 pegs in O(n): bit ``d - 1`` is set for every disk ``d`` that moves."""
    return _walk3(pegs_of, target, None)


class Gather3(Transfer):
    """The 3-peg gather as a run whose tails (disk move + classic tower, 2**i moves each) are made on demand.

    The tails come smallest mover first, so the moves before tail ``j`` number ``mask mod 2**i_j``, where
    ``mask`` has a bit for every mover: move ``k`` is found by bisecting over the movers, O(n log n) bit work
    instead of a scan over up to n big-integer lengths.
    """

    def __init__(self, labels: Sequence[int], pegs_of: Sequence[int], target: int) -> None:
        self.labels = labels
        self.pegs_of = pegs_of
        self.target = target
        self.movers: list[tuple[int, int]] = []
        self.mask = _walk3(pegs_of, target, self.movers)
        self.movers.reverse()

    @property
    def length(self) -> int:
        """Sum of 2**i over the movers (the bit mask itself)."""
        return self.mask

    def _tail(self, j: int) -> Transfer:
        i, goal = self.movers[j]
        src = self.pegs_of[i]
        return Seq(
            (Step(Move(self.labels[i], src, goal)), ClassicTower(self.labels[:i], 3 - src - goal, goal, src)),
            length=1 << i,
        )

    def parts(self) -> Sequence[Transfer]:
        """One tail per mover, built on access."""
        return LazyParts(len(self.movers), self._tail)

    def locate(self, k: int) -> tuple[int, Transfer, int]:
        """The first tail whose end ``mask mod 2**(i + 1)`` lies beyond ``k``, by bisection."""
        low, high = 0, len(self.movers) - 1
        while low < high:
            middle = (low + high) // 2
            if k < self.mask & ((2 << self.movers[middle][0]) - 1):
                high = middle
            else:
                low = middle + 1
        i = self.movers[low][0]
        return low, self._tail(low), k - (self.mask & ((1 << i) - 1))

    def apply_to(self, where: list[int]) -> None:
        """Every disk ends on the target."""
        for label in self.labels:
            where[label - 1] = self.target

    def undo_on(self, where: list[int]) -> None:
        """Every disk goes back where it started."""
        for label, peg in zip(self.labels, self.pegs_of, strict=True):
            where[label - 1] = peg


def _spare_peg(src: int, dst: int, next_peg: int | None, pegs: int) -> int:
    """A peg other than ``src`` and ``dst``: the next smaller disk's peg if possible (it then need not move)."""
    if pegs == 3:
        return 3 - src - dst
    if next_peg is not None and next_peg not in (src, dst):
        return next_peg
    return next(p for p in range(pegs) if p not in (src, dst))
