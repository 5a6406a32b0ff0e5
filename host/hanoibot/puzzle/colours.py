"""Coloured towers: several disks of each size, told apart by colour; a disk may sit on an equal or larger one.

A :class:`ColourState` stores, for every size (1 = smallest) and every peg, the colours of that size's disks on
that peg, bottom first. Because no disk sits on a smaller one, a peg's stack is its sizes from the largest down,
so these "levels" describe the board completely. Spelling (per peg, bottom first, size then colour letter):
``A:3r,2g,1r/B:3g,2r,1g/C:``.

The two puzzles (cut-the-knot's bicolor and 3-colour towers) and their starts and goals:

* **bicolor** (2ème Championnat de France des Jeux Mathématiques et Logiques, 1988): one red and one green disk of
  each size, in two towers of alternating colours on A and B (A's bottom red, B's bottom green), C empty. Goal: both
  towers monochrome; the two largest disks count as having swapped places, so they stay put and A ends red, B green.
* **tricolor**: three towers, one per colour (red on A, green on B, blue on C). Goal: a derangement, every colour's
  tower on another peg; we take red -> B, green -> C, blue -> A (the other derangement is its mirror image and
  needs as many moves).

On the arm every disk is a physical object: :func:`disk_number` numbers them size first (with ``k`` colours per
size, disks ``1..k`` are the smallest size in colour order, the next ``k`` the next size), so a board is also a
plain :class:`~hanoibot.puzzle.State` of numbered disks and :func:`physical_state` / :func:`colours_of` convert.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..errors import IllegalMove, StateError
from .move import Move
from .pegs import peg_index, peg_letter
from .state import State

COLOUR_LETTERS = "rgb"
COLOUR_NAMES = ("red", "green", "blue")
PUZZLES = ("bicolor", "tricolor")
#: Colours per size in each puzzle.
COLOURS_PER_SIZE = {"bicolor": 2, "tricolor": 3}

Levels = tuple[tuple[tuple[int, ...], ...], ...]


class ColourState:
    """Which coloured disks stand where: ``levels[size - 1][peg]`` = colours of that size on that peg, bottom
    first. Three pegs. Immutable and hashable."""

    __slots__ = ("_hash", "levels")

    def __init__(self, levels: Sequence[Sequence[Sequence[int]]]) -> None:
        self.levels: Levels = tuple(tuple(tuple(c) for c in level) for level in levels)
        if not self.levels or any(len(level) != 3 for level in self.levels):
            raise StateError("a coloured board needs at least one size and three pegs per size")
        self._hash = hash(self.levels)

    @property
    def sizes(self) -> int:
        """Number of disk sizes."""
        return len(self.levels)

    def stack(self, peg: int) -> list[tuple[int, int]]:
        """``(size, colour)`` of every disk on ``peg``, bottom first."""
        return [(size, c) for size in range(self.sizes, 0, -1) for c in self.levels[size - 1][peg]]

    def top(self, peg: int) -> tuple[int, int] | None:
        """``(size, colour)`` of the top disk of ``peg``, or None if it is empty."""
        for size, level in enumerate(self.levels, start=1):
            if level[peg]:
                return size, level[peg][-1]
        return None

    def may_move(self, src: int, dst: int) -> bool:
        """True if the top disk of ``src`` may go onto ``dst`` (empty, or its top at least as large)."""
        moving = self.top(src)
        if moving is None or src == dst:
            return False
        onto = self.top(dst)
        return onto is None or onto[0] >= moving[0]

    def apply(self, move: Move) -> ColourState:
        """The state after moving the top disk of ``move.src`` (of size ``move.disk``) to ``move.dst``."""
        moving = self.top(move.src)
        if moving is None or moving[0] != move.disk:
            raise IllegalMove(f"no disk of size {move.disk} on top of peg {peg_letter(move.src)}")
        if not self.may_move(move.src, move.dst):
            raise IllegalMove(f"disk of size {move.disk} may not go onto a smaller disk on peg {peg_letter(move.dst)}")
        size = moving[0]
        level = [list(c) for c in self.levels[size - 1]]
        level[move.dst].append(level[move.src].pop())
        levels = list(self.levels)
        levels[size - 1] = tuple(tuple(c) for c in level)
        return ColourState(levels)

    def moves(self) -> Iterator[Move]:
        """Every legal move from this state."""
        for src in range(3):
            moving = self.top(src)
            if moving is None:
                continue
            for dst in range(3):
                if dst != src and self.may_move(src, dst):
                    yield Move(moving[0], src, dst)

    def to_string(self) -> str:
        """Per-peg spelling, bottom first: ``A:2r,1g/B:2g,1r/C:``."""
        return "/".join(
            f"{peg_letter(p)}:" + ",".join(f"{s}{COLOUR_LETTERS[c]}" for s, c in self.stack(p)) for p in range(3)
        )

    @classmethod
    def parse(cls, text: str, sizes: int | None = None) -> ColourState:
        """Parse the per-peg spelling; raises :class:`StateError` naming the bad part."""
        found: dict[int, list[tuple[int, int]]] = {}
        for part in text.strip().split("/"):
            letter, sep, disks = part.partition(":")
            if not sep:
                raise StateError(f"bad peg entry {part!r} in {text!r}: expected LETTER:size+colour,… like A:2r,1g")
            peg = peg_index(letter.strip(), 3)
            found[peg] = []
            for item in filter(None, (d.strip() for d in disks.split(","))):
                colour = COLOUR_LETTERS.find(item[-1].lower())
                if colour < 0 or not item[:-1].isdigit() or int(item[:-1]) < 1:
                    raise StateError(
                        f"bad disk {item!r} on peg {peg_letter(peg)}: expected a size and a colour letter "
                        f"({', '.join(COLOUR_LETTERS)}), like 2r"
                    )
                found[peg].append((int(item[:-1]), colour))
        largest = max((s for placed in found.values() for s, _ in placed), default=0)
        count = sizes if sizes is not None else largest
        if largest == 0 or largest > count:
            raise StateError(f"state {text!r} has disks of sizes 1..{largest}: expected sizes 1..{count}")
        levels: list[list[list[int]]] = [[[] for _ in range(3)] for _ in range(count)]
        for peg, placed in found.items():
            for (size, colour), above in zip(placed, [*placed[1:], None], strict=False):
                if above is not None and above[0] > size:
                    raise StateError(f"disk {above[0]} stands on smaller disk {size} on peg {peg_letter(peg)}")
                levels[size - 1][peg].append(colour)
        return cls(levels)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ColourState) and self.levels == other.levels

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"ColourState({self.to_string()!r})"


def _towers(sizes: int, colour_of: Sequence[Sequence[int]]) -> ColourState:
    """A board whose peg ``p`` holds one disk of every size, of colour ``colour_of[p][size - 1]`` (empty row: none)."""
    return ColourState(
        [[(colour_of[p][size - 1],) if colour_of[p] else () for p in range(3)] for size in range(1, sizes + 1)]
    )


def start_and_goal(puzzle: str, sizes: int) -> tuple[ColourState, ColourState]:
    """The start and the goal of ``puzzle`` (``bicolor`` or ``tricolor``) with ``sizes`` disk sizes."""
    if puzzle not in PUZZLES:
        raise StateError(f"unknown puzzle {puzzle!r}: expected one of {', '.join(PUZZLES)}")
    if sizes < 1:
        raise StateError(f"size count {sizes} is not supported: expected at least 1")
    if puzzle == "bicolor":
        a = [(sizes - s) % 2 for s in range(1, sizes + 1)]  # the largest is red (0), then alternating
        b = [1 - c for c in a]
        return _towers(sizes, [a, b, []]), _towers(sizes, [[0] * sizes, [1] * sizes, []])
    one = [[c] * sizes for c in range(3)]
    return _towers(sizes, one), _towers(sizes, [one[2], one[0], one[1]])


def disk_number(size: int, colour: int, per_size: int) -> int:
    """The physical disk number of the disk of ``size`` (1 = smallest) and ``colour`` (0 = red, 1 = green, …)."""
    return (size - 1) * per_size + colour + 1


def size_and_colour(disk: int, per_size: int) -> tuple[int, int]:
    """``(size, colour)`` of physical disk number ``disk`` (the inverse of :func:`disk_number`)."""
    return (disk - 1) // per_size + 1, (disk - 1) % per_size


def physical_state(state: ColourState, per_size: int) -> State:
    """``state`` as a board of numbered disks (:func:`disk_number`), each peg bottom first."""
    return State([[disk_number(size, c, per_size) for size, c in state.stack(peg)] for peg in range(3)])


def colours_of(stacks: Sequence[Sequence[int]], per_size: int) -> ColourState:
    """The coloured board that per-peg stacks of numbered disks (bottom first) form; StateError if a disk stands
    on a smaller one, a disk number repeats, or the disks are not whole sizes of ``per_size`` colours."""
    if len(stacks) != 3:
        raise StateError(f"a coloured board has 3 pegs, not {len(stacks)}")
    disks = sorted(d for stack in stacks for d in stack)
    if not disks or len(disks) % per_size or disks != list(range(1, len(disks) + 1)):
        raise StateError(f"disks {disks} are not {per_size} of each size, each once")
    levels: list[list[list[int]]] = [[[] for _ in range(3)] for _ in range(len(disks) // per_size)]
    for peg, stack in enumerate(stacks):
        for below, disk in zip([None, *stack], stack, strict=False):
            size, colour = size_and_colour(disk, per_size)
            if below is not None and size_and_colour(below, per_size)[0] < size:
                raise StateError(f"disk {disk} stands on smaller disk {below} on peg {peg_letter(peg)}")
            levels[size - 1][peg].append(colour)
    return ColourState(levels)


def colour_words(state: ColourState) -> str:
    """Each peg's colours bottom first, for people: ``A red red / B green green / C -``."""
    pegs = []
    for peg in range(3):
        names = [COLOUR_NAMES[c] for _, c in state.stack(peg)]
        pegs.append(f"{peg_letter(peg)} {' '.join(names) if names else '-'}")
    return " / ".join(pegs)
