"""The board a preset's arm can reach, and the grip points that prove it.

A :class:`BoardLayout` has the keys of robot.toml's ``[board]`` (peg places, peg height and diameter, the disk
set), so a preset's board can be written into a robot config as it is. :func:`grasp_targets` names the points an
arm must reach to serve a peg in its grasp mode; :func:`check_reach` solves them all with the arm's IK.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import UnreachableError
from .chain import GraspMode, Point
from .ik import InverseKinematics


@dataclass(frozen=True)
class PegSpot:
    """Where a peg stands (its axis on the table, mm) and how tall it is (mm)."""

    x_mm: float
    y_mm: float
    height_mm: float


@dataclass(frozen=True)
class BoardLayout:
    """A peg board: pegs (A, B, … in order), peg diameter, the disk set (smallest first), disk thickness and hole."""

    pegs: tuple[PegSpot, ...]
    peg_diameter_mm: float
    disk_diameters_mm: tuple[float, ...]
    disk_thickness_mm: float
    disk_hole_diameter_mm: float

    def grip_z_mm(self, level: int) -> float:
        """Height (mm) of the mid-plane of a disk at stack ``level`` (0 = on the board): where it is gripped."""
        return (level + 0.5) * self.disk_thickness_mm


def grasp_targets(board: BoardLayout, grasp: GraspMode) -> tuple[tuple[str, Point], ...]:
    """Labelled grip points every peg needs: its foot (the largest disk on the board), the top of a full stack
    (the smallest disk on the others) and above its tip (a held disk's bottom at the tip's height).

    Top-down, the grip point is on the peg's axis. Side-on, a level claw closes on the disk's rim where it faces
    the arm: the grip point is that rim, one disk radius nearer the base axis than the peg's.
    """
    full = len(board.disk_diameters_mm)
    largest, smallest = board.disk_diameters_mm[-1], board.disk_diameters_mm[0]
    out = []
    for index, peg in enumerate(board.pegs):
        name = f"peg {chr(ord('A') + index)}"
        places = (
            ("foot", board.grip_z_mm(0), largest),
            (f"top of {full} disks", board.grip_z_mm(full - 1), smallest),
            ("above its tip", peg.height_mm + board.disk_thickness_mm / 2.0, largest),
        )
        for label, z_mm, diameter_mm in places:
            x_mm, y_mm = peg.x_mm, peg.y_mm
            if grasp is GraspMode.SIDE:
                radius_mm = math.hypot(x_mm, y_mm)
                inward = 1.0 - (diameter_mm / 2.0) / radius_mm
                x_mm, y_mm = x_mm * inward, y_mm * inward
            out.append((f"{name} {label}", Point(x_mm, y_mm, z_mm)))
    return tuple(out)


def check_reach(board: BoardLayout, ik: InverseKinematics) -> None:
    """Raise :class:`UnreachableError` naming the peg and place if the arm cannot reach one of
    :func:`grasp_targets` with the tool at its grasp mode's pitch (every joint within its limits)."""
    grasp = ik.chain.grasp
    for label, point in grasp_targets(board, grasp):
        try:
            ik.solve(point, grasp.pitch_deg)
        except UnreachableError as err:
            raise UnreachableError(f"{label} is out of the arm's reach: {err}") from None
