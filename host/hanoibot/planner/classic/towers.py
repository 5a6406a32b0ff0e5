"""Arithmetic of the optimal 3-peg transfer of a perfect tower, shared by the classic methods.

Pegs are 0, 1, 2; the tower of ``n`` disks moves from peg ``src`` to peg ``dst`` over ``aux = 3 - src - dst``.
In that unique optimal plan of ``2**n - 1`` moves, move ``k`` (0-based) moves disk ``ruler(k + 1)`` (one plus the
number of trailing zero bits), and disk ``i`` always steps the same way round the pegs: by ``+delta`` when
``n - i`` is even and by ``-delta`` when it is odd, where ``delta = dst - src (mod 3)``. After ``k`` moves disk
``i`` has moved ``(k + 2**(i - 1)) >> i`` times. Everything here is O(n) big-integer arithmetic per call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads the name), without importing typing at start-up
if TYPE_CHECKING:
    from typing import TypeVar

    Piece = TypeVar("Piece")


def aux_peg(src: int, dst: int) -> int:
    """The third peg of a 3-peg board, given two different pegs."""
    return 3 - src - dst


def moving_disk(k: int) -> int:
    """The disk (1 = smallest) that move ``k`` (0-based) moves: 1 + trailing zero bits of ``k + 1``."""
    m = k + 1
    return (m & -m).bit_length()


def disk_step(n_disks: int, disk: int, src: int, dst: int) -> int:
    """The peg step (1 or 2, mod 3) that ``disk`` takes at each of its moves in the tower transfer."""
    delta = (dst - src) % 3
    return delta if (n_disks - disk) % 2 == 0 else (-delta) % 3


def times_moved(disk: int, k: int) -> int:
    """How many times ``disk`` has moved after the first ``k`` moves."""
    return (k + (1 << (disk - 1))) >> disk


def pegs_after(n_disks: int, src: int, dst: int, k: int) -> list[int]:
    """Peg of every disk (smallest first) after ``k`` moves of the transfer. O(n) big-int operations."""
    return [(src + times_moved(i, k) * disk_step(n_disks, i, src, dst)) % 3 for i in range(1, n_disks + 1)]


def move_at(n_disks: int, src: int, dst: int, k: int) -> tuple[int, int, int]:
    """``(disk, from_peg, to_peg)`` of move ``k`` (0-based) of the transfer, without earlier moves. O(n)."""
    disk = moving_disk(k)
    step = disk_step(n_disks, disk, src, dst)
    peg = (src + times_moved(disk, k) * step) % 3
    return disk, peg, (peg + step) % 3


def index_of(n_disks: int, src: int, dst: int, pegs_of_disks: Sequence[int]) -> int | None:
    """Number of moves after which the disks stand on ``pegs_of_disks``, or None if never. O(n).

    Walks from the largest disk down: a disk still on its sub-tower's source means we are in the first half of
    that sub-transfer; on its target means the first half and its own move are done; on the third peg is
    impossible on the optimal path.
    """
    a, b, c = src, dst, aux_peg(src, dst)
    done = 0
    for disk in range(n_disks, 0, -1):
        peg = pegs_of_disks[disk - 1]
        if peg == a:
            b, c = c, b
        elif peg == b:
            done += 1 << (disk - 1)
            a, c = c, a
        else:
            return None
    return done


def tower_pieces(
    n_disks: int,
    src: int,
    dst: int,
    lo: int,
    hi: int,
    *,
    leaf_height: int,
    leaf: Callable[[int, int, int, int, int], Piece],
    single: Callable[[int, int, int], Piece],
) -> Iterator[Piece]:
    """Moves ``lo`` to ``hi - 1`` of the transfer as pieces, in order, with an explicit stack (no recursion limit).

    The recursion ``T(h, s, d) = T(h-1, s, a) + [move h s->d] + T(h-1, a, d)`` is unfolded down to sub-towers of
    ``leaf_height`` disks, which ``leaf(h, s, d, lo, hi)`` turns into one piece (e.g. a slice of a precomputed block);
    ``single(disk, s, d)`` makes the piece for one move of a larger disk. Memory: O(n) stack frames of small
    numbers: a sub-tower wanted to its end is stacked with ``hi = None`` rather than its ``2**h - 1``, so the stack
    never holds n big integers of up to n bits each (which was O(n**2) bits: 460 MB at n = 80 000).
    """
    end: int | None = None if hi >= (1 << n_disks) - 1 else hi
    stack: list[tuple[int, int, int, int, int | None]] = [(n_disks, src, dst, lo, end)]
    while stack:
        height, s, d, lo, end = stack.pop()
        if height < 0:
            yield single(-height, s, d)
        elif end is not None and lo >= end:
            continue
        elif height <= leaf_height:
            stop = (1 << height) - 1 if end is None else end
            if lo < stop:
                yield leaf(height, s, d, lo, stop)
        else:
            a = aux_peg(s, d)
            top = height - 1  # the big disk moves at index 2**top - 1; the second sub-tower starts at 2**top
            if lo >> top:
                stack.append((top, a, d, lo - (1 << top), None if end is None else end - (1 << top)))
                continue
            if end is not None and not end >> top:
                stack.append((top, s, a, lo, None if (end + 1) >> top else end))
                continue
            if end is None or end > 1 << top:
                stack.append((top, a, d, 0, None if end is None else end - (1 << top)))
            stack.append((-height, s, d, 0, 0))
            if (lo + 1) >> top == 0:
                stack.append((top, s, a, lo, None))
