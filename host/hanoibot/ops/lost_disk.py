"""A disk a board reset may have let go: what to ask the person, and the board once they said where it lies.

A reset cuts the servos: a disk the arm was carrying falls, or stays between the limp fingers. Nothing may run from
the board the host believes until the person said on which peg that disk lies (its source peg, where they put it
back, or the peg it was carried to).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import HanoiError
from ..puzzle import Move, State, peg_index, peg_letter


@dataclass(frozen=True)
class LostDisk:
    """The disk of ``move``, which was under way when the board was reset."""

    move: Move

    @property
    def disk(self) -> int:
        """The disk's size number."""
        return self.move.disk

    @property
    def pegs(self) -> list[str]:
        """The pegs it may lie on: the one it came from, then the one it was carried to (letters)."""
        return [peg_letter(self.move.src), peg_letter(self.move.dst)]

    @property
    def text(self) -> str:
        """The question, in words."""
        src, dst = self.pegs
        return (
            f"Where does disk {self.disk} lie? The reset came while the arm moved it from peg {src} to peg {dst}. "
            f"If it fell, put it back on peg {src}; if it is still in the gripper, take it out by hand first."
        )

    def to_json(self) -> dict[str, Any]:
        """The question as the console's page reads it: ``disk``, ``pegs`` and ``text``."""
        return {"disk": self.disk, "pegs": self.pegs, "text": self.text}

    def placed(self, board: State, peg: str) -> State:
        """``board`` (where the disk was believed to be, on its source peg) with the disk moved to ``peg`` (a
        letter); HanoiError naming the peg when it is no peg of the board or the disk cannot lie there."""
        disk, src = self.disk, self.move.src
        try:
            to = peg_index(peg)
            if to >= board.pegs:
                raise ValueError(peg)
        except ValueError:
            last = peg_letter(board.pegs - 1)
            raise HanoiError(f"peg {peg!r}: expected a peg letter of the arm's board, A to {last}") from None
        stacks = [list(s) for s in board.stacks]
        if not stacks[src] or stacks[src][-1] != disk:
            raise HanoiError(f"disk {disk} is not on top of peg {peg_letter(src)} on the arm's board {board}")
        stacks[src].pop()
        if stacks[to] and stacks[to][-1] < disk:
            raise HanoiError(f"disk {disk} cannot lie on disk {stacks[to][-1]} on peg {peg}: look again")
        stacks[to].append(disk)
        return State(tuple(tuple(s) for s in stacks))
