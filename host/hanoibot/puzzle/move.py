"""A single move of one disk between two pegs."""

from __future__ import annotations

from collections import namedtuple

from .pegs import peg_letter

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads the name), without importing typing at start-up
if TYPE_CHECKING:
    from typing import NamedTuple

    class _Fields(NamedTuple):
        disk: int
        src: int
        dst: int

else:  # the same class, built without importing typing (it costs a tenth of the command line's start-up)
    _Fields = namedtuple("Move", ("disk", "src", "dst"))


class Move(_Fields):
    """Move disk ``disk`` (1 = smallest) from peg ``src`` to peg ``dst`` (0 = A): a named tuple of three ints."""

    __slots__ = ()

    def plain(self) -> str:
        """The move as ``DISK FROM TO`` with peg letters, e.g. ``1 A C``."""
        return f"{self.disk} {peg_letter(self.src)} {peg_letter(self.dst)}"

    def __str__(self) -> str:
        return f"disk {self.disk} {peg_letter(self.src)} -> {peg_letter(self.dst)}"
