"""The twin-tower lock ("Светофор", "Кодовый замок", "Чёрный ящик"; V. N. Pinaev): its state and our reading of
its rules, kept here in one place.

A row of ``N`` elements, each red, yellow or green (pegs A, B, C in Basov's tape code), one button per element.
The lock opens when every element shows one colour. The first button pressed, ``p``, is stored in the lock's one
memory cell and splits the row into two shuffled towers that share element ``p`` as their common smallest disk:
element ``p - 1`` is disk 2 of the left tower, ``p - 2`` its disk 3, …; element ``p + 1`` is disk 2 of the right
tower, and so on (elements nearer the split are smaller). Pressing the first or last button makes one tower of
``N`` disks.

The seed leaves two things open; :class:`LockRules` states our choice, and another reading is another instance:

* the memory cell: the first press stores ``p`` and counts as a press of ``p``; it keeps ``p`` until the lock opens;
* the smallest disk: pressing ``p`` moves element ``p`` one step round red -> yellow -> green -> red (A -> B -> C,
  as rows 1-3 of Basov's table move disk 1), in both towers at once. The second reading (``pinaev-backward``,
  :data:`READINGS`) steps it the other way round, red -> green -> yellow -> red.

Pressing any other element moves its disk by the Hanoi rules inside its own tower: it moves when it is the top of
its peg and some other peg takes it (every smaller disk of its tower is on the third peg; then that peg is the only
one), else nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import StateError

#: Colour letters by peg: red = A, yellow = B, green = C.
COLOURS = "RYG"
COLOUR_NAMES = ("red", "yellow", "green")
#: Basov's tape letters of the same pegs, also accepted for a whole lock.
PEG_LETTERS = "ABC"
#: Shortest and longest lock the game and the solvers accept.
MIN_LENGTH, MAX_LENGTH = 2, 64


@dataclass(frozen=True)
class LockRules:
    """One reading of the seed's lock: which way the shared smallest disk steps (+1: A -> B -> C -> A)."""

    name: str = "pinaev-forward"
    smallest_step: int = 1

    def smallest_target(self, peg: int) -> int:
        """The peg the shared smallest disk moves to from ``peg``."""
        return (peg + self.smallest_step) % 3


#: The reading the game and the solvers use unless told otherwise.
RULES = LockRules()
#: Every reading that can be chosen by name (``hanoibot lock --rules NAME``, the console's Lock panel).
READINGS = {rules.name: rules for rules in (RULES, LockRules("pinaev-backward", smallest_step=-1))}


def rules_named(name: str) -> LockRules:
    """The reading called ``name``; StateError naming it and the known ones otherwise."""
    if name not in READINGS:
        raise StateError(f"lock rules {name!r} are unknown: expected one of {', '.join(READINGS)}")
    return READINGS[name]


@dataclass(frozen=True)
class Lock:
    """The lock's elements as pegs (0 = red/A, 1 = yellow/B, 2 = green/C), left to right, and its memory cell
    ``split`` (the 0-based index of the first button pressed, None before the first press)."""

    pegs: tuple[int, ...]
    split: int | None = None
    rules: LockRules = RULES

    @classmethod
    def parse(cls, text: str, rules: LockRules = RULES) -> Lock:
        """A fresh lock from colour letters such as ``RYGGR``, or from Basov's peg letters such as ``ACAAC`` (one
        alphabet per lock: ``RYGB`` is refused, B being no colour); raises naming a bad letter."""
        letters = text.strip().upper()
        if not MIN_LENGTH <= len(letters) <= MAX_LENGTH:
            raise StateError(
                f"lock {text!r} has {len(letters)} elements: expected {MIN_LENGTH} to {MAX_LENGTH} colours (R, Y, G)"
            )
        alphabet = COLOURS if any(letter in COLOURS for letter in letters) else PEG_LETTERS
        pegs = []
        for position, letter in enumerate(letters, start=1):
            peg = alphabet.find(letter)
            if peg < 0:
                mixed = ": peg letters A, B, C are taken only for a whole lock" if letter in PEG_LETTERS else ""
                raise StateError(
                    f"colour {letter!r} at position {position} of lock {text!r} is not one of R, Y, G (red, yellow, "
                    f"green){mixed}"
                )
            pegs.append(peg)
        return cls(tuple(pegs), None, rules)

    @property
    def length(self) -> int:
        """Number of elements (buttons)."""
        return len(self.pegs)

    @property
    def is_open(self) -> bool:
        """True when every element shows the same colour."""
        return len(set(self.pegs)) == 1

    def colours(self) -> str:
        """The elements as colour letters, e.g. ``RYGGR``."""
        return "".join(COLOURS[p] for p in self.pegs)

    def smaller_elements(self, index: int) -> range:
        """Indexes of the disks smaller than element ``index`` in its tower (from the split up to it, exclusive)."""
        split = index if self.split is None else self.split
        return range(split, index) if split < index else range(index + 1, split + 1)

    def press(self, button: int) -> Lock:
        """The lock after pressing ``button`` (1-based); unchanged when the element cannot move."""
        if not 1 <= button <= self.length:
            raise StateError(f"button {button} does not exist: expected 1 to {self.length}")
        index = button - 1
        split = index if self.split is None else self.split
        pegs = list(self.pegs)
        if index == split:
            pegs[index] = self.rules.smallest_target(pegs[index])
        else:
            smaller = {self.pegs[i] for i in Lock(self.pegs, split, self.rules).smaller_elements(index)}
            here = pegs[index]
            if len(smaller) != 1 or here in smaller:
                return Lock(self.pegs, split, self.rules)
            pegs[index] = 3 - here - smaller.pop()
        return Lock(tuple(pegs), split, self.rules)


def random_lock(length: int, seed: int, rules: LockRules = RULES) -> Lock:
    """A fresh closed lock of ``length`` elements, each colour drawn uniformly from ``random.Random(seed)`` (the
    seed's "uniformly distributed random number generator"); an open draw is drawn again. Same seed, same lock."""
    import random

    if not MIN_LENGTH <= length <= MAX_LENGTH:
        raise StateError(f"lock length {length} is not supported: expected {MIN_LENGTH} to {MAX_LENGTH} elements")
    rng = random.Random(seed)
    while True:
        lock = Lock(tuple(rng.randrange(3) for _ in range(length)), None, rules)
        if not lock.is_open:
            return lock
