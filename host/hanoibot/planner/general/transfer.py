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
from functools import cache, partial
from itertools import chain
from typing import TypeGuard, overload

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

    def block_key(self) -> tuple[object, ...]:
        """What fixes this run's moves: its class, disks and pegs (subclasses add their other pegs)."""
        return (type(self), tuple(self.labels), self.src, self.dst)

    def renamed(self) -> tuple[Tower, Sequence[int], Sequence[int]] | None:
        """(canonical tower, disk labels, pegs) when this run is the canonical tower's run with every disk ``d``
        renamed ``labels[d - 1]`` and every peg ``q`` renamed ``pegs[q]``, so towers of one shape share one
        canonical block; None when this tower is itself canonical or has no such form."""
        return None

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

    def block_key(self) -> tuple[object, ...]:
        """Class, disks and all three pegs."""
        return (*super().block_key(), self.aux)

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


def move_at(root: Transfer, k: int) -> Move:
    """Move number ``k`` (0-based, must be in range) of the run ``root``: one :meth:`~Transfer.locate` a level."""
    node = root
    while not isinstance(node, Step):
        if isinstance(node, ClassicTower):
            return node.move_at(k)
        _, node, k = node.locate(k)
    return node.move


#: Tower runs of at most this many moves are streamed from memoised move tuples (one per tower shape).
BLOCK_MOVES = 4095
#: How many such tuples are kept (each up to BLOCK_MOVES shared Move references: 32 kB).
_BLOCKS_KEPT = 1024
_blocks: dict[tuple[object, ...], tuple[Move, ...]] = {}


@cache
def _classic_indices(height: int) -> tuple[int, ...]:
    """The classic transfer of disks 1..height from virtual peg 0 to 2 as indices ``6 * (disk - 1) + pair``
    into a table of moves, ``pair`` numbering the ordered peg pairs (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)."""
    if height == 0:
        return ()
    smaller = _classic_indices(height - 1)
    # The pairs renamed for the first half (pegs 1 <-> 2: 0 -> 1 via 2) and the second (0 <-> 1: 1 -> 2 via 0).
    to_aux = (1, 0, 4, 5, 2, 3)
    from_aux = (2, 3, 0, 1, 5, 4)
    base = 6 * (height - 1) + 1
    first = tuple(6 * (i // 6) + to_aux[i % 6] for i in smaller)
    second = tuple(6 * (i // 6) + from_aux[i % 6] for i in smaller)
    return (*first, base, *second)


_PAIRS = ((0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1))
#: Makes a Move from a (disk, src, dst) tuple in C (what ``Move(disk, src, dst)`` does, without a Python frame).
_new_move = partial(tuple.__new__, Move)


def _classic_block(tower: ClassicTower) -> tuple[Move, ...]:
    """The moves of a small classic tower: the canonical index block mapped through a table of its own moves."""
    real = (tower.src, tower.aux, tower.dst)
    table = list(map(_new_move, ((label, real[a], real[b]) for label in tower.labels for a, b in _PAIRS)))
    return tuple(map(table.__getitem__, _classic_indices(len(tower.labels))))


#: Canonical blocks by block key: (indices into the block's distinct moves; those moves' disk indices (disk - 1),
#: source pegs and target pegs, as three columns).
_shapes: dict[tuple[object, ...], tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]] = {}


def _shape(tower: Tower) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The canonical ``tower``'s block as indices into its distinct moves, and those moves as columns (built once)."""
    key = tower.block_key()
    shape = _shapes.get(key)
    if shape is None:
        index: dict[Move, int] = {}
        indices = tuple(index.setdefault(move, len(index)) for move in _block(tower))
        columns = (
            tuple(move.disk - 1 for move in index),
            tuple(move.src for move in index),
            tuple(move.dst for move in index),
        )
        shape = _shapes[key] = (indices, columns)
        if len(_shapes) > _BLOCKS_KEPT:
            del _shapes[next(iter(_shapes))]
    return shape


def _renamed_block(tower: Tower, labels: Sequence[int], pegs: Sequence[int]) -> tuple[Move, ...]:
    """The moves of the canonical ``tower`` with its disks and pegs renamed: a table of the run's own distinct
    moves, then the canonical indices mapped through it, both at C speed."""
    indices, (disks, sources, targets) = _shape(tower)
    renamed = zip(
        map(labels.__getitem__, disks), map(pegs.__getitem__, sources), map(pegs.__getitem__, targets), strict=True
    )
    table = list(map(_new_move, renamed))
    return tuple(map(table.__getitem__, indices))


def _block(node: Tower) -> tuple[Move, ...]:
    """Every move of the small tower run ``node``, built once per shape (class, disks, pegs) and then shared."""
    key = node.block_key()
    block = _blocks.get(key)
    if block is None:
        renamed = node.renamed()
        if isinstance(node, ClassicTower):
            block = _classic_block(node)
        elif renamed is not None:
            block = _renamed_block(*renamed)
        else:
            block = tuple(chain.from_iterable(_pieces(node, 0, split_root=True)))
        if len(_blocks) >= _BLOCKS_KEPT:
            del _blocks[next(iter(_blocks))]
        _blocks[key] = block
    return block


def _is_small_tower(node: Transfer) -> TypeGuard[Tower]:
    """True for a tower run short enough to be served from a memoised block."""
    return isinstance(node, Tower) and node.length <= BLOCK_MOVES


def _pieces(root: Transfer, k: int, *, split_root: bool = False) -> Iterator[Sequence[Move]]:
    """Moves ``k``, ``k + 1``, … of ``root`` as runs of moves (tuples, slices of memoised blocks), in order.

    ``split_root`` expands ``root`` into its parts even when it is a small tower (how its block is built)."""
    if k >= root.length:
        return
    stack: list[Iterator[Transfer]] = []
    node = root
    while not isinstance(node, Step):
        if _is_small_tower(node) and (node is not root or not split_root):
            break
        index, child, k = node.locate(k)
        parts = node.parts()
        stack.append(map(parts.__getitem__, range(index + 1, len(parts))))
        node = child
    if isinstance(node, Step):
        yield (node.move,)
    elif _is_small_tower(node):
        yield _block(node)[k:]
    while stack:
        upcoming = next(stack[-1], None)
        if upcoming is None:
            stack.pop()
        elif isinstance(upcoming, Step):
            yield (upcoming.move,)
        elif _is_small_tower(upcoming):
            yield _block(upcoming)
        elif upcoming.length:
            stack.append(iter(upcoming.parts()))


def moves_from(root: Transfer, k: int) -> Iterator[Move]:
    """Moves ``k``, ``k + 1``, … of ``root``: O(depth) to find move ``k``, then the tree walked down to small
    tower runs, which come from memoised blocks, so most moves are handed on at C speed (``chain``)."""
    return chain.from_iterable(_pieces(root, k))


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

    def runs_from(self, k: int) -> Iterator[Sequence[Move]]:
        """Moves from ``k`` on as runs: the memoised blocks of the tree's small tower runs (shared tuples) and the
        moves between them."""
        if not self.length:
            return iter(())
        return _pieces(self.root, self.check_index(k, allow_end=True))

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
