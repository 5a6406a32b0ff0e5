"""Where things go in a picture: the board seen from the front in a cabinet projection, lengths in mm.

The view line runs from the first peg to the last (``u`` along it); ``z`` is up. Depth — how far a point lies
behind the view line, towards the arm base — is drawn receding up and to the right at half scale
(:data:`DEPTH_U_PER_MM`, :data:`DEPTH_Z_PER_MM`), so an arm reaching forward over a peg is seen from the side
rather than edge-on, and the drawn fingertips stand right over the peg they are really over.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ..config import RobotConfig

#: Sizes of the schematic board used when no robot config is given (mm).
SCHEMATIC_THICKNESS_MM = 10.0
SCHEMATIC_SMALLEST_MM = 20.0
SCHEMATIC_STEP_MM = 10.0
SCHEMATIC_PEG_DIAMETER_MM = 6.0
#: Cabinet projection: 1 mm of depth is drawn as this much u and this much z (half scale at 45°).
DEPTH_U_PER_MM = 0.5 * math.cos(math.radians(45.0))
DEPTH_Z_PER_MM = 0.5 * math.sin(math.radians(45.0))

Point3 = tuple[float, float, float]


class BoardLayout(NamedTuple):
    """The board as drawn, all in mm: each peg's foot (u, z on the page), peg and disk sizes, the view line.

    ``origin_xy_mm`` and ``axis_xy`` (a unit vector) set the view line in the arm frame; ``depth_xy`` (a unit
    vector across it) points away from the viewer. ``base_mm`` is where the arm base is drawn (None: no arm).
    ``disk_colours`` names each disk's colour for a coloured set (empty: disks are told apart by size).
    """

    peg_u_mm: tuple[float, ...]
    peg_height_mm: float
    peg_diameter_mm: float
    disk_diameters_mm: tuple[float, ...]
    disk_thickness_mm: float
    peg_foot_z_mm: tuple[float, ...] = ()
    origin_xy_mm: tuple[float, float] = (0.0, 0.0)
    axis_xy: tuple[float, float] = (1.0, 0.0)
    depth_xy: tuple[float, float] = (0.0, 1.0)
    base_mm: tuple[float, float] | None = None
    disk_colours: tuple[str, ...] = ()

    def disk_colour(self, disk: int) -> str | None:
        """The colour name of ``disk`` when the disks are coloured (a colour puzzle's set), else None."""
        return self.disk_colours[disk - 1] if disk <= len(self.disk_colours) else None

    def project(self, point_mm: Point3) -> tuple[float, float]:
        """(u, z) on the page in mm of an arm-frame point (x, y, z) in mm."""
        x_mm, y_mm, z_mm = point_mm
        dx_mm, dy_mm = x_mm - self.origin_xy_mm[0], y_mm - self.origin_xy_mm[1]
        along_mm = dx_mm * self.axis_xy[0] + dy_mm * self.axis_xy[1]
        depth_mm = dx_mm * self.depth_xy[0] + dy_mm * self.depth_xy[1]
        return along_mm + depth_mm * DEPTH_U_PER_MM, z_mm + depth_mm * DEPTH_Z_PER_MM

    def foot_z_mm(self, peg: int) -> float:
        """Page height (mm) at which peg ``peg`` stands (0 for a peg on the view line)."""
        return self.peg_foot_z_mm[peg] if self.peg_foot_z_mm else 0.0

    def disk_diameter_mm(self, disk: int) -> float:
        """Diameter (mm) of ``disk``; disks past the configured set grow by the last step."""
        known = self.disk_diameters_mm
        if disk <= len(known):
            return known[disk - 1]
        step_mm = known[-1] - known[-2] if len(known) > 1 else SCHEMATIC_STEP_MM
        return known[-1] + step_mm * (disk - len(known))


def schematic_layout(pegs: int, n_disks: int) -> BoardLayout:
    """An evenly spaced board for ``pegs`` pegs and ``n_disks`` disks when no robot config is at hand."""
    diameters_mm = tuple(SCHEMATIC_SMALLEST_MM + SCHEMATIC_STEP_MM * i for i in range(max(n_disks, 1)))
    spacing_mm = diameters_mm[-1] + SCHEMATIC_STEP_MM
    return BoardLayout(
        peg_u_mm=tuple(spacing_mm * peg for peg in range(pegs)),
        peg_height_mm=(max(n_disks, 1) + 1.5) * SCHEMATIC_THICKNESS_MM,
        peg_diameter_mm=SCHEMATIC_PEG_DIAMETER_MM,
        disk_diameters_mm=diameters_mm,
        disk_thickness_mm=SCHEMATIC_THICKNESS_MM,
    )


def schematic_colour_layout(sizes: int, colours: Sequence[str]) -> BoardLayout:
    """The schematic 3-peg board of a coloured set: ``sizes`` sizes, each in every one of ``colours``, numbered
    size first (as :mod:`hanoibot.puzzle.colours` numbers them)."""
    plain = schematic_layout(3, sizes * len(colours))
    per_size = len(colours)
    diameters_mm = tuple(SCHEMATIC_SMALLEST_MM + SCHEMATIC_STEP_MM * (i // per_size) for i in range(per_size * sizes))
    return plain._replace(disk_diameters_mm=diameters_mm, disk_colours=tuple(colours) * sizes)


def layout_from_pegs(
    pegs_xy_mm: Sequence[tuple[float, float]],
    *,
    peg_height_mm: float,
    peg_diameter_mm: float,
    disk_diameters_mm: Sequence[float],
    disk_thickness_mm: float,
    with_arm: bool = True,
) -> BoardLayout:
    """The view of pegs standing at ``pegs_xy_mm`` (arm frame, mm) from the side of the board away from the arm."""
    (x0, y0), (x1, y1) = pegs_xy_mm[0], pegs_xy_mm[-1]
    length_mm = math.hypot(x1 - x0, y1 - y0) or 1.0
    axis = ((x1 - x0) / length_mm, (y1 - y0) / length_mm)
    across = (-axis[1], axis[0])
    # Depth grows towards the arm base (the arm stands behind the board, seen from the front).
    if -x0 * across[0] - y0 * across[1] < 0:
        across = (-across[0], -across[1])
    layout = BoardLayout(
        peg_u_mm=(),
        peg_height_mm=peg_height_mm,
        peg_diameter_mm=peg_diameter_mm,
        disk_diameters_mm=tuple(disk_diameters_mm),
        disk_thickness_mm=disk_thickness_mm,
        origin_xy_mm=(x0, y0),
        axis_xy=axis,
        depth_xy=across,
    )
    feet = [layout.project((x, y, 0.0)) for x, y in pegs_xy_mm]
    return layout._replace(
        peg_u_mm=tuple(u for u, _ in feet),
        peg_foot_z_mm=tuple(z for _, z in feet),
        base_mm=layout.project((0.0, 0.0, 0.0)) if with_arm else None,
    )


def layout_from_config(config: RobotConfig) -> BoardLayout:
    """The view of a robot config's board, with the arm base."""
    board = config.board
    return layout_from_pegs(
        [(peg.x_mm, peg.y_mm) for peg in board.pegs],
        peg_height_mm=max(peg.height_mm for peg in board.pegs),
        peg_diameter_mm=board.peg_diameter_mm,
        disk_diameters_mm=board.disk_diameters_mm,
        disk_thickness_mm=board.disk_thickness_mm,
    )._replace(disk_colours=board.disk_colours)
