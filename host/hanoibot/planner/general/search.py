"""Exact shortest-path search over board states, for any rules and peg count.

States are plain integers (no tuples of lists in the visited set):

* :class:`RegularCodec` — regular states only: ``sum peg(d) * pegs**(d-1)``; a move adds
  ``(dst - src) * pegs**(d-1)``.
* :class:`StackCodec` — any state, also irregular stacks: the stacks bottom first as digits in base
  ``n + 1``, each stack closed by a 0 digit.

:func:`shortest_path` runs a breadth-first search from the start, or a bidirectional one (both ends a level at a
time, the best meeting over a whole level) when every move can be undone by a move under the same rules — that
is between regular states without one-way (cyclic) moves. Both stop with
:class:`~hanoibot.errors.SearchLimitExceeded` once more than ``max_states`` states have been seen.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterator

from ...errors import PlanError, SearchLimitExceeded
from ...puzzle import Move, Rules, State
from ..base import Plan
from ..request import DEFAULT_MAX_STATES


class RegularCodec:
    """Regular states as ``sum peg(d) * pegs**(d-1)``."""

    def __init__(self, n_disks: int, rules: Rules) -> None:
        self.n_disks = n_disks
        self.rules = rules
        self.pegs = rules.pegs
        self.weights = [self.pegs**d for d in range(n_disks)]
        self.targets = [[dst for dst in range(self.pegs) if rules.allows(src, dst)] for src in range(self.pegs)]

    def encode(self, state: State) -> int:
        """The code of a regular ``state``."""
        return sum(peg * self.weights[i] for i, peg in enumerate(state.pegs_of_disks()))

    def decode(self, code: int) -> State:
        """The state of ``code``."""
        where = []
        for _ in range(self.n_disks):
            code, peg = divmod(code, self.pegs)
            where.append(peg)
        return State.from_pegs(where, self.pegs)

    def successors(self, code: int) -> Iterator[tuple[Move, int]]:
        """Every legal move from ``code`` with the resulting code."""
        pegs = self.pegs
        tops: list[int | None] = [None] * pegs
        rest = code
        seen = 0
        for disk in range(1, self.n_disks + 1):
            rest, peg = divmod(rest, pegs)
            if tops[peg] is None:
                tops[peg] = disk
                seen += 1
                if seen == pegs:
                    break
        for src in range(pegs):
            top = tops[src]
            if top is None:
                continue
            weight = self.weights[top - 1]
            for dst in self.targets[src]:
                onto = tops[dst]
                if onto is None or onto > top:
                    yield Move(top, src, dst), code + (dst - src) * weight


class StackCodec:
    """Any state (irregular stacks too) as its stacks, bottom first, in base ``n + 1`` with 0 closing a stack."""

    def __init__(self, n_disks: int, rules: Rules) -> None:
        self.n_disks = n_disks
        self.rules = rules
        self.base = n_disks + 1
        self.targets = [[dst for dst in range(rules.pegs) if rules.allows(src, dst)] for src in range(rules.pegs)]

    def _pack(self, stacks: list[list[int]] | tuple[tuple[int, ...], ...]) -> int:
        code = 0
        for stack in reversed(stacks):
            code = code * self.base  # the closing 0 of this stack
            for disk in reversed(stack):
                code = code * self.base + disk
        return code

    def _unpack(self, code: int) -> list[list[int]]:
        stacks: list[list[int]] = []
        for _ in range(self.rules.pegs):
            stack = []
            while True:
                code, digit = divmod(code, self.base)
                if not digit:
                    break
                stack.append(digit)
            stacks.append(stack)
        return stacks

    def encode(self, state: State) -> int:
        """The code of ``state``."""
        return self._pack(state.stacks)

    def decode(self, code: int) -> State:
        """The state of ``code``."""
        return State(self._unpack(code))

    def successors(self, code: int) -> Iterator[tuple[Move, int]]:
        """Every legal move from ``code`` with the resulting code."""
        stacks = self._unpack(code)
        may_land = self.rules.may_land
        n = self.n_disks
        for src, stack in enumerate(stacks):
            if not stack:
                continue
            disk = stack.pop()
            for dst in self.targets[src]:
                target = stacks[dst]
                if may_land(disk, target[-1] if target else None, n):
                    target.append(disk)
                    yield Move(disk, src, dst), self._pack(stacks)
                    target.pop()
            stack.append(disk)


Codec = RegularCodec | StackCodec


def make_codec(n_disks: int, rules: Rules, states: Collection[State]) -> Codec:
    """The compact codec when every state involved is regular and the rules keep it so, else the general one."""
    if not rules.big_on_top and all(state.is_regular for state in states):
        return RegularCodec(n_disks, rules)
    return StackCodec(n_disks, rules)


class SearchPlan(Plan):
    """A plan found by exact search: a short stored list of moves, optimal by construction."""

    method = "search"

    def __init__(self, start: State, goal: State, rules: Rules, moves: list[Move], visited: int) -> None:
        super().__init__(
            start,
            goal,
            rules,
            len(moves),
            optimal=True,
            note=f"optimal (proven by exact search over {visited} states)",
        )
        self.moves = moves
        self.visited = visited

    def move_at(self, k: int) -> Move:
        """Move ``k`` (0-based), O(1)."""
        return self.moves[self.check_index(k)]

    def moves_from(self, k: int) -> Iterator[Move]:
        """Moves from ``k`` on (none when ``k == length``)."""
        self.check_index(k, allow_end=True)
        return iter(self.moves[k:])


def _limit_error(visited: int, max_states: int, rules: Rules) -> SearchLimitExceeded:
    return SearchLimitExceeded(
        f"exact search for {rules.name} rules on {rules.pegs} pegs needed more than {max_states} states "
        f"(seen {visited}): raise --max-states or use fewer disks"
    )


def _path(parents: dict[int, int], code: int) -> list[int]:
    """Codes from the root of ``parents`` to ``code``."""
    chain = [code]
    while parents[chain[-1]] != chain[-1]:
        chain.append(parents[chain[-1]])
    chain.reverse()
    return chain


def _moves_along(codec: Codec, codes: list[int]) -> list[Move]:
    moves = []
    for here, there in itertools.pairwise(codes):
        moves.append(next(move for move, code in codec.successors(here) if code == there))
    return moves


def _forward(codec: Codec, start: int, goals: set[int], max_states: int) -> tuple[list[int], int]:
    parents = {start: start}
    if start in goals:
        return [start], 1
    frontier = [start]
    while frontier:
        upcoming = []
        for code in frontier:
            for _, nxt in codec.successors(code):
                if nxt in parents:
                    continue
                parents[nxt] = code
                if nxt in goals:
                    return _path(parents, nxt), len(parents)
                upcoming.append(nxt)
            if len(parents) > max_states:
                raise _limit_error(len(parents), max_states, codec.rules)
        frontier = upcoming
    raise PlanError(
        f"the goal cannot be reached under {codec.rules.name} rules (all {len(parents)} reachable states searched)"
    )


def _bidirectional(codec: Codec, start: int, goal: int, max_states: int) -> tuple[list[int], int]:
    sides = ({start: start}, {goal: goal})
    frontiers = ([start], [goal])
    if start == goal:
        return [start], 1
    while frontiers[0] and frontiers[1]:
        side = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
        mine, other = sides[side], sides[1 - side]
        upcoming = []
        best: tuple[int, int] | None = None
        for code in frontiers[side]:
            for _, nxt in codec.successors(code):
                if nxt in mine:
                    continue
                mine[nxt] = code
                upcoming.append(nxt)
                if nxt in other:
                    depth = len(_path(other, nxt))
                    if best is None or depth < best[0]:
                        best = (depth, nxt)
            if len(mine) + len(other) > max_states:
                raise _limit_error(len(mine) + len(other), max_states, codec.rules)
        if best is not None:
            meet = best[1]
            head, tail = _path(sides[0], meet), _path(sides[1], meet)
            return head + tail[-2::-1], len(mine) + len(other)
        frontiers = (upcoming, frontiers[1]) if side == 0 else (frontiers[0], upcoming)
    raise PlanError(f"the goal cannot be reached under {codec.rules.name} rules")


def distances_from(start: State, rules: Rules, *, max_states: int = DEFAULT_MAX_STATES) -> dict[int, int]:
    """Moves from ``start`` to every reachable state, keyed by the code of :func:`make_codec` for ``[start]``.

    A plain breadth-first sweep of the whole reachable space (the all-pairs oracle of the tests).
    """
    codec = make_codec(start.n_disks, rules, [start])
    first = codec.encode(start)
    depth = {first: 0}
    frontier = [first]
    level = 0
    while frontier:
        level += 1
        upcoming = []
        for code in frontier:
            for _, nxt in codec.successors(code):
                if nxt not in depth:
                    depth[nxt] = level
                    upcoming.append(nxt)
        if len(depth) > max_states:
            raise _limit_error(len(depth), max_states, rules)
        frontier = upcoming
    return depth


def shortest_path(
    start: State,
    goals: Collection[State],
    rules: Rules,
    *,
    max_states: int = DEFAULT_MAX_STATES,
) -> SearchPlan:
    """A shortest plan from ``start`` to the nearest of ``goals`` (bidirectional when moves are reversible)."""
    if max_states < 1:
        raise PlanError(f"state limit {max_states} is too small: expected at least 1")
    codec = make_codec(start.n_disks, rules, [start, *goals])
    start_code = codec.encode(start)
    goal_codes = {codec.encode(goal) for goal in goals}
    # Every move can be undone when no stack starts irregular and moves are not one-way: search from both ends.
    symmetric = rules.topology != "cyclic" and start.is_regular and all(goal.is_regular for goal in goals)
    if symmetric and len(goal_codes) == 1:
        codes, visited = _bidirectional(codec, start_code, next(iter(goal_codes)), max_states)
    else:
        codes, visited = _forward(codec, start_code, goal_codes, max_states)
    return SearchPlan(start, codec.decode(codes[-1]), rules, _moves_along(codec, codes), visited)
