"""Valid plans between regular states on 4 to 26 pegs when the state space is too large for exact search.

As in the 3-peg case, disks above the largest differing disk ``d`` stay put. The smaller disks gather on a spare
peg ``c`` (:func:`~hanoibot.planner.general.gather.gather`, Frame–Stewart towers), ``d`` moves once, and the goal's
small disks are built from ``c`` by the reverse of gathering them there; every spare peg is tried and the
shortest plan kept. Labelled "not proven optimal": the optimum between arbitrary states on 4+ pegs is only
known by search.
"""

from __future__ import annotations

from ...puzzle import Move, Rules, State
from .gather import gather
from .transfer import Seq, Step, Transfer, TransferPlan

MULTIPEG_NOTE = "valid plan, not proven optimal (too many states for exact search on 4+ pegs)"


def _between(a: tuple[int, ...], b: tuple[int, ...], pegs: int) -> Transfer:
    """Shortest of the one-move-of-``d`` runs from pegs ``a`` to pegs ``b`` over every spare peg."""
    i = next((i for i in range(len(a) - 1, -1, -1) if a[i] != b[i]), -1)
    if i < 0:
        return Seq(())
    s, t = a[i], b[i]
    small = range(1, i + 1)
    runs = [
        Seq((gather(small, a[:i], c, pegs), Step(Move(i + 1, s, t)), gather(small, b[:i], c, pegs).reversed()))
        for c in range(pegs)
        if c not in (s, t)
    ]
    return min(runs, key=lambda run: run.length)


def multipeg_plan(start: State, goal: State | None, rules: Rules) -> TransferPlan:
    """A valid plan from ``start`` to ``goal`` (None: the nearest perfect tower) on 4+ pegs, classic rules."""
    a = start.pegs_of_disks()
    pegs = rules.pegs
    if goal is None:
        everything = range(1, start.n_disks + 1)
        run, peg = min(
            ((gather(everything, a, peg, pegs), peg) for peg in range(pegs)), key=lambda pair: pair[0].length
        )
        goal = State.tower(start.n_disks, peg, pegs)
    else:
        run = _between(a, goal.pegs_of_disks(), pegs)
    return TransferPlan(start, goal, rules, run, method="gather", optimal=False, note=MULTIPEG_NOTE)
