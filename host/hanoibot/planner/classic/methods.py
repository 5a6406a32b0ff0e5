"""Four classic ways to generate the optimal 3-peg tower transfer, each able to start at any move ``k``.

Every generator has the signature ``(n_disks, src, dst, k) -> Iterator[Move]`` and yields moves ``k``, ``k + 1``,
… of the unique optimal transfer of ``n_disks`` disks from peg ``src`` to peg ``dst``. Starting mid-way costs O(n):
the position after ``k`` moves comes from :mod:`hanoibot.planner.classic.towers`, never from replaying earlier moves.
The fifth method, the Turing machine, lives in :mod:`hanoibot.planner.classic.turing`.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache, lru_cache
from itertools import chain

from ...puzzle import Move
from . import towers

#: Sub-towers up to this many disks are served from memoised blocks (at most 6 * 4095 moves each level).
BLOCK_DISKS = 12


@lru_cache(maxsize=4096)
def cached_move(disk: int, src: int, dst: int) -> Move:
    """A shared :class:`Move` object, so generators do not allocate one per move."""
    return Move(disk, src, dst)


@cache
def _block(height: int, src: int, dst: int) -> tuple[Move, ...]:
    """All moves of a ``height``-disk transfer, built by the textbook recursion (memoised per peg pair)."""
    if height == 0:
        return ()
    aux = towers.aux_peg(src, dst)
    return (*_block(height - 1, src, aux), cached_move(height, src, dst), *_block(height - 1, aux, dst))


def _leaf(height: int, src: int, dst: int, lo: int, hi: int) -> tuple[Move, ...]:
    block = _block(height, src, dst)
    return block if lo == 0 and hi == len(block) else block[lo:hi]


def _single(disk: int, src: int, dst: int) -> tuple[Move, ...]:
    return (cached_move(disk, src, dst),)


def recursive_runs(n_disks: int, src: int, dst: int, k: int) -> Iterator[tuple[Move, ...]]:
    """Moves ``k``, … of the transfer as runs: whole memoised blocks (shared tuples), slices of one where the
    range starts or ends inside it, and one-move tuples for the larger disks between blocks."""
    return towers.tower_pieces(
        n_disks, src, dst, k, (1 << n_disks) - 1, leaf_height=BLOCK_DISKS, leaf=_leaf, single=_single
    )


def recursive_moves(n_disks: int, src: int, dst: int, k: int) -> Iterator[Move]:
    """The recursion T(h, s, d) = T(h-1, s, a) + [h: s->d] + T(h-1, a, d), unfolded with an explicit stack.

    Sub-towers of up to :data:`BLOCK_DISKS` disks come from memoised blocks, so iteration runs at C speed
    (``itertools.chain`` over tuples); memory is bounded by the blocks plus an O(n) stack.
    """
    return chain.from_iterable(recursive_runs(n_disks, src, dst, k))


def iterative_moves(n_disks: int, src: int, dst: int, k: int) -> Iterator[Move]:
    """The iterative rule: every other move the smallest disk steps one way round; the move between is forced.

    Keeps the three stacks; the forced move puts the smaller of the two other top disks on the other peg.
    """
    where = towers.pegs_after(n_disks, src, dst, k)
    stacks: list[list[int]] = [[], [], []]
    for disk in range(n_disks, 0, -1):
        stacks[where[disk - 1]].append(disk)
    step = towers.disk_step(n_disks, 1, src, dst)
    small_peg = where[0]
    for index in range(k, (1 << n_disks) - 1):
        if index % 2 == 0:
            to_peg = (small_peg + step) % 3
            stacks[small_peg].pop()
            stacks[to_peg].append(1)
            yield cached_move(1, small_peg, to_peg)
            small_peg = to_peg
        else:
            p, q = (small_peg + 1) % 3, (small_peg + 2) % 3
            top_p = stacks[p][-1] if stacks[p] else n_disks + 1
            top_q = stacks[q][-1] if stacks[q] else n_disks + 1
            if top_p > top_q:
                p, q = q, p
            disk = stacks[p].pop()
            stacks[q].append(disk)
            yield cached_move(disk, p, q)


def gray_moves(n_disks: int, src: int, dst: int, k: int) -> Iterator[Move]:
    """The Gray-code counter: the bit that changes in the n-bit reflected Gray code names the disk to move.

    The counter is stepped by the Gray rule alone (even parity: flip bit 0; odd: flip the bit left of the
    lowest 1), not from the move number. Disk 1 steps one way round; any other disk goes to the one peg that
    holds neither it nor disk 1.
    """
    code = k ^ (k >> 1)
    odd = code.bit_count() & 1
    where = towers.pegs_after(n_disks, src, dst, k)
    step = towers.disk_step(n_disks, 1, src, dst)
    for _ in range(k, (1 << n_disks) - 1):
        bit = ((code & -code) << 1) if odd else 1
        code ^= bit
        odd ^= 1
        disk = bit.bit_length()
        from_peg = where[disk - 1]
        to_peg = (from_peg + step) % 3 if disk == 1 else 3 - from_peg - where[0]
        where[disk - 1] = to_peg
        yield cached_move(disk, from_peg, to_peg)


def bits_moves(n_disks: int, src: int, dst: int, k: int) -> Iterator[Move]:
    """The closed bit formula: move m (1-based) goes from peg (m & (m-1)) % 3 to peg ((m | (m-1)) + 1) % 3.

    The formula moves a tower from peg 0 to peg 2 when n is odd and to peg 1 when n is even; its pegs are
    renamed onto ``src``/``dst``/aux accordingly. No state is kept between moves.
    """
    aux = towers.aux_peg(src, dst)
    frame = (src, aux, dst) if n_disks % 2 else (src, dst, aux)
    for m in range(k + 1, 1 << n_disks):
        yield cached_move((m & -m).bit_length(), frame[(m & (m - 1)) % 3], frame[((m | (m - 1)) + 1) % 3])
