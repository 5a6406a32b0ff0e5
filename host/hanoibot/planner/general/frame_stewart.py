"""Frame–Stewart: perfect-tower transfers on 4 to 26 pegs, counted in closed form and streamed lazily.

Counting. On ``p`` pegs the Frame–Stewart numbers grow by 2**t exactly C(t + p - 3, p - 3) times in a row
(t = 0, 1, 2, …), so FS_p(n) is a sum of whole blocks ``C(t + p - 3, p - 3) * 2**t`` plus one partial block.
Summing blocks (not single terms) keeps ``FS_4(10**6)`` (429 digits) to about 1 400 big-integer additions.
Formula: S. Klavžar, U. Milutinović, "Simple explicit formulas for the Frame–Stewart numbers" (2002), as
quoted in OEIS A137695.

Splitting. The block sequence of ``p`` pegs is the block sequence of ``p - 1`` pegs merged with twice its own
(Pascal's rule on the block sizes), so an optimal split — park the top ``k`` disks with all pegs, move the other
``n - k`` with one peg fewer, bring the ``k`` back — is read off the block index in O(t) (:func:`fs_split`).

Optimality: proven for 3 pegs (2**n - 1) and 4 pegs (T. Bousch, "La quatrième tour de Hanoï", 2014);
conjectured for 5 or more pegs.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import comb

from ...errors import PlanError
from ...puzzle import Move, Rules, State
from .transfer import ClassicTower, Step, Tower, Transfer, TransferPlan


@lru_cache(maxsize=65536)
def fs_count(n_disks: int, pegs: int) -> int:
    """Moves of the Frame–Stewart transfer of ``n_disks`` on ``pegs`` pegs (pegs >= 3), in O(t) additions."""
    if n_disks <= 0:
        return 0
    if pegs == 3:
        return (1 << n_disks) - 1
    if pegs < 3:
        raise PlanError(f"peg count {pegs} cannot move a tower: expected at least 3 pegs")
    r = pegs - 3
    total = 0
    covered = 0
    block = 1  # C(t + r, r) at t = 0
    t = 0
    while covered + block < n_disks:
        total += block << t
        covered += block
        t += 1
        block = block * (t + r) // t
    return total + ((n_disks - covered) << t)


def fs_split(n_disks: int, pegs: int) -> int:
    """How many top disks an optimal Frame–Stewart transfer parks first (using all ``pegs``); pegs >= 4."""
    if n_disks <= 1:
        return 0
    r = pegs - 3
    # Largest T with N(T) = C(T + r, r + 1) <= n: the first T blocks are complete.
    t_full = 0
    while comb(t_full + 1 + r, r + 1) <= n_disks:
        t_full += 1
    remainder = n_disks - comb(t_full + r, r + 1)
    # Block t of p pegs = block t of p-1 pegs + block t-1 of p pegs (doubled): take the doubled ones first.
    parked_full = comb(t_full - 1 + r, r + 1) if t_full else 0
    doubled_in_partial = comb(t_full - 1 + r, r) if t_full else 0
    return parked_full + min(remainder, doubled_in_partial)


def optimality(pegs: int) -> tuple[bool | None, str]:
    """(optimal flag, words) for a Frame–Stewart transfer on ``pegs`` pegs."""
    if pegs == 3:
        return True, "optimal (proven: 2**n - 1 for 3 pegs)"
    if pegs == 4:
        return True, "optimal (Frame–Stewart, proven for 4 pegs by Bousch 2014)"
    return None, f"Frame–Stewart length, conjectured optimal for {pegs} pegs (proven only for 3 and 4)"


class FrameStewartTower(Tower):
    """Frame–Stewart transfer of the perfect tower ``labels`` from ``src`` to ``dst`` using the pegs ``free``."""

    def __init__(self, labels: Sequence[int], src: int, dst: int, free: Sequence[int]) -> None:
        super().__init__(labels, src, dst)
        self.free = tuple(free)

    def block_key(self) -> tuple[object, ...]:
        """Class, disks, source, target and the pegs it may use."""
        return (*super().block_key(), self.free)

    def renamed(self) -> tuple[Tower, Sequence[int], Sequence[int]] | None:
        """The same transfer of disks 1..m over pegs 0..p-1 (the source and target at their places in ``free``),
        renamed onto this tower's disks and pegs: the split depends only on m and p, the spare pegs on their order."""
        m, free = len(self.labels), self.free
        if self.labels == range(1, m + 1) and free == tuple(range(len(free))):
            return None
        canonical = FrameStewartTower(range(1, m + 1), free.index(self.src), free.index(self.dst), range(len(free)))
        return canonical, self.labels, free

    @property
    def length(self) -> int:
        """FS_p(m) for m disks on p = len(free) pegs."""
        return fs_count(len(self.labels), len(self.free))

    def parts(self) -> Sequence[Transfer]:
        """Park the top k disks on a spare peg, move the rest without it, bring the k disks back."""
        m = len(self.labels)
        if m == 0:
            return ()
        if m == 1:
            return (Step(Move(self.labels[0], self.src, self.dst)),)
        spare = next(p for p in self.free if p not in (self.src, self.dst))
        if len(self.free) == 3:
            return (ClassicTower(self.labels, self.src, self.dst, spare),)
        k = fs_split(m, len(self.free))
        fewer = tuple(p for p in self.free if p != spare)
        top, bottom = self.labels[:k], self.labels[k:]
        return (
            tower(top, self.src, spare, self.free),
            tower(bottom, self.src, self.dst, fewer),
            tower(top, spare, self.dst, self.free),
        )


def tower(labels: Sequence[int], src: int, dst: int, free: Sequence[int]) -> Tower:
    """The best known transfer of a perfect tower using the pegs ``free``: classic on 3, Frame–Stewart on more."""
    if len(free) == 3:
        aux = next(p for p in free if p not in (src, dst))
        return ClassicTower(labels, src, dst, aux)
    return FrameStewartTower(labels, src, dst, free)


def tower_plan(n_disks: int, src: int, dst: int, rules: Rules) -> TransferPlan:
    """Plan moving the perfect tower of ``n_disks`` from peg ``src`` to ``dst`` under classic rules."""
    start = State.tower(n_disks, src, rules.pegs)
    goal = State.tower(n_disks, dst, rules.pegs)
    optimal, note = optimality(rules.pegs)
    root = tower(range(1, n_disks + 1), src, dst, range(rules.pegs)) if src != dst else ClassicTower((), 0, 0, 0)
    method = "classic" if rules.pegs == 3 else "frame-stewart"
    return TransferPlan(start, goal, rules, root, method=method, optimal=optimal, note=note)
