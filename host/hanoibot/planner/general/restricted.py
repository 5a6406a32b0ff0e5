"""Optimal perfect-tower transfers on 3 pegs under restricted moves: linear, cyclic and big-on-top.

* ``linear`` (A<->B<->C): end to end takes 3**m - 1 moves, to or from the middle (3**m - 1) / 2 — the tower
  goes end to end, the disk steps, the tower comes back (Scorer, Grundy, Smith, "Some binary games",
  Math. Gazette 28 (1944)).
* ``cyclic`` (A->B->C->A): one step Q(m) = 2 R(m-1) + 1, two steps R(m) = 2 R(m-1) + Q(m-1) + 2
  (M. D. Atkinson, "The cyclic towers of Hanoi", Inform. Process. Lett. 13 (1981); OEIS A005665 / A005666).
* ``big-on-top`` (linear, and the largest disk may sit on smaller ones): no closed form is known to us, so the
  optimum comes from exact search (:mod:`hanoibot.planner.general.search`) while the state space is small. Past that,
  :func:`big_on_top_run` gives a valid plan, labelled "not proven optimal": end to end, the small tower goes to
  the middle and the largest disk hops over it (3**(m-1) + 1 moves); end to middle, the tower of m-2 disks goes
  end to end, the two largest disks swap places in six hops, the small tower follows ((3**(m-1) + 9) / 2 moves,
  equal to the search optimum for 3 <= m <= 9 in the tests); middle to end is that run backwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from ...errors import PlanError
from ...puzzle import Move, Rules, State
from .transfer import Seq, Step, Tower, Transfer, TransferPlan

BIG_ON_TOP_NOTE = "valid big-on-top transfer, not proven optimal (too many states for exact search)"


class LinearTower(Tower):
    """Optimal transfer of a perfect tower between two pegs of the line A-B-C (only neighbours exchange disks)."""

    @property
    def length(self) -> int:
        """3**m - 1 end to end, half that when the middle peg is involved."""
        full: int = 3 ** len(self.labels) - 1  # a power of a non-literal exponent is typed Any
        return full if {self.src, self.dst} == {0, 2} else full // 2

    def parts(self) -> Sequence[Transfer]:
        """End to end: tower over, disk to the middle, tower back, disk on, tower over; else one hop."""
        if not self.labels:
            return ()
        rest, disk = self.labels[:-1], self.labels[-1]
        src, dst = self.src, self.dst
        if {src, dst} == {0, 2}:
            return (
                LinearTower(rest, src, dst),
                Step(Move(disk, src, 1)),
                LinearTower(rest, dst, src),
                Step(Move(disk, 1, dst)),
                LinearTower(rest, src, dst),
            )
        third = 3 - src - dst
        return (LinearTower(rest, src, third), Step(Move(disk, src, dst)), LinearTower(rest, third, dst))


@cache
def cyclic_lengths(m: int) -> tuple[int, int]:
    """(Q(m), R(m)): moves of a one-step and a two-step cyclic transfer of m disks."""
    one, two = 0, 0
    for _ in range(m):
        one, two = 2 * two + 1, 2 * two + one + 2
    return one, two


class CyclicTower(Tower):
    """Optimal transfer of a perfect tower when disks move only one way round, A->B->C->A."""

    @property
    def length(self) -> int:
        """Q(m) one step round, R(m) two steps round."""
        one, two = cyclic_lengths(len(self.labels))
        return one if (self.dst - self.src) % 3 == 1 else two

    def parts(self) -> Sequence[Transfer]:
        """One step: tower two steps on, disk, tower two steps on. Two steps: the 5-part R recursion."""
        if not self.labels:
            return ()
        rest, disk = self.labels[:-1], self.labels[-1]
        src, dst = self.src, self.dst
        middle = (src + 1) % 3
        if dst == middle:
            other = (src + 2) % 3
            return (CyclicTower(rest, src, other), Step(Move(disk, src, dst)), CyclicTower(rest, other, dst))
        return (
            CyclicTower(rest, src, dst),
            Step(Move(disk, src, middle)),
            CyclicTower(rest, dst, src),
            Step(Move(disk, middle, dst)),
            CyclicTower(rest, src, dst),
        )

    def reversed(self) -> Transfer:
        """Cyclic moves cannot be turned round."""
        raise PlanError("a cyclic transfer cannot be played backwards: cyclic moves go one way round only")


def big_on_top_run(n_disks: int, src: int, dst: int) -> Transfer:
    """A valid (not proven optimal) big-on-top transfer of the perfect tower from ``src`` to ``dst`` (3 pegs)."""
    if {src, dst} == {0, 2}:
        small = range(1, n_disks)
        return Seq(
            (
                LinearTower(small, src, 1),
                Step(Move(n_disks, src, 1)),
                Step(Move(n_disks, 1, dst)),
                LinearTower(small, 1, dst),
            )
        )
    if n_disks < 3:
        return LinearTower(range(1, n_disks + 1), src, dst)
    if src == 1:
        return big_on_top_run(n_disks, dst, src).reversed()
    far = 2 - src
    big, second = n_disks, n_disks - 1
    hops = [(second, src, 1), (big, src, 1), (big, 1, far), (second, 1, src), (big, far, 1), (second, src, 1)]
    small = range(1, n_disks - 1)
    return Seq(
        (
            LinearTower(small, src, far),
            *(Step(Move(*hop)) for hop in hops),
            LinearTower(small, far, 1),
        )
    )


def count_big_on_top_run(n_disks: int, src: int, dst: int) -> int:
    """Length of :func:`big_on_top_run`, in closed form."""
    if src == dst:
        return 0
    power: int = 3 ** (n_disks - 1)  # a power of a non-literal exponent is typed Any
    if {src, dst} == {0, 2}:
        return power + 1
    if n_disks < 3:
        return (3 * power - 1) // 2
    return (power + 9) // 2


def count_restricted_tower(n_disks: int, src: int, dst: int, rules: Rules) -> int:
    """Moves of the optimal perfect-tower transfer under ``rules`` (3 pegs, restricted), without building it."""
    if src == dst:
        return 0
    if rules.big_on_top:
        return count_big_on_top_run(n_disks, src, dst)
    if rules.topology == "cyclic":
        one, two = cyclic_lengths(n_disks)
        return one if (dst - src) % 3 == 1 else two
    return LinearTower(range(n_disks), src, dst).length


def restricted_tower_plan(n_disks: int, src: int, dst: int, rules: Rules) -> TransferPlan:
    """Optimal plan moving the perfect tower from ``src`` to ``dst`` under linear, cyclic or big-on-top rules."""
    labels = range(1, n_disks + 1)
    root: Transfer
    if src == dst:
        root = Seq(())
    elif rules.big_on_top:
        root = big_on_top_run(n_disks, src, dst)
    elif rules.topology == "cyclic":
        root = CyclicTower(labels, src, dst)
    else:
        root = LinearTower(labels, src, dst)
    start = State.tower(n_disks, src, 3)
    goal = State.tower(n_disks, dst, 3)
    if rules.big_on_top:
        return TransferPlan(
            start, goal, rules, root, method=rules.name, optimal=False, note=BIG_ON_TOP_NOTE, regular=False
        )
    note = f"optimal (proven for {rules.name} rules on 3 pegs)"
    return TransferPlan(start, goal, rules, root, method=rules.name, optimal=True, note=note)
