"""A single move of one disk between two pegs."""

from __future__ import annotations

from typing import NamedTuple

from .pegs import peg_letter


class Move(NamedTuple):
    """Move disk ``disk`` (1 = smallest) from peg ``src`` to peg ``dst`` (0 = A)."""

    disk: int
    src: int
    dst: int

    def plain(self) -> str:
        """The move as ``DISK FROM TO`` with peg letters, e.g. ``1 A C``."""
        return f"{self.disk} {peg_letter(self.src)} {peg_letter(self.dst)}"

    def __str__(self) -> str:
        return f"disk {self.disk} {peg_letter(self.src)} -> {peg_letter(self.dst)}"
