"""Exact A* search from a shuffled board (a larger disk on a smaller one) to a regular goal, classic rules.

Irregular pairs (a disk above a smaller one in the same stack) are never made, only undone, so every solution
passes through a first regular state ``r``. On 3 pegs the distance from ``r`` to the goal is known exactly
(Hinz, :mod:`.regular3`, O(n)), so the search expands irregular states only: a regular successor is a *terminal*
whose cost is its depth plus that exact distance, and its plan is the search's prefix followed by the lazy regular
plan. On 4+ pegs only the goal itself is terminal.

The heuristic is admissible and consistent (it never overestimates and drops by at most 1 per move):

* Let ``k`` be one more than the largest disk that has a larger disk somewhere above it. Leaving out the disks
  below ``k`` maps every legal move to a legal move (or to none) of the regular board of disks ``k..n``, so on
  3 pegs the exact regular distance of that smaller board bounds the moves of disks ``k..n``.
* Every disk below ``k`` (on 4+ pegs: every disk) that is not yet in its goal place moves at least once.

The two bounds count moves of different disks, so their sum is a lower bound. The search keeps the states it has
seen under ``max_states``; when it stops there, the smallest ``f = g + h`` still open is a proven lower bound on
the optimum, which the caller states beside a fallback plan.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from typing import NamedTuple

from ...puzzle import Move, Rules, State
from .regular3 import candidate_lengths, regular3_plan
from .transfer import Seq, Step, Transfer, TransferPlan

Stacks = tuple[tuple[int, ...], ...]


class SearchResult(NamedTuple):
    """What the search proved: the optimal ``plan`` (None if it stopped at the limit), a lower bound, states seen."""

    plan: TransferPlan | None
    lower_bound: int
    visited: int


def _pegs_of(stacks: Stacks, n_disks: int) -> list[int]:
    """Peg of disk ``d`` at index ``d - 1``."""
    where = [0] * n_disks
    for peg, stack in enumerate(stacks):
        for disk in stack:
            where[disk - 1] = peg
    return where


def _regular_from(stacks: Stacks) -> int:
    """One more than the largest disk with a larger disk above it (0 for a regular board)."""
    worst = 0
    for stack in stacks:
        above = 0
        for disk in reversed(stack):
            if above > disk > worst:
                worst = disk
            above = max(above, disk)
    return worst + 1 if worst else 0


class _Goal:
    """One regular goal: its pegs per disk, and its peg when it is a perfect tower."""

    def __init__(self, goal: State) -> None:
        self.state = goal
        self.pegs_of = goal.pegs_of_disks()
        self.n_disks = goal.n_disks
        last = goal.peg_of(goal.n_disks)
        self.tower_peg = last if goal.height(last) == goal.n_disks else None

    def misplaced_below(self, stacks: Stacks, where: Sequence[int], limit: int) -> int:
        """How many disks below ``limit`` (all disks for ``limit`` 0) must still move at least once."""
        top = self.n_disks + 1 if limit == 0 else limit
        count = sum(1 for d in range(1, top) if where[d - 1] != self.pegs_of[d - 1])
        if self.tower_peg is not None:
            stack = stacks[self.tower_peg]
            settled = 0
            while settled < len(stack) and stack[settled] == self.n_disks - settled:
                settled += 1
            count += sum(1 for disk in stack[settled:] if disk < top)
        return count

    def exact3(self, where: Sequence[int], first: int) -> int:
        """Exact 3-peg distance of the regular board of disks ``first..n`` to this goal's disks ``first..n``."""
        once, twice = candidate_lengths(where[first - 1 :], self.pegs_of[first - 1 :])
        return once if twice is None else min(once, twice)

    def estimate3(self, stacks: Stacks, where: Sequence[int], first: int) -> int:
        """3 pegs: the exact distance of disks ``first..n`` plus one move per misplaced smaller disk (see above)."""
        peg = self.tower_peg
        if peg is None:
            return self.exact3(where, first) + self.misplaced_below(stacks, where, first)
        n = self.n_disks
        cost = 0
        goal = peg
        for disk in range(n, first - 1, -1):
            here = where[disk - 1]
            if here != goal:
                cost += 1 << (disk - first)
                goal = 3 - here - goal
        stack = stacks[peg]
        settled = 0
        while settled < len(stack) and stack[settled] == n - settled:
            settled += 1
        return cost + (first - 1) - max(0, first - 1 - (n - settled))


def _step_between(before: Stacks, after: Stacks) -> Move:
    """The single move that turns ``before`` into ``after``."""
    src = next(p for p in range(len(before)) if len(after[p]) < len(before[p]))
    dst = next(p for p in range(len(before)) if len(after[p]) > len(before[p]))
    return Move(before[src][-1], src, dst)


class _Search:
    """A* over boards as tuples of stacks (bottom first); see the module docstring."""

    def __init__(self, start: State, goals: Sequence[State], rules: Rules, upper_bound: int | None) -> None:
        self.n_disks = start.n_disks
        self.pegs = start.pegs
        self.rules = rules
        self.start = start
        self.goals = [_Goal(goal) for goal in goals]
        self.goal_stacks = {tuple(tuple(stack) for stack in goal.stacks): goal for goal in goals}
        self.three = self.pegs == 3
        self.upper_bound = upper_bound

    def estimate(self, stacks: Stacks) -> tuple[int, State | None]:
        """(h, None) for a state to expand, or (exact distance, goal) for a terminal one."""
        where = _pegs_of(stacks, self.n_disks)
        first = _regular_from(stacks)
        if self.three and first == 0:
            return min((goal.estimate3(stacks, where, 1), goal.state) for goal in self.goals)
        if not self.three and stacks in self.goal_stacks:
            return 0, self.goal_stacks[stacks]
        if self.three:
            return min(goal.estimate3(stacks, where, first) for goal in self.goals), None
        return min(goal.misplaced_below(stacks, where, 0) for goal in self.goals), None

    def successors(self, stacks: Stacks) -> list[Stacks]:
        """Every board one legal move away."""
        found = []
        for src, stack in enumerate(stacks):
            if not stack:
                continue
            disk = stack[-1]
            rest = stack[:-1]
            for dst, target in enumerate(stacks):
                if dst != src and (not target or target[-1] > disk):
                    board = list(stacks)
                    board[src] = rest
                    board[dst] = (*target, disk)
                    found.append(tuple(board))
        return found

    def run(self, max_states: int) -> SearchResult:
        """A* until the cheapest open entry is terminal (optimal) or more than ``max_states`` boards are seen."""
        first: Stacks = tuple(tuple(stack) for stack in self.start.stacks)
        parents: dict[Stacks, Stacks | None] = {first: None}
        depth = {first: 0}
        counter = 0
        h, goal = self.estimate(first)
        heap: list[tuple[int, int, int, Stacks, State | None]] = [(h, 0, counter, first, goal)]
        while heap:
            f, neg_g, _, stacks, goal = heapq.heappop(heap)
            if -neg_g > depth[stacks]:
                continue
            if goal is not None:
                return SearchResult(self._plan(parents, stacks, goal, f), f, len(parents))
            if len(parents) > max_states:
                return SearchResult(None, f, len(parents))
            g = -neg_g + 1
            for board in self.successors(stacks):
                if depth.get(board, g + 1) <= g:
                    continue
                h, goal = self.estimate(board)
                if self.upper_bound is not None and g + h > self.upper_bound:
                    continue
                parents[board] = stacks
                depth[board] = g
                counter += 1
                heapq.heappush(heap, (g + h, -g, counter, board, goal))
        return SearchResult(None, self.upper_bound or 0, len(parents))

    def _plan(self, parents: dict[Stacks, Stacks | None], last: Stacks, goal: State, length: int) -> TransferPlan:
        """The searched prefix to ``last``, then (3 pegs) the optimal regular plan from ``last`` to ``goal``."""
        chain = [last]
        while (before := parents[chain[-1]]) is not None:
            chain.append(before)
        chain.reverse()
        runs: list[Transfer] = [Step(_step_between(a, b)) for a, b in itertools.pairwise(chain)]
        board = State([list(stack) for stack in last])
        if board != goal:
            runs.append(regular3_plan(board, goal, self.rules).root)
        note = f"optimal (proven by A* search over {len(parents)} states)"
        run = Seq(runs)
        return TransferPlan(
            self.start, goal, self.rules, run, method="search", optimal=True, note=note, regular=False, length=length
        )


def shuffled_search(
    start: State, goals: Sequence[State], rules: Rules, *, max_states: int, upper_bound: int | None = None
) -> SearchResult:
    """Optimal plan from ``start`` to the nearest of the regular ``goals`` under classic ``rules``, within a limit.

    ``upper_bound`` (the length of a known valid plan) lets the search drop boards that cannot beat it; when
    every board is dropped that way, the result has no plan and ``lower_bound == upper_bound``: the known plan
    is optimal.
    """
    return _Search(start, goals, rules, upper_bound).run(max_states)
