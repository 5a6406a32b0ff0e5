"""Grip-point paths made of joint-space pieces: straight vertical lines and level moves over the pegs.

The firmware interpolates every channel's pulse linearly along one time profile, so a segment's grip-point path
is the forward kinematics of the straight line between its start and end pulses. Where that path would wander
from the line we want (sideways while descending, or below the safe height while travelling) by more than
``[motion] line_tolerance_mm``, the piece is split at the midpoint of the wanted path, recursively.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from .geometry import Peg
from .kinematics import Point
from .robot import RobotConfig

Pulses = tuple[int, ...]

#: Points at which each piece's path is checked (the ends included).
PATH_SAMPLES = 16
#: Deepest split: at most 2**MAX_SPLIT_DEPTH pieces per path.
MAX_SPLIT_DEPTH = 5


def pulses_at(config: RobotConfig, point: Point, gripper_us: int) -> Pulses:
    """Channel pulses (µs) that put the grip point at ``point`` (mm) with the tool at its grasp mode's pitch."""
    return config.pulses_at(point, gripper_us)


def path_points(config: RobotConfig, from_us: Sequence[float], to_us: Sequence[float]) -> list[Point]:
    """Grip points (mm) along the firmware's pulse interpolation from ``from_us`` to ``to_us``, ends included."""
    points = []
    for i in range(PATH_SAMPLES + 1):
        t = i / PATH_SAMPLES
        points.append(config.grip_point([a + (b - a) * t for a, b in zip(from_us, to_us, strict=True)]))
    return points


def distance_to_line_mm(point: Point, start: Point, end: Point) -> float:
    """Distance in mm from ``point`` to the line segment ``start``-``end``."""
    sx, sy, sz = start
    dx, dy, dz = end[0] - sx, end[1] - sy, end[2] - sz
    length2 = dx * dx + dy * dy + dz * dz
    px, py, pz = point
    t = 0.0 if length2 == 0 else ((px - sx) * dx + (py - sy) * dy + (pz - sz) * dz) / length2
    t = min(max(t, 0.0), 1.0)
    return math.dist(point, (sx + dx * t, sy + dy * t, sz + dz * t))


def _split(
    config: RobotConfig,
    start: Point,
    end: Point,
    from_us: Pulses,
    gripper_us: int,
    midpoint: Callable[[Point, Point], Point],
    wander_mm: Callable[[list[Point], Point, Point], float],
    depth: int = 0,
) -> list[Pulses]:
    """End pulses of the pieces from ``from_us`` to ``end`` whose path wanders at most the tolerance."""
    to_us = pulses_at(config, end, gripper_us)
    if depth >= MAX_SPLIT_DEPTH or wander_mm(path_points(config, from_us, to_us), start, end) <= (
        config.motion.line_tolerance_mm
    ):
        return [to_us]
    middle = midpoint(start, end)
    first = _split(config, start, middle, from_us, gripper_us, midpoint, wander_mm, depth + 1)
    return first + _split(config, middle, end, first[-1], gripper_us, midpoint, wander_mm, depth + 1)


def straight_line(config: RobotConfig, from_us: Pulses, end: Point, gripper_us: int) -> list[Pulses]:
    """Pieces (end pulses) that move the grip point in a straight line from where ``from_us`` puts it to ``end``."""

    def midpoint(a: Point, b: Point) -> Point:
        return Point((a.x_mm + b.x_mm) / 2, (a.y_mm + b.y_mm) / 2, (a.z_mm + b.z_mm) / 2)

    def wander_mm(path: list[Point], a: Point, b: Point) -> float:
        return max(distance_to_line_mm(p, a, b) for p in path)

    return _split(config, config.grip_point(from_us), end, from_us, gripper_us, midpoint, wander_mm)


def level_move(config: RobotConfig, from_us: Pulses, end: Point, gripper_us: int) -> list[Pulses]:
    """Pieces (end pulses) that carry the grip point to ``end`` without dipping below the lower of its two ends.

    The path may curve sideways (the base turns); between its ends it is split on a circle-like path (yaw and
    radius interpolated) wherever the joint-space interpolation would sag by more than the tolerance.
    """

    def midpoint(a: Point, b: Point) -> Point:
        yaw = (math.atan2(a.y_mm, a.x_mm) + math.atan2(b.y_mm, b.x_mm)) / 2
        radius = (math.hypot(a.x_mm, a.y_mm) + math.hypot(b.x_mm, b.y_mm)) / 2
        return Point(radius * math.cos(yaw), radius * math.sin(yaw), max(a.z_mm, b.z_mm))

    def wander_mm(path: list[Point], a: Point, b: Point) -> float:
        return max(min(a.z_mm, b.z_mm) - p.z_mm for p in path)

    return _split(config, config.grip_point(from_us), end, from_us, gripper_us, midpoint, wander_mm)


def pegs_near_path(
    config: RobotConfig, from_us: Sequence[float], to_us: Sequence[float], half_width_mm: float
) -> list[int]:
    """Indexes of the pegs whose axis passes within ``half_width_mm`` (plus the peg's radius) of the path."""
    path = path_points(config, from_us, to_us)
    reach_mm = half_width_mm + config.board.peg_diameter_mm / 2
    return [
        index
        for index, peg in enumerate(config.board.pegs)
        if min(peg.distance_mm(p.x_mm, p.y_mm) for p in path) <= reach_mm
    ]


def clear_height_mm(peg: Peg, disks_on_peg: int, thickness_mm: float) -> float:
    """Top of whatever stands at ``peg`` in mm: its tip, or its stack if that were taller."""
    return max(peg.height_mm, disks_on_peg * thickness_mm)
