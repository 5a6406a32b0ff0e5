"""Board geometry: where pegs stand, how tall stacks are (the arm is a chain of joints: :mod:`hanoibot.arm`).

Coordinates are millimetres in the arm's frame: the origin is the base yaw axis on the table top, +x points
forward from the arm, +y to its left, +z up. Disks are numbered from 1 (smallest).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import ConfigError
from ..puzzle import peg_letter
from ..puzzle.colours import COLOUR_NAMES


@dataclass(frozen=True)
class Peg:
    """One peg: its axis at (``x_mm``, ``y_mm``) on the table and its tip ``height_mm`` above the table."""

    name: str
    x_mm: float
    y_mm: float
    height_mm: float

    def distance_mm(self, x_mm: float, y_mm: float) -> float:
        """Horizontal distance in mm from this peg's axis to the point (``x_mm``, ``y_mm``)."""
        return math.hypot(x_mm - self.x_mm, y_mm - self.y_mm)


@dataclass(frozen=True)
class ColourSet:
    """A second disk set for the coloured puzzles: each size (``diameters_mm``, smallest first) in every one of
    ``colours`` (names out of red, green, blue), as thick as the plain disks."""

    diameters_mm: tuple[float, ...]
    colours: tuple[str, ...]


@dataclass(frozen=True)
class Board:
    """The peg board: pegs (A, B, … in order), peg diameter and the disk set in use (smallest disk first).

    ``disk_colours`` names each disk's colour when the set in use is coloured (several disks per diameter),
    else it is empty; ``colour_set`` is the coloured set the robot owns, if any (see :meth:`with_colour_disks`).
    """

    pegs: tuple[Peg, ...]
    peg_diameter_mm: float
    disk_diameters_mm: tuple[float, ...]
    disk_thickness_mm: float
    colour_set: ColourSet | None = None
    disk_colours: tuple[str, ...] = ()
    #: How much wider (mm) every disk's hole is than the peg it slides on.
    hole_play_mm: float = 2.0

    @property
    def disk_hole_diameter_mm(self) -> float:
        """Diameter (mm) of every disk's hole."""
        return self.peg_diameter_mm + self.hole_play_mm

    @property
    def disk_count(self) -> int:
        """How many disks the board holds (a run may use fewer: disks 1..n, the smallest ones)."""
        return len(self.disk_diameters_mm)

    def peg(self, index: int) -> Peg:
        """Peg number ``index`` (0 = A)."""
        return self.pegs[index]

    def disk_diameter_mm(self, disk: int) -> float:
        """Outer diameter in mm of ``disk`` (1 = smallest)."""
        return self.disk_diameters_mm[disk - 1]

    def disk_colour(self, disk: int) -> str | None:
        """The colour name of ``disk`` (1 = first) when the set in use is coloured, else None."""
        return self.disk_colours[disk - 1] if self.disk_colours else None

    def with_colour_disks(self, sizes: int, per_size: int) -> Board:
        """This board with the coloured set in use: ``sizes`` sizes (the smallest), ``per_size`` colours each
        (red, green, blue in that order), numbered size first; ConfigError naming the key if the set lacks them."""
        owned = self.colour_set
        if owned is None:
            raise ConfigError("[board.colour_set] is missing: the coloured puzzles need a coloured disk set")
        if sizes > len(owned.diameters_mm):
            raise ConfigError(
                f"[board.colour_set] diameters_mm has {len(owned.diameters_mm)} sizes: expected at least {sizes}"
            )
        wanted = COLOUR_NAMES[:per_size]
        missing = [name for name in wanted if name not in owned.colours]
        if missing:
            raise ConfigError(f"[board.colour_set] colours = {list(owned.colours)!r}: expected also {missing[0]!r}")
        diameters_mm = tuple(d for d in owned.diameters_mm[:sizes] for _ in range(per_size))
        return Board(self.pegs, self.peg_diameter_mm, diameters_mm, self.disk_thickness_mm, owned, wanted * sizes)

    def grip_z_mm(self, level: int) -> float:
        """Height in mm of the grip point for a disk at stack ``level`` (0 = lying on the board): its mid-plane."""
        return (level + 0.5) * self.disk_thickness_mm

    def stack_top_mm(self, disks_on_peg: int) -> float:
        """Height in mm of the top face of a stack of ``disks_on_peg`` disks."""
        return disks_on_peg * self.disk_thickness_mm


#: Acceleration limit in deg/s² of a joint or gripper whose config gives none: a derated hobby servo reaches its
#: derated top speed (about 180 deg/s) in 60 ms at this rate, several times gentler than it can.
DEFAULT_MAX_ACCEL_DEG_S2 = 3000.0


def peg_label(peg: int, level: int | None = None) -> str:
    """A peg (and stack level, 1 = bottom disk) as people read it in messages: ``peg C level 3``."""
    text = f"peg {peg_letter(peg)}"
    return text if level is None else f"{text} level {level}"
