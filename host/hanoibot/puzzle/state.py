"""Board states and their two spellings.

Compact form (regular states only): one peg letter per disk, smallest disk first — ``ACAB`` is disk 1 on A,
disk 2 on C, disk 3 on A, disk 4 on B. Per-peg form (any state, also irregular stacks): pegs separated by ``/``,
each ``LETTER:`` followed by its disks bottom first — ``A:3,1,2/B:4/C:``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise

from ..errors import IllegalMove, StateError
from .move import Move
from .pegs import MIN_PEGS, check_peg_count, peg_index, peg_letter
from .rules import Rules


def _board_problem(sorted_disks: list[int]) -> str:
    """What is wrong with a sorted list of disk numbers that is not 1..n: a bad, repeated or missing disk."""
    if sorted_disks[0] < 1:
        return f"disk {sorted_disks[0]} is not a disk number"
    repeated = [d for d, e in pairwise(sorted_disks) if d == e]
    if repeated:
        return f"disk {repeated[0]} appears more than once"
    missing = next(disk for disk, have in enumerate(sorted_disks, start=1) if disk != have)
    largest, count = sorted_disks[-1], len(sorted_disks)
    beyond = f" (disk {largest} is more than the {count} disks given)" if largest > count else ""
    return f"disk {missing} is missing{beyond}"


class State:
    """Which disks stand on which peg, bottom first. Immutable and hashable."""

    __slots__ = ("_hash", "_regular", "n_disks", "stacks")

    def __init__(self, stacks: Iterable[Sequence[int]]) -> None:
        self.stacks: tuple[tuple[int, ...], ...] = tuple(tuple(stack) for stack in stacks)
        check_peg_count(len(self.stacks))
        disks = sorted(d for stack in self.stacks for d in stack)
        self.n_disks = len(disks)
        if disks != list(range(1, self.n_disks + 1)):
            raise StateError(f"not a valid board: {_board_problem(disks)}; disks must be 1..n, each exactly once")
        self._hash = hash(self.stacks)
        self._regular: bool | None = None

    # --- constructors ---------------------------------------------------------------------------------
    @classmethod
    def tower(cls, n_disks: int, peg: int = 0, pegs: int = 3) -> State:
        """All ``n_disks`` disks stacked in order on peg ``peg``."""
        if n_disks < 1:
            raise StateError(f"disk count {n_disks} is not supported: expected at least 1")
        check_peg_count(pegs)
        if not 0 <= peg < pegs:
            raise StateError(f"peg {peg} does not exist on a board of {pegs} pegs")
        stacks: list[tuple[int, ...]] = [() for _ in range(pegs)]
        stacks[peg] = tuple(range(n_disks, 0, -1))
        return cls(stacks)

    @classmethod
    def from_pegs(cls, pegs_of_disks: Sequence[int], pegs: int = 3) -> State:
        """The regular state in which disk ``i + 1`` stands on peg ``pegs_of_disks[i]``."""
        check_peg_count(pegs)
        stacks: list[list[int]] = [[] for _ in range(pegs)]
        for disk in range(len(pegs_of_disks), 0, -1):
            peg = pegs_of_disks[disk - 1]
            if not 0 <= peg < pegs:
                raise StateError(f"disk {disk} is on peg {peg}, which does not exist on a board of {pegs} pegs")
            stacks[peg].append(disk)
        return cls(stacks)

    @classmethod
    def parse(cls, text: str, pegs: int | None = None, n_disks: int | None = None) -> State:
        """Parse a state string in compact (``ACAB``) or per-peg (``A:3,1,2/B:4/C:``) form.

        ``pegs`` is the board's peg count (default: 3, or as many as the per-peg form names, at least 3);
        ``n_disks``, if given, must match the string.
        """
        text = text.strip()
        if not text:
            raise StateError("empty state string: expected one peg letter per disk (e.g. AAB) or A:3,2/B:1/C:")
        state = cls._parse_per_peg(text, pegs) if ":" in text else cls._parse_compact(text, pegs or MIN_PEGS)
        if not state.n_disks:
            raise StateError(f"state {text!r} names no disks: expected at least one, e.g. AAB or A:3,2/B:1/C:")
        if n_disks is not None and state.n_disks != n_disks:
            raise StateError(f"state {text!r} has {state.n_disks} disks but {n_disks} were asked for")
        return state

    @classmethod
    def _parse_compact(cls, text: str, pegs: int) -> State:
        for position, char in enumerate(text, start=1):
            if not char.isalpha():
                raise StateError(
                    f"bad character {char!r} at position {position} of state {text!r}: "
                    f"expected peg letters A-{peg_letter(pegs - 1)}"
                )
            peg_index(char, pegs)
        return cls.from_pegs([peg_index(c, pegs) for c in text], pegs)

    @classmethod
    def _parse_per_peg(cls, text: str, pegs: int | None) -> State:
        named: dict[int, tuple[int, ...]] = {}
        for part in text.split("/"):
            letter, sep, disks = part.partition(":")
            if not sep or len(letter.strip()) != 1:
                raise StateError(
                    f"bad peg entry {part!r} in state {text!r}: expected LETTER:disk,disk,… (bottom first)"
                )
            peg = peg_index(letter.strip(), pegs or 26)
            if peg in named:
                raise StateError(f"peg {peg_letter(peg)} appears twice in state {text!r}")
            try:
                named[peg] = tuple(int(d) for d in disks.split(",") if d.strip())
            except ValueError:
                raise StateError(
                    f"bad disk list {disks!r} for peg {peg_letter(peg)}: expected numbers like 3,1,2"
                ) from None
        count = pegs or max(MIN_PEGS, max(named) + 1)
        return cls([named.get(p, ()) for p in range(count)])

    # --- queries --------------------------------------------------------------------------------------
    @property
    def pegs(self) -> int:
        """Number of pegs on the board."""
        return len(self.stacks)

    @property
    def is_regular(self) -> bool:
        """True if no larger disk stands above a smaller one anywhere (checked once, O(n): the disks are distinct,
        so a stack is regular when sorting it largest first changes nothing, and sorting a sorted run is one pass)."""
        if self._regular is None:
            self._regular = all(stack == tuple(sorted(stack, reverse=True)) for stack in self.stacks)
        return self._regular

    def peg_of(self, disk: int) -> int:
        """The peg on which ``disk`` stands."""
        for peg, stack in enumerate(self.stacks):
            if disk in stack:
                return peg
        raise StateError(f"disk {disk} is not on the board (it has disks 1..{self.n_disks})")

    def pegs_of_disks(self) -> tuple[int, ...]:
        """Peg of every disk, smallest disk first (the compact form as numbers)."""
        where = [0] * self.n_disks
        for peg, stack in enumerate(self.stacks):
            for disk in stack:
                where[disk - 1] = peg
        return tuple(where)

    def top(self, peg: int) -> int | None:
        """The disk on top of ``peg``, or None if the peg is empty."""
        stack = self.stacks[peg]
        return stack[-1] if stack else None

    def height(self, peg: int) -> int:
        """Number of disks on ``peg``."""
        return len(self.stacks[peg])

    # --- changes --------------------------------------------------------------------------------------
    def apply(self, move: Move, rules: Rules | None = None) -> State:
        """The state after ``move``; raises :class:`IllegalMove` if the move breaks ``rules`` (default classic)."""
        rules = rules or Rules(self.pegs)
        disk, src, dst = move
        if not (0 <= src < self.pegs and 0 <= dst < self.pegs):
            raise IllegalMove(
                f"move of disk {disk} from peg {src} to peg {dst} names a peg off the board: "
                f"expected pegs 0 to {self.pegs - 1} (A to {peg_letter(self.pegs - 1)})"
            )
        if self.top(src) != disk:
            raise IllegalMove(
                f"disk {disk} is not on top of peg {peg_letter(src)} (top is {self.top(src) or 'nothing'})"
            )
        rules.check_move(disk, src, dst, self.top(dst), self.n_disks)
        stacks = list(self.stacks)
        stacks[src] = stacks[src][:-1]
        stacks[dst] = (*stacks[dst], disk)
        return State(stacks)

    def legal_moves(self, rules: Rules | None = None) -> list[Move]:
        """Every move allowed from this state under ``rules`` (default classic)."""
        rules = rules or Rules(self.pegs)
        moves = []
        for src, stack in enumerate(self.stacks):
            if not stack:
                continue
            disk = stack[-1]
            for dst in range(self.pegs):
                if rules.allows(src, dst) and rules.may_land(disk, self.top(dst), self.n_disks):
                    moves.append(Move(disk, src, dst))
        return moves

    # --- spelling -------------------------------------------------------------------------------------
    def to_string(self) -> str:
        """Compact form for regular states, per-peg form otherwise."""
        if self.is_regular:
            return "".join(peg_letter(p) for p in self.pegs_of_disks())
        return self.to_per_peg_string()

    def to_per_peg_string(self) -> str:
        """Per-peg form, bottom first: ``A:3,1,2/B:4/C:``."""
        return "/".join(f"{peg_letter(p)}:{','.join(map(str, s))}" for p, s in enumerate(self.stacks))

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"State({self.to_per_peg_string()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.stacks == other.stacks

    def __hash__(self) -> int:
        return self._hash
