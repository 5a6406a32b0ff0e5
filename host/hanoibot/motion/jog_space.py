"""Where a hand-jogged gripper may go: a conservative model of what it could touch, from the robot config alone.

The host does not know where the disks are while jogging, so every peg is taken to carry the full disk set: two
upright cylinders per peg, the peg itself (its diameter, up to its tip) and a stack of the largest disk (up to the
height of every disk of the board). The fingers are a ring around the grip point (the finger gap inside, plus
:data:`JOG_MARGIN_MM`) from the grip point up to the palm; they may pass over a cylinder, or surround it
(a peg or stack wholly inside the gap, as when taking a disk), never cut into it. A level claw (a side grasp) is
its bars instead (:mod:`.claw`: two flat fingers and the palm behind them, kept :data:`JOG_MARGIN_MM` away),
as tall as a finger is wide: they may pass over a cylinder or beside it, never into it. The grip point stays
:data:`FLOOR_CLEARANCE_MM` above the board surface (z = 0). All lengths in mm.
"""

from __future__ import annotations

from .claw import FINGER_THICKNESS_MM, bar_distance_mm, claw_bars, is_level
from .geometry import Board
from .hardware import Gripper
from .kinematics import Point

#: Air kept between the fingers (their thickness included) and anything they could touch, in mm.
JOG_MARGIN_MM = 6.0
#: Lowest the grip point may go, in mm above the board surface.
FLOOR_CLEARANCE_MM = 1.0


def obstacle_hit(
    board: Board,
    gripper: Gripper,
    point: Point,
    width_mm: float,
    approach: tuple[float, float, float] = (0.0, 0.0, -1.0),
) -> str | None:
    """What the gripper at grip point ``point`` with finger gap ``width_mm``, its fingers pointing along
    ``approach``, could touch ("peg B", "the board surface"), or None when it is clear of everything."""
    if point.z_mm < FLOOR_CLEARANCE_MM:
        return "the board surface"
    if is_level(approach):
        return _claw_hit(board, gripper, point, width_mm, (approach[0], approach[1]))
    inner_mm = width_mm / 2
    outer_mm = inner_mm + JOG_MARGIN_MM
    palm_z_mm = point.z_mm + gripper.finger_length_mm
    palm_radius_mm = gripper.open_width_mm / 2 + JOG_MARGIN_MM
    stack_radius_mm = max(board.disk_diameters_mm) / 2
    stack_top_mm = board.stack_top_mm(board.disk_count)
    for peg in board.pegs:
        d_mm = peg.distance_mm(point.x_mm, point.y_mm)
        for radius_mm, top_mm in ((board.peg_diameter_mm / 2, peg.height_mm), (stack_radius_mm, stack_top_mm)):
            if point.z_mm >= top_mm + JOG_MARGIN_MM:
                continue  # the fingertips pass over it
            surrounded = d_mm + radius_mm <= inner_mm
            apart = d_mm - radius_mm >= outer_mm
            palm_clear = top_mm <= palm_z_mm or d_mm - radius_mm >= palm_radius_mm
            if not ((surrounded or apart) and palm_clear):
                return f"peg {peg.name}" if radius_mm < stack_radius_mm else f"a stack of disks on peg {peg.name}"
    return None


def _claw_hit(
    board: Board, gripper: Gripper, point: Point, width_mm: float, heading: tuple[float, float]
) -> str | None:
    """:func:`obstacle_hit` for a level claw (module docstring)."""
    bars = claw_bars(point.x_mm, point.y_mm, heading, width_mm, gripper.finger_length_mm, FINGER_THICKNESS_MM)
    low_z_mm = point.z_mm - gripper.finger_width_mm / 2
    stack_radius_mm = max(board.disk_diameters_mm) / 2
    stack_top_mm = board.stack_top_mm(board.disk_count)
    for peg in board.pegs:
        for radius_mm, top_mm in ((board.peg_diameter_mm / 2, peg.height_mm), (stack_radius_mm, stack_top_mm)):
            if low_z_mm >= top_mm + JOG_MARGIN_MM:
                continue  # the claw passes over it
            if any(bar_distance_mm(bar, peg.x_mm, peg.y_mm) < radius_mm + JOG_MARGIN_MM for bar in bars):
                return f"peg {peg.name}" if radius_mm < stack_radius_mm else f"a stack of disks on peg {peg.name}"
    return None
