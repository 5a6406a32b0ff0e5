"""Plans for coloured towers (:mod:`hanoibot.puzzle.colours`): exact search, and a constructive algorithm for any n.

**Exact search** (:mod:`.colour_search`): size by size, over tables of tower moves by arrangement, never board by
board; optimal, up to :data:`EXACT_SIZES` sizes (bicolor 10, tricolor 5: seconds). Beyond, the construction below,
with a proven lower bound from the same search with the smallest sizes taken as one colour (:func:`lower_bound`).

**Level by level** (constructive, any start and goal, not optimal in general): work from the largest size ``k``
down. While size ``k`` is not in its goal arrangement, every smaller disk is kept as one *block* (all sizes below
``k`` stacked on one peg); a small shortest-path search over (where the size-``k`` disks stand, where the block
stands) finds the cheapest sequence of size-``k`` moves and block moves (a block move costs
``sum(m_i * 2**(k-1-i))`` for ``m_i`` disks of size ``i``; it reverses the order of the block's largest size only).
The block is first gathered by the same algorithm (goal: everything on the chosen peg) and afterwards spread into
its own goal the same way. A board that already is a block going to one peg is moved as a block, so the recursion
is linear in n. The same decisions are replayed symbolically to count the moves without generating them.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from functools import lru_cache

from ..errors import PlanError, SearchLimitExceeded
from ..puzzle import Move
from ..puzzle.colours import ColourState, start_and_goal
from .colour_search import ColourSearch

Arrangement = tuple[tuple[int, ...], ...]
#: A level's goal: an exact arrangement (colours per peg, bottom first) or ``("on", peg)``: all on that peg.
LevelGoal = Arrangement | tuple[str, int]
#: Most sizes the exact search takes, by disks per size (its tables grow as orders per size ** (sizes - 1)).
EXACT_SIZES = {2: 10, 3: 5}
#: Sizes kept in their colours by :func:`lower_bound` (the smaller ones are taken as one colour).
BOUND_SIZES = {2: 8, 3: 4}


def _colours(state: ColourState) -> list[tuple[int, ...]]:
    """The colours of each size's disks (a sorted multiset per size, smallest size first)."""
    return [tuple(sorted(c for peg in level for c in peg)) for level in state.levels]


def _per_size(state: ColourState) -> int:
    """Disks per size (the largest count, for the limits)."""
    return max(len(colours) for colours in _colours(state))


@lru_cache(maxsize=8)
def _search(colours: tuple[tuple[int, ...], ...], blind: int = 0) -> ColourSearch:
    """One search (with its tables) per kind of board: plans between its boards share them."""
    return ColourSearch(colours, blind=blind)


def is_searchable(state: ColourState) -> bool:
    """True if the exact search takes boards like ``state`` (few enough sizes for their disks per size)."""
    return state.sizes <= EXACT_SIZES.get(_per_size(state), 0)


def shortest_moves(start: ColourState, goal: ColourState) -> list[Move]:
    """A shortest move list from ``start`` to ``goal`` by the exact search (SearchLimitExceeded past
    :data:`EXACT_SIZES`; PlanError if the two boards do not hold the same disks)."""
    if _colours(start) != _colours(goal):
        raise PlanError(f"goal {goal} cannot be reached from {start}: they hold other disks")
    if not is_searchable(start):
        limits = ", ".join(f"{count} for {per} disks per size" for per, count in EXACT_SIZES.items())
        raise SearchLimitExceeded(f"exact search of {start.sizes} sizes: expected at most {limits}")
    search = _search(tuple(_colours(start)))
    try:
        return search.moves(start, goal)
    finally:
        search.forget_boards()  # a long-lived caller (the console) asks about many boards: keep only the tables


def lower_bound(start: ColourState, goal: ColourState) -> int:
    """A proven lower bound on the moves from ``start`` to ``goal``: the exact optimum of the same puzzle with the
    disks of all but the :data:`BOUND_SIZES` largest sizes taken as one colour (every plan of the puzzle is a plan
    of that one, so it needs at least as many moves)."""
    blind = max(0, start.sizes - BOUND_SIZES.get(_per_size(start), 0))
    search = _search(tuple(_colours(start)), blind)
    try:
        return search.distance(start, goal)
    finally:
        search.forget_boards()


def _satisfied(arrangement: Arrangement, goal: LevelGoal) -> bool:
    if isinstance(goal[0], str):
        return all(not colours for peg, colours in enumerate(arrangement) if peg != goal[1])
    return arrangement == goal


@lru_cache(maxsize=4096)
def _level_route(
    arrangement: Arrangement, goal: LevelGoal, block_cost: int, has_block: bool
) -> tuple[int, tuple[tuple[str, int, int], ...]]:
    """Cheapest (first block peg, steps) that brings one size's disks to ``goal``; steps are ("disk"|"block",
    src, dst). Dijkstra over (arrangement, block peg); the block starts anywhere and ends anywhere."""
    starts = range(3) if has_block else (-1,)
    queue: list[tuple[int, int, Arrangement, int, tuple[tuple[str, int, int], ...], int]] = []
    for order, block in enumerate(starts):
        heapq.heappush(queue, (0, order, arrangement, block, (), block))
    seen: set[tuple[Arrangement, int]] = set()
    tie = len(queue)
    while queue:
        cost, _, here, block, steps, first = heapq.heappop(queue)
        if _satisfied(here, goal):
            return first, steps
        if (here, block) in seen:
            continue
        seen.add((here, block))
        options: list[tuple[int, Arrangement, int, tuple[str, int, int]]] = []
        for src in range(3):
            if not here[src] or src == block:
                continue
            for dst in range(3):
                if dst not in (src, block):
                    pegs = [list(c) for c in here]
                    pegs[dst].append(pegs[src].pop())
                    options.append((1, tuple(tuple(c) for c in pegs), block, ("disk", src, dst)))
        if has_block:
            for dst in range(3):
                if dst != block:
                    options.append((block_cost, here, dst, ("block", block, dst)))
        for step_cost, there, there_block, step in options:
            if (there, there_block) not in seen:
                tie += 1
                heapq.heappush(queue, (cost + step_cost, tie, there, there_block, (*steps, step), first))
    raise PlanError(f"level arrangement {arrangement} cannot reach {goal}")


class _Board:
    """The levels of a board, mutable, with the level-by-level algorithm emitting moves or just counting them."""

    def __init__(self, state: ColourState, *, count_only: bool) -> None:
        self.levels = [[list(c) for c in level] for level in state.levels]
        self.count_only = count_only
        self.count = 0

    def disk(self, size: int, src: int, dst: int) -> Iterator[Move]:
        level = self.levels[size - 1]
        level[dst].append(level[src].pop())
        self.count += 1
        if not self.count_only:
            yield Move(size, src, dst)

    def block(self, top: int, src: int, dst: int) -> Iterator[Move]:
        """Move sizes 1..top (all on ``src``) to ``dst``: recursively, or symbolically when counting."""
        if top == 0 or src == dst:
            return
        if self.count_only:
            for size in range(1, top + 1):
                level = self.levels[size - 1]
                moved = level[src][::-1] if size == top else level[src]
                self.count += len(level[src]) << (top - size)
                level[dst], level[src] = moved, []
            return
        spare = 3 - src - dst
        yield from self.block(top - 1, src, spare)
        for _ in range(len(self.levels[top - 1][src])):
            yield from self.disk(top, src, dst)
        yield from self.block(top - 1, spare, dst)

    def block_peg(self, top: int) -> int | None:
        """The peg holding every disk of sizes 1..top, or None if they are spread out."""
        pegs = {p for size in range(top) for p in range(3) if self.levels[size][p]}
        return pegs.pop() if len(pegs) == 1 else None

    def solve(self, top: int, goal: Callable[[int], LevelGoal]) -> Iterator[Move]:
        """Bring sizes 1..top to ``goal(size)``, larger sizes staying put."""
        if top == 0:
            return
        whole = self.block_peg(top)
        target = goal(top)
        if whole is not None and isinstance(target[0], str):
            yield from self.block(top, whole, int(target[1]))
            return
        here: Arrangement = tuple(tuple(c) for c in self.levels[top - 1])
        if _satisfied(here, target):
            yield from self.solve(top - 1, goal)
            return
        below = sum(len(c) << (top - 1 - size) for size in range(1, top) for c in self.levels[size - 1])
        first, steps = _level_route(here, target, below, top > 1)
        if top > 1:
            yield from self.solve(top - 1, lambda _size: ("on", first))
        for kind, src, dst in steps:
            if kind == "disk":
                yield from self.disk(top, src, dst)
            else:
                yield from self.block(top - 1, src, dst)
        yield from self.solve(top - 1, goal)


def level_moves(start: ColourState, goal: ColourState) -> Iterator[Move]:
    """The moves of the level-by-level algorithm from ``start`` to ``goal``, lazily."""
    board = _Board(start, count_only=False)
    return board.solve(start.sizes, lambda size: goal.levels[size - 1])


def level_length(start: ColourState, goal: ColourState) -> int:
    """How many moves :func:`level_moves` makes, counted without generating them."""
    board = _Board(start, count_only=True)
    for _ in board.solve(start.sizes, lambda size: goal.levels[size - 1]):
        pass
    return board.count


class ColourPlan:
    """A plan for a coloured-tower puzzle: ``start`` (the puzzle's own, or the board given), ``goal``, exact
    ``length``, lazy moves, how it was made; ``exact`` None: exact search when it takes the board. ``lower_bound``:
    the proven fewest moves (the length itself when the plan is optimal)."""

    def __init__(self, puzzle: str, sizes: int, *, exact: bool | None = None, start: ColourState | None = None) -> None:
        self.puzzle = puzzle
        own_start, self.goal = start_and_goal(puzzle, sizes)
        self.start = own_start if start is None else start
        self._exact: list[Move] | None = None
        self.lower_bound: int | None = None
        if exact is None:
            exact = is_searchable(self.start)
        if exact:
            self._exact = shortest_moves(self.start, self.goal)
            self.length = self.lower_bound = len(self._exact)
            self.method, self.optimal, self.note = "search", True, "optimal (exact search)"
        else:
            self.length = level_length(self.start, self.goal)
            self.lower_bound = lower_bound(self.start, self.goal)
            gap = self.length - self.lower_bound
            self.method, self.optimal = "levels", False
            self.note = (
                f"level-by-level construction, not proven optimal: at least {self.lower_bound} moves needed, "
                f"gap {gap} ({100 * gap / max(1, self.lower_bound):.1f} %)"
            )

    def __iter__(self) -> Iterator[Move]:
        return iter(self._exact) if self._exact is not None else level_moves(self.start, self.goal)
