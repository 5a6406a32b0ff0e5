"""Shuffled towers: from any board, irregular stacks included, to a perfect tower (classic rules, any pegs).

A move obeys the size rule against the disk it lands on, so a larger disk that already sits on a smaller one may
stay there until it is moved, but no new such pair is ever made. The strategy (our design) gathers a set ``S`` of
disks into a sorted tower on a peg ``x``, recursively. It needs every disk outside ``S`` that touches ``S`` —
directly below the part of a stack made of ``S``, or on top of a stack — to be larger than all of ``S``
(such disks act as floors). Let ``m`` be the largest disk of ``S``, on peg ``q``, and ``B`` the disks of ``S``
buried under ``m``:

* ``S`` regular: the greedy gather of :mod:`hanoibot.planner.general.gather` (optimal on 3 pegs).
* ``B`` empty: ``m`` rests on a floor. If ``q == x`` gather ``S - {m}`` on ``x``; otherwise gather it on a spare
  peg, move ``m`` to ``x`` and bring the sorted rest over as a perfect tower (classic or Frame–Stewart).
* ``B`` not empty: gather ``S - B - {m}`` on a spare peg ``y``, move ``m`` to the peg ``z`` that holds no disk of
  ``S`` (``x`` when ``q != x``), which frees ``B``; then gather ``S - {m}`` — on ``x`` when ``m`` is already
  there, else on ``y`` followed by ``m`` to ``x`` and the tower ``y`` -> ``x``.

Each call recurses on strictly smaller sets and the first recursive call of the buried case leaves a sorted tower
that the second call meets as a regular part, so the number of calls, and the planning time, stay polynomial
(about n**2 calls of O(n·pegs) each). The plan is valid but not proven optimal; small boards are solved exactly
by search instead (see :mod:`hanoibot.planner.general`).
"""

from __future__ import annotations

import itertools

from ...errors import PlanError
from ...puzzle import Move, Rules, State
from .frame_stewart import tower
from .gather import gather
from .transfer import Seq, Step, Transfer, TransferPlan

#: Largest shuffled board the strategy takes (its recursion is one level per disk, and planning is ~n**3).
SHUFFLED_MAX_DISKS = 1000

SHUFFLED_NOTE = "valid plan for a shuffled board, not proven optimal (too many states for exact search)"


class _Board:
    """A mutable board that records the runs played on it."""

    def __init__(self, state: State) -> None:
        self.stacks = [list(stack) for stack in state.stacks]
        self.pegs = state.pegs
        self.runs: list[Transfer] = []

    def peg_of(self, disk: int) -> int:
        return next(p for p, stack in enumerate(self.stacks) if disk in stack)

    def step(self, disk: int, src: int, dst: int) -> None:
        """Move the top disk of ``src`` (which must be ``disk``) to ``dst``."""
        self.stacks[dst].append(self.stacks[src].pop())
        self.runs.append(Step(Move(disk, src, dst)))

    def settle(self, disks: set[int], peg: int, run: Transfer) -> None:
        """Record ``run``, after which ``disks`` (the top parts of the stacks) form a sorted tower on ``peg``."""
        for stack in self.stacks:
            while stack and stack[-1] in disks:
                stack.pop()
        self.stacks[peg].extend(sorted(disks, reverse=True))
        self.runs.append(run)

    def spare(self, *avoid: int) -> int:
        """The lowest-numbered peg not in ``avoid``."""
        return next(p for p in range(self.pegs) if p not in avoid)


def _s_part(stack: list[int], disks: set[int]) -> list[int]:
    """The top part of ``stack`` made of ``disks`` (bottom first)."""
    start = len(stack)
    while start and stack[start - 1] in disks:
        start -= 1
    return stack[start:]


def _gather_set(board: _Board, disks: set[int], target: int) -> None:
    """Gather ``disks`` (the top parts of the stacks; touching disks are floors) into a sorted tower on ``target``."""
    if not disks:
        return
    parts = [_s_part(stack, disks) for stack in board.stacks]
    if all(all(a > b for a, b in itertools.pairwise(part)) for part in parts):
        labels = sorted(disks)
        where = {disk: peg for peg, part in enumerate(parts) for disk in part}
        board.settle(disks, target, gather(labels, [where[d] for d in labels], target, board.pegs))
        return
    biggest = max(disks)
    home = board.peg_of(biggest)
    part = parts[home]
    buried = set(part[: part.index(biggest)])
    rest = disks - {biggest}
    if not buried:
        if home == target:
            _gather_set(board, rest, target)
            return
        spare = board.spare(home, target)
        _gather_set(board, rest, spare)
        board.step(biggest, home, target)
        board.settle(rest, target, tower(sorted(rest), spare, target, range(board.pegs)))
        return
    parked = rest - buried
    spare = board.spare(home, target)
    free_peg = target if home != target else board.spare(home, spare)
    _gather_set(board, parked, spare)
    board.step(biggest, home, free_peg)
    if free_peg == target:
        _gather_set(board, rest, target)
        return
    _gather_set(board, rest, spare)
    board.step(biggest, free_peg, target)
    board.settle(rest, target, tower(sorted(rest), spare, target, range(board.pegs)))


def shuffled_run(start: State, target: int) -> Transfer:
    """A valid run from ``start`` (any stacks) to the perfect tower on ``target`` under classic rules."""
    board = _Board(start)
    _gather_set(board, set(range(1, start.n_disks + 1)), target)
    return Seq(board.runs)


def shuffled_plan(start: State, target: int | None, rules: Rules) -> TransferPlan:
    """Plan from a shuffled ``start`` to the perfect tower on ``target`` (None: the one needing fewest moves)."""
    if rules.topology != "any" or rules.big_on_top:
        raise PlanError(
            f"shuffled (irregular) boards are planned for classic rules only, not {rules.name}, "
            "beyond exact search: raise --max-states or use --rules classic"
        )
    if start.n_disks > SHUFFLED_MAX_DISKS:
        raise PlanError(
            f"a shuffled board of {start.n_disks} disks is too large to plan: "
            f"expected at most {SHUFFLED_MAX_DISKS} disks when some disk sits on a smaller one"
        )
    targets = range(start.pegs) if target is None else (target,)
    best = min(((shuffled_run(start, peg), peg) for peg in targets), key=lambda pair: pair[0].length)
    run, peg = best
    goal = State.tower(start.n_disks, peg, start.pegs)
    return TransferPlan(
        start, goal, rules, run, method="shuffled", optimal=False, note=SHUFFLED_NOTE, regular=start.is_regular
    )
