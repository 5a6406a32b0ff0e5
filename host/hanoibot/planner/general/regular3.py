"""Optimal plans between any two regular states on 3 pegs (classic rules).

Let ``d`` be the largest disk whose peg differs (``s`` in the start, ``t`` in the goal, ``x`` the third peg).
Disks above ``d`` never move. In an optimal solution ``d`` moves once or twice (A. M. Hinz, "Shortest paths
between regular states of the Tower of Hanoi", Inform. Sci. 63 (1992) 173–181):

* once: gather disks ``1..d-1`` on ``x``, move ``d`` s→t, then the reverse of gathering the goal's small disks
  on ``x``;
* twice: gather on ``t``, move ``d`` s→x, move the tower t→s (2**(d-1) - 1), move ``d`` x→t, then the reverse
  of gathering the goal's small disks on ``s``.

Both lengths are counted in O(n) (:func:`~hanoibot.planner.general.gather.gather_length3`) and the shorter is taken;
when they tie there are exactly two optimal solutions and both are offered.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...puzzle import Move, Rules, State
from .gather import gather, gather_length3
from .transfer import ClassicTower, Seq, Step, Transfer, TransferPlan

_NOTE = "optimal (proven: Hinz's shortest paths between regular states, 3 pegs)"


def _largest_difference(a: Sequence[int], b: Sequence[int]) -> int:
    """Index (0-based) of the largest disk on different pegs in ``a`` and ``b``, or -1 if they are equal."""
    for i in range(len(a) - 1, -1, -1):
        if a[i] != b[i]:
            return i
    return -1


def candidate_lengths(a: Sequence[int], b: Sequence[int]) -> tuple[int, int | None]:
    """Lengths of the one-move and two-move candidates from pegs ``a`` to pegs ``b`` (None: no second)."""
    i = _largest_difference(a, b)
    if i < 0:
        return 0, None
    s, t = a[i], b[i]
    x = 3 - s - t
    once = gather_length3(a[:i], x) + 1 + gather_length3(b[:i], x)
    twice = gather_length3(a[:i], t) + 1 + ((1 << i) - 1) + 1 + gather_length3(b[:i], s)
    return once, twice


def count_regular3(start: State, goal: State) -> int:
    """Length of the shortest plan between two regular 3-peg states, in O(n) without generating moves."""
    once, twice = candidate_lengths(start.pegs_of_disks(), goal.pegs_of_disks())
    return once if twice is None else min(once, twice)


def count_to_nearest_tower(start: State) -> tuple[int, int]:
    """(moves, peg) of the nearest perfect tower from a regular 3-peg state, in O(n); ties go to the lower peg."""
    a = start.pegs_of_disks()
    return min((gather_length3(a, peg), peg) for peg in range(3))


def _candidates(a: Sequence[int], b: Sequence[int]) -> list[tuple[int, Transfer]]:
    """The shortest candidate runs with their length (two on a tie); only the winners are built."""
    i = _largest_difference(a, b)
    if i < 0:
        return [(0, Seq(()))]
    s, t = a[i], b[i]
    x = 3 - s - t
    disk = i + 1
    small = range(1, disk)
    once, twice = candidate_lengths(a, b)
    best = once if twice is None else min(once, twice)
    found: list[tuple[int, Transfer]] = []
    if once == best:
        run_once = Seq(
            (gather(small, a[:i], x, 3), Step(Move(disk, s, t)), gather(small, b[:i], x, 3).reversed()),
            length=once,
        )
        found.append((once, run_once))
    if twice == best:
        run_twice = Seq(
            (
                gather(small, a[:i], t, 3),
                Step(Move(disk, s, x)),
                ClassicTower(small, t, s, x),
                Step(Move(disk, x, t)),
                gather(small, b[:i], s, 3).reversed(),
            ),
            length=twice,
        )
        found.append((twice, run_twice))
    return found


def regular3_plan(start: State, goal: State, rules: Rules) -> TransferPlan:
    """Optimal plan between two regular states on 3 pegs; ``all_optimal()`` holds both plans on a tie."""
    runs = _candidates(start.pegs_of_disks(), goal.pegs_of_disks())
    plans = [
        TransferPlan(start, goal, rules, run, method="hinz", optimal=True, note=_NOTE, length=length)
        for length, run in runs
    ]
    plans[0].alternatives = tuple(plans[1:])
    return plans[0]


def nearest_tower_plan(start: State, rules: Rules) -> TransferPlan:
    """Optimal plan from a regular 3-peg state to the nearest perfect tower (the greedy gather)."""
    length, peg = count_to_nearest_tower(start)
    goal = State.tower(start.n_disks, peg, 3)
    run = gather(range(1, start.n_disks + 1), start.pegs_of_disks(), peg, 3)
    return TransferPlan(start, goal, rules, run, method="greedy", optimal=True, note=_NOTE, length=length)
