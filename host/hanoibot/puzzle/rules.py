"""Rules of a Hanoi variant: how many pegs, which pegs may exchange disks, what may sit on what."""

from __future__ import annotations

from ..errors import IllegalMove, PlanError
from ..frozen import Frozen
from .pegs import check_peg_count, peg_letter

TOPOLOGIES = ("any", "linear", "cyclic")
RULE_NAMES = ("classic", "linear", "cyclic", "big-on-top")
#: The coloured puzzles' rules by disks per size (see :mod:`hanoibot.puzzle.colours`): equal sizes may stack.
COLOUR_RULE_NAMES = {2: "bicolor", 3: "tricolor"}


class Rules(Frozen):
    """The rules of one variant.

    ``topology``: ``any`` (every peg pair), ``linear`` (only neighbours A<->B<->C…), ``cyclic`` (one way round,
    A->B->C->…->A). ``big_on_top``: the largest disk may be put on smaller disks (every other disk must still land
    on a larger one). ``per_size``: disks of each size, told apart by colour (the coloured puzzles); disks
    ``1..per_size`` are the smallest size, the next ``per_size`` the next size, and so on; a disk may land on one
    of its own size.
    """

    __slots__ = ("big_on_top", "pegs", "per_size", "topology")
    FIELDS = ("pegs", "topology", "big_on_top", "per_size")
    pegs: int
    topology: str
    big_on_top: bool
    per_size: int

    def __init__(self, pegs: int = 3, topology: str = "any", big_on_top: bool = False, per_size: int = 1) -> None:
        check_peg_count(pegs)
        if topology not in TOPOLOGIES:
            raise PlanError(f"unknown move topology {topology!r}: expected one of {', '.join(TOPOLOGIES)}")
        if per_size not in (1, *COLOUR_RULE_NAMES):
            raise PlanError(f"{per_size} disks per size is not supported: expected 1, 2 or 3")
        if per_size > 1 and (topology != "any" or big_on_top):
            raise PlanError("the coloured puzzles' rules (several disks per size) combine with no other rules")
        self.set_fields(pegs, topology, big_on_top, per_size)

    @classmethod
    def coloured(cls, name: str) -> Rules:
        """The rules of a coloured puzzle by name (``bicolor``: 2 disks per size, ``tricolor``: 3), on 3 pegs."""
        for per_size, known in COLOUR_RULE_NAMES.items():
            if name == known:
                return cls(3, per_size=per_size)
        raise PlanError(f"unknown puzzle {name!r}: expected one of {', '.join(COLOUR_RULE_NAMES.values())}")

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
        """The command-line name of these rules (a coloured puzzle's name for several disks per size)."""
        if self.per_size > 1:
            return COLOUR_RULE_NAMES[self.per_size]
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

    def size_of(self, disk: int) -> int:
        """The size (1 = smallest) of disk number ``disk``: disks ``1..per_size`` are size 1, and so on."""
        return (disk - 1) // self.per_size + 1

    def may_land(self, disk: int, onto: int | None, n_disks: int) -> bool:
        """True if ``disk`` may be put on a peg whose top disk is ``onto`` (None = empty peg)."""
        if onto is None or disk < onto:
            return True
        if self.per_size > 1:
            return self.size_of(disk) <= self.size_of(onto)
        return self.big_on_top and disk == n_disks

    def check_move(self, disk: int, src: int, dst: int, onto: int | None, n_disks: int) -> None:
        """Raise :class:`IllegalMove` naming the problem if the move breaks these rules."""
        if not self.allows(src, dst):
            raise IllegalMove(
                f"disk {disk} may not move from {peg_letter(src)} to {peg_letter(dst)} under {self.name} rules"
            )
        if not self.may_land(disk, onto, n_disks):
            raise IllegalMove(f"disk {disk} may not be put on smaller disk {onto} on peg {peg_letter(dst)}")
