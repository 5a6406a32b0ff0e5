"""Exact shortest plans for coloured towers, size by size instead of board by board.

A disk of size ``k`` moves only when every smaller disk stands on the third peg, so between two moves of size
``k`` the smaller sizes are gathered on one peg: a *tower* of sizes ``1..k-1`` in some order per size (its
*arrangement*). Whatever the larger disks do, the smaller ones move freely over them, so the cost of taking that
tower from one arrangement to another does not depend on the larger disks: ``T[k-1]`` (two tables, the tower
staying on its peg or going to another, arrangement by arrangement). An optimal plan is then:

* the moves of size ``k`` and the moves of the gathered block (:meth:`LevelSpace.skeleton` counts the former for
  ``r`` block moves), and
* the block's cost, a min-plus product of ``r`` copies of ``T[k-1]`` (rearranging it in place is never needed
  between moves: it is folded into the block move next to it),

which is exact: every plan has this shape, and the cheapest one over ``r`` is found. ``T[k]`` is built the same
way from ``T[k-1]``, starting at ``T[1]`` (one size on its own). A board that is not gathered (a puzzle's start or
goal) is reached through :meth:`ColourSearch.gather`: the cheapest way from it to every tower. Boards never appear
one by one; the tables have (orders of a size)^k entries, e.g. 2^7 for bicolor with 8 sizes.

A *relaxed* search treats the disks of the smallest sizes as one colour (``blind``): every plan of the real puzzle
is a plan of the relaxed one, so its optimum is a lower bound, computed as fast as a smaller exact puzzle.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..puzzle import Move
from ..puzzle.colours import ColourState
from .colour_levels import INF, LevelSpace

Matrix = list[list[int]]
#: ``(tables stay, move)`` of one tower height: ``T[q][a][b]``, q = 0 stays on its peg, q = 1 goes to another.
Tables = tuple[Matrix, Matrix]


def min_plus(left: Matrix, right: Matrix) -> Matrix:
    """The min-plus product: ``out[i][j] = min_k left[i][k] + right[k][j]``."""
    return [vector_min_plus(row, right) for row in left]


def vector_min_plus(vector: Sequence[int], matrix: Matrix) -> list[int]:
    """``out[j] = min_k vector[k] + matrix[k][j]``."""
    out = [INF] * len(matrix[0])
    for value, row in zip(vector, matrix, strict=True):
        if value < INF:
            out = [o if o <= value + w else value + w for o, w in zip(out, row, strict=True)]
    return out


def _mapped(moves: Iterator[Move], pegs: tuple[int, int, int]) -> Iterator[Move]:
    """``moves`` made between pegs 0, 1, 2 replayed on ``pegs[0]``, ``pegs[1]``, ``pegs[2]``."""
    for move in moves:
        yield Move(move.disk, pegs[move.src], pegs[move.dst])


def _reversed(moves: list[Move]) -> Iterator[Move]:
    """The way back: the moves in reverse order, each from where it went to where it came from."""
    for move in reversed(moves):
        yield Move(move.disk, move.dst, move.src)


class ColourSearch:
    """Exact distances and plans between boards of ``sizes`` sizes whose size ``k`` holds disks of the colours
    ``colours[k - 1]`` (a multiset, e.g. ``(0, 1)``), the smallest ``blind`` sizes taken as one colour."""

    def __init__(self, colours: Sequence[Sequence[int]], *, blind: int = 0) -> None:
        self.blind = blind
        self.levels = [
            LevelSpace(k, tuple(sorted(0 for _ in c) if k <= blind else sorted(c))) for k, c in enumerate(colours, 1)
        ]
        self.count = [1]  # arrangements of a tower of sizes 1..k
        for level in self.levels:
            self.count.append(self.count[-1] * len(level.perms))
        self.tables: dict[int, Tables] = {}
        self.powers: dict[int, list[Matrix]] = {}  # powers[k][r]: T[k] move, min-plus to the power r (r >= 1)
        self._gathered: dict[tuple[tuple[int, ...], int], tuple[list[list[int]], dict[int, list[list[int]]]]] = {}
        self._paths: dict[tuple[int, int, int, int], list[Move]] = {}

    @property
    def entries(self) -> int:
        """How many distances the search holds: its tables (two per tower height, arrangement by arrangement) and
        its gatherings (per peg and arrangement): the search's "states"."""
        tables = sum(2 * len(stay) ** 2 for stay, _ in self.tables.values())
        return tables + sum(3 * len(g[0]) for g, _ in self._gathered.values())

    def forget_boards(self) -> None:
        """Drop what was kept of particular boards (their gatherings); the tables stay."""
        self._gathered.clear()

    # -- the tables ---------------------------------------------------------------------------------------------
    def layout_of(self, state: ColourState) -> tuple[int, ...]:
        """``state`` as one layout index per size (smallest first), blind sizes in one colour."""
        out = []
        for k, level in enumerate(state.levels, 1):
            pegs = tuple(tuple(0 for _ in c) if k <= self.blind else c for c in level)
            out.append(self.levels[k - 1].index[(pegs[0], pegs[1], pegs[2])])
        return tuple(out)

    def table(self, k: int) -> Tables:
        """``T[k]``: cheapest moves between towers of sizes 1..k, by arrangement (staying, going to another peg)."""
        if k not in self.tables:
            self.tables[k] = self._build_table(k)
        return self.tables[k]

    def power(self, k: int, r: int) -> Matrix:
        """The block of sizes 1..k moved ``r`` times (each to another peg): ``T[k]`` move to the min-plus ``r``."""
        powers = self.powers.setdefault(k, [[], self.table(k)[1]])
        while len(powers) <= r:
            powers.append(min_plus(powers[-1], powers[1]))
        return powers[r]

    def _build_table(self, k: int) -> Tables:
        level = self.levels[k - 1]
        n_perms = len(level.perms)
        if k == 1:
            stay = [[level.free[level.tower[0][a]][level.tower[0][b]] for b in range(n_perms)] for a in range(n_perms)]
            move = [[level.free[level.tower[0][a]][level.tower[1][b]] for b in range(n_perms)] for a in range(n_perms)]
            return stay, move
        below = self.count[k - 1]
        size = n_perms * below
        out: Tables = ([[INF] * size for _ in range(size)], [[INF] * size for _ in range(size)])
        sub_stay, sub_move = self.table(k - 1)
        cheapest = min(min(row) for row in sub_move)
        for a in range(n_perms):  # the block never moves: this size stays put, the block rearranged in place
            self._lower(out[0], a, a, sub_stay)
        r = 0
        while True:
            r += 1
            worst = max(max(row) for table in out for row in table)
            if worst < INF and r * cheapest >= worst:
                return out  # r block moves cost at least r * cheapest: no entry can get cheaper
            block = self.power(k - 1, r)
            for a in range(n_perms):
                layers = level.skeleton(level.tower[0][a], 0, r)
                for q in (0, 1):
                    for b in range(n_perms):
                        moves = layers[r][q][level.tower[q][b]]
                        if moves < INF:
                            self._lower(out[q], a, b, [[moves + w for w in row] for row in block])

    def _lower(self, table: Matrix, a: int, b: int, block: Matrix) -> None:
        """Lower the part of ``table`` from this size's order ``a`` to ``b`` to ``block`` where it is cheaper."""
        below = len(block)
        for i, row in enumerate(block):
            target = table[a * below + i]
            start = b * below
            for j, value in enumerate(row):
                if value < target[start + j]:
                    target[start + j] = value

    # -- boards that are not gathered -----------------------------------------------------------------------------
    def gather(self, layouts: tuple[int, ...], k: int) -> list[list[int]]:
        """``g[s][c]``: fewest moves from sizes 1..k of the board ``layouts`` to a tower of them on peg ``s`` in
        arrangement ``c``."""
        return self._gather(layouts, k)[0]

    def _gather(self, layouts: tuple[int, ...], k: int) -> tuple[list[list[int]], dict[int, list[list[int]]]]:
        """``(g, carried)``: :meth:`gather` and ``carried[r][s0]`` = the block of sizes 1..k-1 gathered on ``s0``
        then moved ``r`` times, by arrangement (kept to rebuild the plan)."""
        key = (layouts[:k], k)
        if key in self._gathered:
            return self._gathered[key]
        level = self.levels[k - 1]
        here = layouts[k - 1]
        carried: dict[int, list[list[int]]] = {}
        if k == 1:
            g = [[level.free[here][level.tower[s][p]] for p in range(len(level.perms))] for s in range(3)]
        else:
            below = self.count[k - 1]
            first = self.gather(layouts, k - 1)
            cheapest = min(min(row) for row in self.table(k - 1)[1])
            g = [[INF] * (len(level.perms) * below) for _ in range(3)]
            r = 0
            while True:
                worst = max(max(row) for row in g)
                if r > 0 and worst < INF and r * cheapest >= worst:
                    break
                carried[r] = [
                    first[s0] if r == 0 else vector_min_plus(carried[r - 1][s0], self.table(k - 1)[1])
                    for s0 in range(3)
                ]
                for s0 in range(3):
                    layers = level.skeleton(here, s0, r)
                    for s in range(3):
                        for p in range(len(level.perms)):
                            moves = layers[r][s][level.tower[s][p]]
                            if moves < INF:
                                row = g[s]
                                for c, value in enumerate(carried[r][s0]):
                                    if moves + value < row[p * below + c]:
                                        row[p * below + c] = moves + value
                r += 1
        self._gathered[key] = (g, carried)
        return g, carried

    def distance(self, start: ColourState, goal: ColourState) -> int:
        """Fewest moves from ``start`` to ``goal``."""
        return self._best(self.layout_of(start), self.layout_of(goal), len(self.levels))[0]

    def _best(self, start: tuple[int, ...], goal: tuple[int, ...], k: int) -> tuple[int, tuple[int, ...]]:
        """``(moves, how)`` from sizes 1..k of ``start`` to those of ``goal``; ``how`` is ``()`` when size k stays
        put, else ``(s0, r, s1, c)``: gather on ``s0``, ``r`` block moves ending on ``s1`` in arrangement ``c``."""
        level = self.levels[k - 1]
        if k == 1:
            return level.free[start[0]][goal[0]], ()
        best: tuple[int, tuple[int, ...]] = (INF, ())
        if start[k - 1] == goal[k - 1]:
            best = (self._best(start, goal, k - 1)[0], ())
        _, carried = self._gather(start, k)
        gathered_goal = self.gather(goal, k - 1)
        cheapest = min(min(row) for row in self.table(k - 1)[1])
        r = 0
        while best[0] == INF or r * cheapest < best[0]:
            if r not in carried:
                carried[r] = [vector_min_plus(carried[r - 1][s0], self.table(k - 1)[1]) for s0 in range(3)]
            for s0 in range(3):
                layers = level.skeleton(start[k - 1], s0, r)
                for s1 in range(3):
                    moves = layers[r][s1][goal[k - 1]]
                    if moves >= INF:
                        continue
                    for c, (there, back) in enumerate(zip(carried[r][s0], gathered_goal[s1], strict=True)):
                        if moves + there + back < best[0]:
                            best = (moves + there + back, (s0, r, s1, c))
            r += 1
        return best

    # -- plans ----------------------------------------------------------------------------------------------------
    def moves(self, start: ColourState, goal: ColourState) -> list[Move]:
        """A shortest move list from ``start`` to ``goal`` (no blind sizes)."""
        return list(self._plan(self.layout_of(start), self.layout_of(goal), len(self.levels)))

    def _plan(self, start: tuple[int, ...], goal: tuple[int, ...], k: int) -> Iterator[Move]:
        level = self.levels[k - 1]
        _, how = self._best(start, goal, k)
        if k == 1:
            yield from level.path(start[0], goal[0], None)
            return
        if not how:
            yield from self._plan(start, goal, k - 1)
            return
        s0, r, s1, c = how
        chain = self._chain(self._gather(start, k)[1], k, s0, r, c)
        yield from self._gather_path(start, k - 1, s0, chain[0])
        yield from self._skeleton_moves(k, start[k - 1], s0, goal[k - 1], s1, chain)
        yield from _reversed(list(self._gather_path(goal, k - 1, s1, c)))

    def _chain(self, carried: dict[int, list[list[int]]], k: int, s0: int, r: int, end: int) -> list[int]:
        """The arrangements of the block of sizes 1..k-1 at each of its ``r`` moves, from gathered on ``s0`` to
        ``end``."""
        move = self.table(k - 1)[1]
        chain = [end]
        for i in range(r, 0, -1):
            want = carried[i][s0][chain[-1]]
            chain.append(next(c for c, v in enumerate(carried[i - 1][s0]) if v + move[c][chain[-1]] == want))
        return chain[::-1]

    def _gather_path(self, layouts: tuple[int, ...], k: int, s: int, c: int) -> Iterator[Move]:
        """The moves from sizes 1..k of ``layouts`` to their tower on ``s`` in arrangement ``c``."""
        level = self.levels[k - 1]
        if k == 1:
            yield from level.path(layouts[0], level.tower[s][c], None)
            return
        below = self.count[k - 1]
        p, sub = divmod(c, below)
        g, carried = self._gather(layouts, k)
        target = level.tower[s][p]
        for r in sorted(carried):
            for s0 in range(3):
                moves = level.skeleton(layouts[k - 1], s0, r)[r][s][target]
                if moves < INF and moves + carried[r][s0][sub] == g[s][c]:
                    chain = self._chain(carried, k, s0, r, sub)
                    yield from self._gather_path(layouts, k - 1, s0, chain[0])
                    yield from self._skeleton_moves(k, layouts[k - 1], s0, target, s, chain)
                    return
        raise AssertionError(f"no gathering of {k} sizes on peg {s} in arrangement {c}")

    def _skeleton_moves(self, k: int, start: int, s0: int, end: int, s1: int, chain: list[int]) -> Iterator[Move]:
        """Size k's moves from layout ``start`` (block on ``s0``) to ``end`` (block on ``s1``), the block moving
        through the arrangements of ``chain``."""
        level = self.levels[k - 1]
        steps = level.skeleton_steps(start, s0, end, s1, len(chain) - 1)
        i = 0
        for step in steps:
            if len(step) == 3:
                yield from level.path(step[0], step[1], step[2])
            else:
                src, dst = step
                yield from _mapped(iter(self.tower_path(k - 1, chain[i], chain[i + 1], 1)), (src, dst, 3 - src - dst))
                i += 1

    def tower_path(self, k: int, a: int, b: int, q: int) -> list[Move]:
        """A cheapest way for the tower of sizes 1..k from peg 0 in arrangement ``a`` to peg ``q`` (0 or 1) in
        arrangement ``b``."""
        key = (k, a, b, q)
        if key in self._paths:
            return self._paths[key]
        level = self.levels[k - 1]
        want = self.table(k)[q][a][b]
        if k == 1:
            path = list(level.path(level.tower[0][a], level.tower[q][b], None))
        else:
            below = self.count[k - 1]
            (pa, ca), (pb, cb) = divmod(a, below), divmod(b, below)
            if q == 0 and pa == pb and self.table(k - 1)[0][ca][cb] == want:
                path = self.tower_path(k - 1, ca, cb, 0)
            else:
                path = self._tower_skeleton(k, (pa, ca), (pb, cb), q, want)
        self._paths[key] = path
        return path

    def _tower_skeleton(self, k: int, a: tuple[int, int], b: tuple[int, int], q: int, want: int) -> list[Move]:
        level = self.levels[k - 1]
        start, end = level.tower[0][a[0]], level.tower[q][b[0]]
        r = 1
        while True:
            moves = level.skeleton(start, 0, r)[r][q][end]
            block = self.power(k - 1, r)
            if moves < INF and moves + block[a[1]][b[1]] == want:
                break
            r += 1
        chain = [b[1]]
        move = self.table(k - 1)[1]
        for i in range(r - 1, 0, -1):
            row = self.power(k - 1, i)[a[1]]
            target = self.power(k - 1, i + 1)[a[1]][chain[-1]]
            chain.append(next(c for c, v in enumerate(row) if v + move[c][chain[-1]] == target))
        chain.append(a[1])
        return list(self._skeleton_moves(k, start, 0, end, q, chain[::-1]))
