"""The 4-joint closed form hanoibot planned with before the arm became a chain (issue 32): an independent oracle.

Base yaw, then shoulder, elbow and wrist pitches (degrees; the tool's pitch is their sum, -90 straight down), the
link lengths of robot.toml's short ``[arm]`` form. The chain (:mod:`hanoibot.arm`) and its IK must agree with it on
the default robot; nothing in hanoibot imports it.
"""

from __future__ import annotations

import math
import tomllib
from typing import NamedTuple

from hanoibot.config import default_config_path


class Arm(NamedTuple):
    """The short form's lengths (mm) and each joint's limits (degrees)."""

    shoulder_height_mm: float
    upper_arm_mm: float
    forearm_mm: float
    tool_length_mm: float
    limits_deg: tuple[tuple[float, float], ...]


def default_arm() -> Arm:
    """hardware/robot.toml's ``[arm]``, read as plain TOML."""
    arm = tomllib.loads(default_config_path().read_text(encoding="utf-8"))["arm"]
    limits = tuple((arm[j]["min_deg"], arm[j]["max_deg"]) for j in ("base", "shoulder", "elbow", "wrist"))
    return Arm(arm["shoulder_height_mm"], arm["upper_arm_mm"], arm["forearm_mm"], arm["tool_length_mm"], limits)


def arm_points(arm: Arm, angles: tuple[float, ...]) -> list[tuple[float, float, float]]:
    """Shoulder axis, elbow axis, wrist axis and grip point (mm) for (base, shoulder, elbow, wrist) degrees."""
    base, shoulder, elbow, wrist = angles
    yaw = math.radians(base)
    pitches = (shoulder, shoulder + elbow, shoulder + elbow + wrist)
    radius, z = 0.0, arm.shoulder_height_mm
    points = [(0.0, 0.0, z)]
    for pitch, length in zip(pitches, (arm.upper_arm_mm, arm.forearm_mm, arm.tool_length_mm), strict=True):
        radius += length * math.cos(math.radians(pitch))
        z += length * math.sin(math.radians(pitch))
        points.append((radius * math.cos(yaw), radius * math.sin(yaw), z))
    return points


def forward_kinematics(arm: Arm, angles: tuple[float, ...]) -> tuple[float, float, float]:
    """The grip point (mm)."""
    return arm_points(arm, angles)[-1]


def tool_pitch_deg(angles: tuple[float, ...]) -> float:
    """The tool's pitch (degrees): the sum of the three pitch joints."""
    return angles[1] + angles[2] + angles[3]


def inverse_kinematics(arm: Arm, point: tuple[float, float, float]) -> tuple[float, float, float, float] | None:
    """(base, shoulder, elbow, wrist) degrees that put the grip point at ``point`` with the gripper pointing down,
    elbow up; None if out of reach or past a limit."""
    x, y, z = point
    radius = math.hypot(x, y)
    if radius < 1e-6:
        return None
    dz = z + arm.tool_length_mm - arm.shoulder_height_mm
    distance = math.hypot(radius, dz)
    upper, fore = arm.upper_arm_mm, arm.forearm_mm
    if not abs(upper - fore) <= distance <= upper + fore:
        return None
    elbow = -math.acos(max(-1.0, min(1.0, (distance**2 - upper**2 - fore**2) / (2 * upper * fore))))
    shoulder = math.atan2(dz, radius) + math.atan2(-fore * math.sin(elbow), upper + fore * math.cos(elbow))
    angles = (
        math.degrees(math.atan2(y, x)),
        math.degrees(shoulder),
        math.degrees(elbow),
        -90.0 - math.degrees(shoulder) - math.degrees(elbow),
    )
    if any(not low - 1e-6 <= a <= high + 1e-6 for a, (low, high) in zip(angles, arm.limits_deg, strict=True)):
        return None
    return angles
