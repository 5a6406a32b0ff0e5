"""Forward and inverse kinematics of the 4-DOF arm, with the gripper held vertical for inverse kinematics.

Angle conventions (degrees, the joint frame of :class:`~hanoibot.motion.geometry.Arm`):

- ``base_deg``: yaw about the vertical axis, 0 = pointing along +x, positive turns towards +y.
- ``shoulder_deg``: upper arm elevation above the horizontal, 90 = straight up.
- ``elbow_deg``: forearm angle relative to the upper arm, 0 = in line, negative = folded downwards.
- ``wrist_deg``: tool angle relative to the forearm; the tool's absolute pitch is the sum of the three
  pitches, and -90 means the gripper points straight down.

Inverse kinematics picks the elbow-up solution (elbow above the shoulder-wrist line), which keeps the
forearm clear of the pegs below it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..errors import UnreachableError
from .geometry import JOINT_NAMES, Arm

#: Absolute tool pitch in degrees for a gripper pointing straight down.
VERTICAL_DOWN_DEG = -90.0


class Point(NamedTuple):
    """A point in the arm frame, millimetres (origin: base axis on the table, +x forward, +z up)."""

    x_mm: float
    y_mm: float
    z_mm: float


class JointAngles(NamedTuple):
    """One arm pose in degrees, in joint order base, shoulder, elbow, wrist."""

    base_deg: float
    shoulder_deg: float
    elbow_deg: float
    wrist_deg: float


def tool_pitch_deg(angles: JointAngles) -> float:
    """Absolute pitch of the tool in degrees (0 = horizontal, -90 = pointing straight down)."""
    return angles.shoulder_deg + angles.elbow_deg + angles.wrist_deg


def arm_points(arm: Arm, angles: JointAngles) -> tuple[Point, Point, Point, Point]:
    """Positions in mm of the shoulder axis, elbow axis, wrist axis and grip point for ``angles``."""
    yaw = math.radians(angles.base_deg)
    cos_yaw, sin_yaw = math.cos(yaw), math.sin(yaw)
    pitches = (
        angles.shoulder_deg,
        angles.shoulder_deg + angles.elbow_deg,
        tool_pitch_deg(angles),
    )
    lengths = (arm.upper_arm_mm, arm.forearm_mm, arm.tool_length_mm)
    radius_mm, z_mm = 0.0, arm.shoulder_height_mm
    points = [Point(0.0, 0.0, z_mm)]
    for pitch_deg, length_mm in zip(pitches, lengths, strict=True):
        radius_mm += length_mm * math.cos(math.radians(pitch_deg))
        z_mm += length_mm * math.sin(math.radians(pitch_deg))
        points.append(Point(radius_mm * cos_yaw, radius_mm * sin_yaw, z_mm))
    return points[0], points[1], points[2], points[3]


def forward_kinematics(arm: Arm, angles: JointAngles) -> Point:
    """Position in mm of the grip point (between the fingertips) for joint ``angles`` in degrees: the last of
    :func:`arm_points`, the same sums in the same order (so the same floats), without the points before it (the
    blend checker asks for it every few ms of every planned move)."""
    base_deg, shoulder_deg, elbow_deg, wrist_deg = angles
    forearm_deg = shoulder_deg + elbow_deg
    tool_deg = forearm_deg + wrist_deg
    radius_mm = (
        0.0
        + arm.upper_arm_mm * math.cos(math.radians(shoulder_deg))
        + arm.forearm_mm * math.cos(math.radians(forearm_deg))
        + arm.tool_length_mm * math.cos(math.radians(tool_deg))
    )
    z_mm = (
        arm.shoulder_height_mm
        + arm.upper_arm_mm * math.sin(math.radians(shoulder_deg))
        + arm.forearm_mm * math.sin(math.radians(forearm_deg))
        + arm.tool_length_mm * math.sin(math.radians(tool_deg))
    )
    yaw = math.radians(base_deg)
    return Point(radius_mm * math.cos(yaw), radius_mm * math.sin(yaw), z_mm)


def inverse_kinematics(arm: Arm, point: Point) -> JointAngles:
    """Joint angles in degrees that put the grip point at ``point`` (mm) with the gripper pointing down.

    Raises :class:`~hanoibot.errors.UnreachableError` naming the point and the reason if the point is out of
    reach or a joint would leave its limits.
    """
    radius_mm = math.hypot(point.x_mm, point.y_mm)
    where = f"point (x={point.x_mm:.1f}, y={point.y_mm:.1f}, z={point.z_mm:.1f}) mm"
    if radius_mm < 1e-6:
        raise UnreachableError(f"{where} lies on the base axis: expected a point in front of the arm")
    base_deg = math.degrees(math.atan2(point.y_mm, point.x_mm))
    # The wrist axis sits straight above the grip point; solve the shoulder-elbow triangle to reach it.
    dz_mm = point.z_mm + arm.tool_length_mm - arm.shoulder_height_mm
    distance_mm = math.hypot(radius_mm, dz_mm)
    upper, fore = arm.upper_arm_mm, arm.forearm_mm
    if not abs(upper - fore) <= distance_mm <= upper + fore:
        raise UnreachableError(
            f"{where} puts the wrist {distance_mm:.1f} mm from the shoulder: "
            f"expected {abs(upper - fore):.1f} to {upper + fore:.1f} mm"
        )
    cos_elbow = (distance_mm**2 - upper**2 - fore**2) / (2.0 * upper * fore)
    elbow_rad = -math.acos(max(-1.0, min(1.0, cos_elbow)))
    shoulder_rad = math.atan2(dz_mm, radius_mm) + math.atan2(
        -fore * math.sin(elbow_rad), upper + fore * math.cos(elbow_rad)
    )
    shoulder_deg = math.degrees(shoulder_rad)
    elbow_deg = math.degrees(elbow_rad)
    angles = JointAngles(base_deg, shoulder_deg, elbow_deg, VERTICAL_DOWN_DEG - shoulder_deg - elbow_deg)
    check_joint_limits(arm, angles, where)
    return angles


def check_joint_limits(arm: Arm, angles: JointAngles, where: str = "pose") -> None:
    """Raise :class:`~hanoibot.errors.UnreachableError` if any angle (degrees) lies outside its joint limits."""
    for joint, angle_deg in zip(arm.joints, angles, strict=True):
        if not joint.contains(angle_deg, tolerance_deg=1e-6):
            raise UnreachableError(
                f"{where} needs {joint.name} at {angle_deg:.1f} deg: "
                f"expected {joint.min_deg:g} to {joint.max_deg:g} deg"
            )


__all__ = [
    "JOINT_NAMES",
    "VERTICAL_DOWN_DEG",
    "JointAngles",
    "Point",
    "arm_points",
    "check_joint_limits",
    "forward_kinematics",
    "inverse_kinematics",
    "tool_pitch_deg",
]
