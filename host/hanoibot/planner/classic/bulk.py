"""Bulk text of the classic transfer: ``DISK FROM TO`` lines as large bytes blocks, without per-move Python.

The text of a sub-tower of up to :data:`BLOCK_DISKS` disks is built once per peg pair by bytes doubling
(``text(h, s, d) = text(h-1, s, a) + line(h, s, d) + text(h-1, a, d)``) and then served as zero-copy memoryview
slices; larger disks add one line each between blocks. Memory is bounded by the blocks (about 2.6 MB for
16 disks, all six peg pairs, all levels) whatever ``n`` is, and starting at move ``k`` costs O(n).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from ...puzzle import PEG_LETTERS
from . import towers

#: Sub-towers up to this many disks are served from cached text blocks (~430 kB per peg pair at 16).
BLOCK_DISKS = 16


def line(disk: int, src: int, dst: int) -> bytes:
    """One ``DISK FROM TO`` line with peg letters, e.g. ``b"1 A C\\n"``."""
    return b"%d %c %c\n" % (disk, PEG_LETTERS[src].encode(), PEG_LETTERS[dst].encode())


@cache
def _text(height: int, src: int, dst: int) -> bytes:
    if height == 0:
        return b""
    aux = towers.aux_peg(src, dst)
    return _text(height - 1, src, aux) + line(height, src, dst) + _text(height - 1, aux, dst)


def byte_offset(height: int, k: int) -> int:
    """Where the line of move ``k`` starts in the text of a ``height``-disk transfer (any peg pair). O(height)."""
    return sum(towers.times_moved(disk, k) * (len(str(disk)) + 5) for disk in range(1, height + 1))


def _leaf(height: int, src: int, dst: int, lo: int, hi: int) -> memoryview:
    text = memoryview(_text(height, src, dst))
    if lo == 0 and hi == (1 << height) - 1:
        return text
    return text[byte_offset(height, lo) : byte_offset(height, hi)]


def _single(disk: int, src: int, dst: int) -> bytes:
    return line(disk, src, dst)


def plain_pieces(n_disks: int, src: int, dst: int, lo: int, hi: int) -> Iterator[bytes | memoryview]:
    """The ``DISK FROM TO`` text of moves ``lo`` .. ``hi - 1`` (0-based) of the transfer, as bytes pieces in order."""
    leaf_height = min(BLOCK_DISKS, n_disks)
    return towers.tower_pieces(n_disks, src, dst, lo, hi, leaf_height=leaf_height, leaf=_leaf, single=_single)
