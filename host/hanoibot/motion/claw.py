"""A level claw seen from above (a side grasp, :attr:`hanoibot.arm.GraspMode.SIDE`): the bars it is made of.

A top-down gripper's fingers hang round the grip point and sweep a ring (:mod:`hanoibot.sim.shapes`). A level
claw's fingers lie flat, pointing the way the claw approaches (``heading``, a horizontal unit vector): two bars
``finger_thickness_mm`` thick from the palm to the grip point, one each side of it, ``gap_mm`` apart (their inner
faces), and the palm, a bar across their back ends ``finger_length_mm`` behind the grip point. The grip point is
between the fingertips: the claw closes on a disk across its middle, the peg standing between the fingertips.
Every bar is as tall as a finger is wide (``finger_width_mm``), centred on the grip point's height. The
simulated world and the jog's keep-out model both test these bars against upright cylinders (pegs, disks).
All lengths in mm.
"""

from __future__ import annotations

import math
from typing import NamedTuple

#: Thickness (mm) of each gripper finger seen from above (a top-down gripper's or a level claw's).
FINGER_THICKNESS_MM = 4.0


class Bar(NamedTuple):
    """A straight bar seen from above: its centre line from (``ax``, ``ay``) to (``bx``, ``by``) and its half
    thickness (mm)."""

    ax: float
    ay: float
    bx: float
    by: float
    half_mm: float


def claw_bars(
    x_mm: float,
    y_mm: float,
    heading: tuple[float, float],
    gap_mm: float,
    finger_length_mm: float,
    finger_thickness_mm: float,
) -> tuple[Bar, Bar, Bar]:
    """The two fingers and the palm of a level claw whose grip point is at (``x_mm``, ``y_mm``), approaching along
    ``heading`` (a horizontal direction, made unit here) with its fingers' inner faces ``gap_mm`` apart."""
    ux, uy = heading
    norm = math.hypot(ux, uy) or 1.0
    ux, uy = ux / norm, uy / norm
    vx, vy = -uy, ux  # across the claw, to its left
    half = finger_thickness_mm / 2
    side = gap_mm / 2 + half
    back_x, back_y = x_mm - ux * finger_length_mm, y_mm - uy * finger_length_mm
    left = Bar(back_x + vx * side, back_y + vy * side, x_mm + vx * side, y_mm + vy * side, half)
    right = Bar(back_x - vx * side, back_y - vy * side, x_mm - vx * side, y_mm - vy * side, half)
    palm = Bar(back_x - vx * side, back_y - vy * side, back_x + vx * side, back_y + vy * side, half)
    return left, right, palm


def bar_distance_mm(bar: Bar, x_mm: float, y_mm: float) -> float:
    """Distance (mm) from the point (``x_mm``, ``y_mm``) to the bar's surface (negative inside it)."""
    dx, dy = bar.bx - bar.ax, bar.by - bar.ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else ((x_mm - bar.ax) * dx + (y_mm - bar.ay) * dy) / length2
    t = min(max(t, 0.0), 1.0)
    return math.hypot(x_mm - (bar.ax + dx * t), y_mm - (bar.ay + dy * t)) - bar.half_mm


def is_level(approach: tuple[float, float, float]) -> bool:
    """True for a tool that points sideways (a level claw), False for one that points down."""
    return abs(approach[2]) < math.sqrt(0.5)


def standoff_xy_mm(x_mm: float, y_mm: float, back_mm: float) -> tuple[float, float]:
    """The point ``back_mm`` nearer the base yaw axis (the arm frame's origin) than (``x_mm``, ``y_mm``), on the
    line between them: where a level claw, which points away from the base, starts its radial approach to a disk
    centred at (``x_mm``, ``y_mm``) and ends its retreat from it (mm)."""
    radius_mm = math.hypot(x_mm, y_mm)
    inward = max(radius_mm - back_mm, 0.0) / radius_mm if radius_mm > 0 else 0.0
    return x_mm * inward, y_mm * inward
