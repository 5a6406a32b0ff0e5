"""Rules of a Hanoi variant: how many pegs, which pegs may exchange disks, what may sit on what."""

from __future__ import annotations

from ..errors import IllegalMove, PlanError
from ..frozen import Frozen
from .pegs import check_peg_count, peg_letter

TOPOLOGIES = ("any", "linear", "cyclic")
RULE_NAMES = ("classic", "linear", "cyclic", "big-on-top")


class Rules(Frozen):
    """The rules of one variant.

    ``topology``: ``any`` (every peg pair), ``linear`` (only neighbours A<->B<->C…), ``cyclic`` (one way round,
    A->B->C->…->A). ``big_on_top``: the largest disk may be put on smaller disks (every other disk must still land
    on a larger one).
    """

    __slots__ = ("big_on_top", "pegs", "topology")
    FIELDS = ("pegs", "topology", "big_on_top")
    pegs: int
    topology: str
    big_on_top: bool

    def __init__(self, pegs: int = 3, topology: str = "any", big_on_top: bool = False) -> None:
        check_peg_count(pegs)
        if topology not in TOPOLOGIES:
            raise PlanError(f"unknown move topology {topology!r}: expected one of {', '.join(TOPOLOGIES)}")
        self.set_fields(pegs, topology, big_on_top)

    @classmethod
    def named(cls, name: str, pegs: int = 3) -> Rules:
        """Rules by the name used on the command line: classic, linear, cyclic or big-on-top."""
        if name == "classic":
            return cls(pegs)
        if name == "linear":
            return cls(pegs, "linear")
        if name == "cyclic":
            return cls(pegs, "cyclic")
        if name == "big-on-top":
            return cls(pegs, "linear", big_on_top=True)
        raise PlanError(f"unknown rules {name!r}: expected one of {', '.join(RULE_NAMES)}")

    @property
    def name(self) -> str:
        """The command-line name of these rules."""
        if self.big_on_top:
            return "big-on-top" if self.topology == "linear" else f"{self.topology}+big-on-top"
        return "classic" if self.topology == "any" else self.topology

    def allows(self, src: int, dst: int) -> bool:
        """True if a disk may travel directly from peg ``src`` to peg ``dst``."""
        if src == dst or not (0 <= src < self.pegs and 0 <= dst < self.pegs):
            return False
        if self.topology == "linear":
            return abs(src - dst) == 1
        if self.topology == "cyclic":
            return dst == (src + 1) % self.pegs
        return True

    def may_land(self, disk: int, onto: int | None, n_disks: int) -> bool:
        """True if ``disk`` may be put on a peg whose top disk is ``onto`` (None = empty peg)."""
        if onto is None or disk < onto:
            return True
        return self.big_on_top and disk == n_disks

    def check_move(self, disk: int, src: int, dst: int, onto: int | None, n_disks: int) -> None:
        """Raise :class:`IllegalMove` naming the problem if the move breaks these rules."""
        if not self.allows(src, dst):
            raise IllegalMove(
                f"disk {disk} may not move from {peg_letter(src)} to {peg_letter(dst)} under {self.name} rules"
            )
        if not self.may_land(disk, onto, n_disks):
            raise IllegalMove(f"disk {disk} may not be put on smaller disk {onto} on peg {peg_letter(dst)}")
