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


#: Disks whose moves the iterative rule looks up in a table (larger ones, which move rarely, use :func:`cached_move`).
TABLE_DISKS = 24
#: Moves per list the iterative rule hands on (the lists are chained at C speed).
ITERATIVE_RUN_MOVES = 4096


def iterative_moves(n_disks: int, src: int, dst: int, k: int) -> Iterator[Move]:
    """The iterative rule: every other move the smallest disk steps one way round; the move between is forced.

    Keeps the three stacks (each with a bottom larger than every disk, so a top is always there to compare); the
    forced move puts the smaller of the two other top disks on the other peg. Moves are made in lists of
    :data:`ITERATIVE_RUN_MOVES` by a tight loop over move pairs and chained.
    """
    return chain.from_iterable(_iterative_runs(n_disks, src, dst, k))


def _iterative_runs(n_disks: int, src: int, dst: int, k: int) -> Iterator[list[Move]]:
    """Moves ``k``, … of the iterative rule in lists. Disk 1 makes every even-numbered move, so from an odd ``k``
    on the moves come as (forced, disk 1) pairs; from an even ``k`` disk 1 moves once first."""
    where = towers.pegs_after(n_disks, src, dst, k)
    stacks: list[list[int]] = [[n_disks + 1], [n_disks + 1], [n_disks + 1]]
    for disk in range(n_disks, 0, -1):
        stacks[where[disk - 1]].append(disk)
    step = towers.disk_step(n_disks, 1, src, dst)
    ahead = [(peg + step) % 3 for peg in range(3)]
    others = [((peg + 1) % 3, (peg + 2) % 3) for peg in range(3)]
    table = [[cached_move(disk, p, q) for p in range(3) for q in range(3)] for disk in range(TABLE_DISKS + 1)]
    small = where[0]
    left = (1 << n_disks) - 1 - k
    run: list[Move] = []
    if k % 2 == 0 and left:
        to = ahead[small]
        stacks[small].pop()
        stacks[to].append(1)
        run.append(table[1][3 * small + to])
        small = to
        left -= 1
    while left:
        pairs = min(ITERATIVE_RUN_MOVES // 2, left // 2)
        append = run.append
        for _ in range(pairs):
            # the forced move: the smaller top of the two pegs without disk 1 onto the other one
            p, q = others[small]
            from_stack, to_stack = stacks[p], stacks[q]
            if from_stack[-1] > to_stack[-1]:
                p, q, from_stack, to_stack = q, p, to_stack, from_stack
            disk = from_stack.pop()
            to_stack.append(disk)
            append(table[disk][3 * p + q] if disk <= TABLE_DISKS else cached_move(disk, p, q))
            # disk 1 steps on round the pegs
            to = ahead[small]
            stacks[small].pop()
            stacks[to].append(1)
            append(table[1][3 * small + to])
            small = to
        left -= 2 * pairs
        yield run
        run = []
    if run:  # a single move of disk 1 was all that was left
        yield run


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
