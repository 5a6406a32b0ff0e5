"""One size of a coloured-tower board on its own: where its disks can stand, and how few moves of that size take
it from one layout to another while the smaller disks wait, as one block, on a peg (the "skeleton" of a plan).

A *layout* is the colours of the size's disks on each of the three pegs, bottom first. Disks of one colour are the
same disk as far as the puzzle goes, so a layout of a size with colours ``(0, 0, 1)`` does not tell its two
colour-0 disks apart (the multiset of colours is what a level holds). A *tower* is a layout with every disk of the
size on one peg, in one of the size's orders (``perms``).

A disk of size ``k`` may move only when every smaller disk is on the third peg; between two moves of size ``k`` the
smaller disks therefore stand on one peg, gathered. :meth:`LevelSpace.skeleton` counts the size-``k`` moves when
the gathered block moves ``r`` times (each time to another peg), which is what an exact plan is built from
(:mod:`hanoibot.planner.colour_search`).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator

from ..puzzle import Move

#: Distance of what cannot be reached (larger than any plan).
INF = 1 << 60

Layout = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
#: ``layers[r][s][layout]``: fewest moves of the size with the block moved ``r`` times and now on peg ``s``.
Layers = list[list[list[int]]]


class LevelSpace:
    """Every layout of one size whose disks have ``colours`` (a multiset), its moves and its distances."""

    def __init__(self, size: int, colours: tuple[int, ...]) -> None:
        self.size = size
        self.perms: list[tuple[int, ...]] = sorted(set(itertools.permutations(colours)))
        m = len(colours)
        found: set[Layout] = set()
        for perm in self.perms:
            for cut1 in range(m + 1):
                for cut2 in range(cut1, m + 1):
                    found.add((perm[:cut1], perm[cut1:cut2], perm[cut2:]))
        self.layouts: list[Layout] = sorted(found)
        self.index = {layout: i for i, layout in enumerate(self.layouts)}
        self.moves: list[list[tuple[int, int, int]]] = [self._moves_from(layout) for layout in self.layouts]
        self.tower = [[self.index[self._tower_layout(peg, perm)] for perm in self.perms] for peg in range(3)]
        self.free = [self._distances(i, None) for i in range(len(self.layouts))]
        self.avoiding = [[self._distances(i, s) for i in range(len(self.layouts))] for s in range(3)]
        self._skeletons: dict[tuple[int, int], Layers] = {}

    @staticmethod
    def _tower_layout(peg: int, perm: tuple[int, ...]) -> Layout:
        pegs: list[tuple[int, ...]] = [(), (), ()]
        pegs[peg] = perm
        return (pegs[0], pegs[1], pegs[2])

    def _moves_from(self, layout: Layout) -> list[tuple[int, int, int]]:
        """``(src, dst, next layout)`` for every move of one of this size's disks (smaller disks out of the way)."""
        out = []
        for src, dst in itertools.permutations(range(3), 2):
            if layout[src]:
                pegs = list(layout)
                pegs[dst] = (*pegs[dst], pegs[src][-1])
                pegs[src] = pegs[src][:-1]
                out.append((src, dst, self.index[(pegs[0], pegs[1], pegs[2])]))
        return out

    def _distances(self, start: int, block: int | None) -> list[int]:
        """Fewest moves from layout ``start`` to each layout, never touching peg ``block`` (None: any peg)."""
        dist = [INF] * len(self.layouts)
        dist[start] = 0
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for src, dst, there in self.moves[here]:
                if block not in (src, dst) and dist[there] == INF:
                    dist[there] = dist[here] + 1
                    queue.append(there)
        return dist

    def path(self, start: int, end: int, block: int | None) -> Iterator[Move]:
        """The moves of a shortest way from layout ``start`` to ``end`` that never touches peg ``block``."""
        table = self.free if block is None else self.avoiding[block]
        here = start
        while here != end:
            left = table[here][end]
            for src, dst, there in self.moves[here]:
                if block not in (src, dst) and table[there][end] == left - 1:
                    yield Move(self.size, src, dst)
                    here = there
                    break

    def skeleton(self, start: int, block: int, rounds: int) -> Layers:
        """``layers[r][s][layout]`` for r = 0..rounds: fewest moves of this size from layout ``start`` with the
        block on peg ``block`` to ``layout`` with the block on ``s``, the block moved exactly ``r`` times."""
        layers = self._skeletons.get((start, block))
        if layers is None:
            first = [[INF] * len(self.layouts) for _ in range(3)]
            first[block] = list(self.avoiding[block][start])
            layers = self._skeletons[(start, block)] = [first]
        while len(layers) <= rounds:
            layers.append(self._next_layer(layers[-1]))
        return layers

    def _next_layer(self, before: list[list[int]]) -> list[list[int]]:
        """The layer after ``before``: the block moves once more (to another peg), then moves of this size."""
        after = []
        for s in range(3):
            arrive = [min(before[p][i] for p in range(3) if p != s) for i in range(len(self.layouts))]
            best = [INF] * len(self.layouts)
            for i, d in enumerate(arrive):
                if d < INF:
                    best = [b if b <= d + w else d + w for b, w in zip(best, self.avoiding[s][i], strict=True)]
            after.append(best)
        return after

    def skeleton_steps(self, start: int, block: int, end: int, end_block: int, rounds: int) -> list[tuple[int, ...]]:
        """The steps of a cheapest skeleton with ``rounds`` block moves: ``(start, end, block)`` runs of this
        size's moves and ``(src, dst)`` block moves, in order."""
        layers = self.skeleton(start, block, rounds)
        steps: list[tuple[int, ...]] = []
        here, s = end, end_block
        for r in range(rounds, 0, -1):
            want = layers[r][s][here]
            before = layers[r - 1]
            prev, mid = next(
                (p, i)
                for p in range(3)
                if p != s
                for i in range(len(self.layouts))
                if before[p][i] + self.avoiding[s][i][here] == want
            )
            steps += [(mid, here, s), (prev, s)]
            here, s = mid, prev
        steps.append((start, here, s))
        return steps[::-1]
