"""Lazy move trees: plans built from single steps, tower transfers, sequences and reversals.

A :class:`Transfer` is a node that stands for a run of moves. Leaves are :class:`Step` (one move); inner nodes
expand into children on demand (:meth:`Transfer.parts`), so a plan of 2**64 - 1 moves is a handful of objects.
Every node knows its exact ``length``, so :func:`move_at` walks from the root to move ``k`` in O(depth) node
expansions and :func:`moves_from` starts streaming at move ``k`` without generating the earlier ones.

Disk labels are kept as a sorted ``Sequence[int]`` (smallest first); a ``range`` keeps slicing O(1) for the
common case of disks ``1..m``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import overload

from ...puzzle import Move, Rules, State
from ..base import Plan
from ..classic import towers


class LazyParts(Sequence["Transfer"]):
    """A read-only sequence of ``size`` children made by ``make(index)`` when asked for (not stored)."""

    def __init__(self, size: int, make: Callable[[int], Transfer]) -> None:
        self.size = size
        self.make = make

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> Transfer: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Transfer]: ...

    def __getitem__(self, index: int | slice) -> Transfer | Sequence[Transfer]:
        if isinstance(index, slice):
            return [self.make(j) for j in range(*index.indices(self.size))]
        if not -self.size <= index < self.size:
            raise IndexError(f"child {index} of {self.size}")
        return self.make(index % self.size)


class Transfer:
    """A run of moves; subclasses say how long it is and what it expands into."""

    @property
    def length(self) -> int:
        """Exact number of moves in this run."""
        raise NotImplementedError

    def parts(self) -> Sequence[Transfer]:
        """The children in order (empty for a leaf)."""
        raise NotImplementedError

    def locate(self, k: int) -> tuple[int, Transfer, int]:
        """(index, child, offset in child) of move ``k`` (0 <= k < length); a linear scan unless overridden."""
        for index, child in enumerate(self.parts()):
            child_length = child.length
            if k < child_length:
                return index, child, k
            k -= child_length
        raise IndexError(f"move {k} is past the end of a run of {self.length} moves")

    def apply_to(self, where: list[int]) -> None:
        """Apply the whole run to ``where`` (peg of disk ``d`` at index ``d - 1``; regular states only)."""
        for part in self.parts():
            part.apply_to(where)

    def undo_on(self, where: list[int]) -> None:
        """Undo the whole run on ``where`` (the inverse of :meth:`apply_to`)."""
        for part in reversed(self.parts()):
            part.undo_on(where)

    def reversed(self) -> Transfer:
        """The run played backwards with every move turned round (valid under symmetric rules)."""
        return Reversed(self)


class Step(Transfer):
    """A single move."""

    __slots__ = ("move",)

    def __init__(self, move: Move) -> None:
        self.move = move

    @property
    def length(self) -> int:
        """Always 1."""
        return 1

    def parts(self) -> Sequence[Transfer]:
        """A step has no children."""
        return ()

    def apply_to(self, where: list[int]) -> None:
        """Put the disk on the destination peg."""
        where[self.move.disk - 1] = self.move.dst

    def undo_on(self, where: list[int]) -> None:
        """Put the disk back on the source peg."""
        where[self.move.disk - 1] = self.move.src

    def reversed(self) -> Transfer:
        """The same disk moved back."""
        disk, src, dst = self.move
        return Step(Move(disk, dst, src))


class Seq(Transfer):
    """Several runs one after the other. ``length`` may be passed in when the caller already knows it."""

    def __init__(self, items: Sequence[Transfer], length: int | None = None) -> None:
        self.items: tuple[Transfer, ...] = tuple(item for item in items if not isinstance(item, Seq) or item.items)
        self._length = length

    @property
    def length(self) -> int:
        """Sum of the children's lengths (computed once)."""
        if self._length is None:
            self._length = sum(item.length for item in self.items)
        return self._length

    def parts(self) -> Sequence[Transfer]:
        """The runs in order."""
        return self.items


class Reversed(Transfer):
    """Another run played backwards, every move turned round."""

    def __init__(self, inner: Transfer) -> None:
        self.inner = inner

    @property
    def length(self) -> int:
        """Same as the inner run."""
        return self.inner.length

    def parts(self) -> Sequence[Transfer]:
        """The inner run's children, reversed and each turned round (built on access)."""
        inner = self.inner.parts()
        last = len(inner) - 1
        return LazyParts(len(inner), lambda j: inner[last - j].reversed())

    def locate(self, k: int) -> tuple[int, Transfer, int]:
        """Found through the inner run's :meth:`locate`, mirrored."""
        index, child, offset = self.inner.locate(self.length - 1 - k)
        return len(self.inner.parts()) - 1 - index, child.reversed(), child.length - 1 - offset

    def apply_to(self, where: list[int]) -> None:
        """Playing backwards undoes the inner run."""
        self.inner.undo_on(where)

    def undo_on(self, where: list[int]) -> None:
        """Undoing a backwards run plays the inner run."""
        self.inner.apply_to(where)

    def reversed(self) -> Transfer:
        """Backwards twice is forwards."""
        return self.inner


class Tower(Transfer):
    """A perfect tower of the disks ``labels`` (sorted, smallest first) moved from ``src`` to ``dst``."""

    def __init__(self, labels: Sequence[int], src: int, dst: int) -> None:
        self.labels = labels
        self.src = src
        self.dst = dst

    def apply_to(self, where: list[int]) -> None:
        """Every disk of the tower ends on ``dst``."""
        for label in self.labels:
            where[label - 1] = self.dst

    def undo_on(self, where: list[int]) -> None:
        """Every disk of the tower goes back to ``src``."""
        for label in self.labels:
            where[label - 1] = self.src


class ClassicTower(Tower):
    """The optimal 3-peg transfer (2**m - 1 moves) of a perfect tower from ``src`` to ``dst`` via ``aux``."""

    def __init__(self, labels: Sequence[int], src: int, dst: int, aux: int) -> None:
        super().__init__(labels, src, dst)
        self.aux = aux

    @property
    def length(self) -> int:
        """2**m - 1 for m disks."""
        return (1 << len(self.labels)) - 1

    def parts(self) -> Sequence[Transfer]:
        """Top m-1 disks to ``aux``, the largest to ``dst``, the m-1 disks onto it."""
        if not self.labels:
            return ()
        rest = self.labels[:-1]
        return (
            ClassicTower(rest, self.src, self.aux, self.dst),
            Step(Move(self.labels[-1], self.src, self.dst)),
            ClassicTower(rest, self.aux, self.dst, self.src),
        )

    def reversed(self) -> Transfer:
        """The optimal transfer is unique, so backwards it is the optimal transfer the other way."""
        return ClassicTower(self.labels, self.dst, self.src, self.aux)

    def _real(self) -> tuple[int, int, int]:
        """Real pegs of the virtual pegs 0 (source), 1 (spare), 2 (destination) of the closed forms."""
        return self.src, self.aux, self.dst

    def move_at(self, k: int) -> Move:
        """Move ``k`` of this transfer in closed form (the classic planner's arithmetic), O(m)."""
        disk, src, dst = towers.move_at(len(self.labels), 0, 2, k)
        real = self._real()
        return Move(self.labels[disk - 1], real[src], real[dst])

    def pegs_after(self, k: int, where: list[int]) -> None:
        """Write the peg of every disk of the tower after ``k`` of its moves into ``where``, O(m)."""
        real = self._real()
        for label, peg in zip(self.labels, towers.pegs_after(len(self.labels), 0, 2, k), strict=True):
            where[label - 1] = real[peg]

    def fast_moves(self, k: int = 0) -> Iterator[Move]:
        """Moves ``k``, ``k + 1``, … without building nodes: move i (1-based) moves disk index ctz(i).

        Each disk steps round the pegs one way; how far it has gone is worked out when the disk first moves.
        """
        labels = self.labels
        m = len(labels)
        real = self._real()
        cycles = []
        for j in range(1, m + 1):
            step = towers.disk_step(m, j, 0, 2)
            cycles.append((real[0], real[step], real[(2 * step) % 3]))
        counts = [-1] * m  # moves made so far by each disk, mod 3 (-1: not known yet)
        for i in range(k + 1, 1 << m):
            j = (i & -i).bit_length() - 1
            c = counts[j]
            if c < 0:
                c = towers.times_moved(j + 1, i - 1) % 3
            counts[j] = (c + 1) % 3
            order = cycles[j]
            yield Move(labels[j], order[c], order[(c + 1) % 3])


def move_at(root: Transfer, k: int) -> Move:
    """Move number ``k`` (0-based, must be in range) of the run ``root``: one :meth:`~Transfer.locate` a level."""
    node = root
    while not isinstance(node, Step):
        if isinstance(node, ClassicTower):
            return node.move_at(k)
        _, node, k = node.locate(k)
    return node.move


def moves_from(root: Transfer, k: int) -> Iterator[Move]:
    """Moves ``k``, ``k + 1``, … of ``root``: O(depth) to find move ``k``, then amortised O(1) per node."""
    stack: list[Iterator[Transfer]] = []
    node = root
    while not isinstance(node, Step | ClassicTower):
        index, child, k = node.locate(k)
        parts = node.parts()
        stack.append(map(parts.__getitem__, range(index + 1, len(parts))))
        node = child
    if isinstance(node, ClassicTower):
        yield from node.fast_moves(k)
    else:
        yield node.move
    while stack:
        upcoming = next(stack[-1], None)
        if upcoming is None:
            stack.pop()
        elif isinstance(upcoming, Step):
            yield upcoming.move
        elif isinstance(upcoming, ClassicTower):
            yield from upcoming.fast_moves()
        elif upcoming.length:
            stack.append(iter(upcoming.parts()))


def state_after(root: Transfer, start: Sequence[int], k: int) -> list[int]:
    """Peg of every disk (smallest first) after ``k`` moves of ``root`` from the regular state ``start``.

    Walks down to move ``k`` applying each finished sibling whole: O(depth · n) list writes, no move replay.
    """
    where = list(start)
    node = root
    while k and not isinstance(node, Step):
        if isinstance(node, ClassicTower):
            node.pegs_after(k, where)
            break
        for child in node.parts():
            child_length = child.length
            if k < child_length:
                node = child
                break
            child.apply_to(where)
            k -= child_length
        else:
            break
    return where


class TransferPlan(Plan):
    """A :class:`~hanoibot.planner.base.Plan` whose moves come from a :class:`Transfer` tree.

    ``regular``: every state on the way is regular, so :meth:`state_at` can work on disk positions in
    O(depth · n) instead of replaying moves. ``alternatives``: other plans of the same optimal length.
    """

    def __init__(
        self,
        start: State,
        goal: State,
        rules: Rules,
        root: Transfer,
        *,
        method: str,
        optimal: bool | None,
        note: str,
        regular: bool = True,
        length: int | None = None,
    ) -> None:
        super().__init__(start, goal, rules, root.length if length is None else length, optimal=optimal, note=note)
        self.root = root
        self.method = method
        self.regular = regular
        self.alternatives: tuple[Plan, ...] = ()

    def move_at(self, k: int) -> Move:
        """Move ``k`` (0-based) in O(depth) node expansions."""
        return move_at(self.root, self.check_index(k))

    def moves_from(self, k: int) -> Iterator[Move]:
        """Moves from ``k`` on, without generating earlier moves."""
        if not self.length:
            return iter(())
        return moves_from(self.root, self.check_index(k))

    def state_at(self, k: int) -> State:
        """State after ``k`` moves: O(depth · n) for regular plans, a replay otherwise."""
        self.check_index(k, allow_end=True)
        if not self.regular:
            return super().state_at(k)
        where = state_after(self.root, self.start.pegs_of_disks(), k)
        return State.from_pegs(where, self.start.pegs)

    def all_optimal(self) -> tuple[Plan, ...]:
        """This plan and any other plan of the same proven-optimal length."""
        return (self, *self.alternatives)
