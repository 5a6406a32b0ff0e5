"""Closed-form IK of a serial pitch chain: a base yaw joint and three parallel pitch joints, each on its own servo.

Today's arm (an offset of 0), the SO-101 (its upper arm's elbow sits 28 mm off the line between its axes; its
joints run a few mm beside the pan axis) and a bracket arm with its wrist roll held are all this family. The tool
pitch is given, so the last pitch joint's axis (the wrist) sits at a known place behind the grip point; the shoulder
and elbow then span the triangle to it (cosine rule), elbow up: the elbow above the shoulder-wrist line, which
keeps the forearm clear of the pegs below it. Plane geometry from :func:`.planar.planar_arm`; about 2-3 µs a call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..errors import ConfigError, UnreachableError
from .chain import Chain
from .planar import planar_arm, unreachable_distance, where_text, wrap_deg


class SerialPitchIK:
    """IK of a yaw + three-pitch chain with every moving joint on its own servo (see the module docstring)."""

    family = "serial_pitch"

    def __init__(self, chain: Chain) -> None:
        self.chain = chain
        plane = planar_arm(chain, self.family)
        for j in (plane.yaw_joint, *plane.pitch_joints):
            if chain.joints[j].coupling is not None:
                raise ConfigError(
                    f"[arm] chain {chain.name!r} does not fit the {self.family} IK: joint {chain.joints[j].name!r} "
                    "is coupled (try ik = 'parallelogram' or 'numeric')"
                )
        self.plane = plane
        (l1r, l1z), (l2r, l2z), self._tool = plane.links_mm
        self._upper, self._fore = math.hypot(l1r, l1z), math.hypot(l2r, l2z)
        # Each link's angle off its reference direction (0 for a straight link, today's arm).
        self._phi1, self._phi2 = math.atan2(l1z, l1r), math.atan2(l2z, l2r)
        self._centres = tuple((joint.min_deg + joint.max_deg) / 2.0 for joint in chain.joints)
        self._held = [joint.held_deg if joint.held_deg is not None else 0.0 for joint in chain.joints]
        self._limits = tuple(
            (j, chain.joints[j].min_deg - 1e-6, chain.joints[j].max_deg + 1e-6)
            for j in (plane.yaw_joint, *plane.pitch_joints)
        )

    def solve(self, grip: Sequence[float], pitch_deg: float, seed: Sequence[float] | None = None) -> tuple[float, ...]:
        """Joint angles (degrees, joint order) that put the grip point at ``grip`` (x, y, z in mm) with the tool at
        ``pitch_deg``; ``seed`` is ignored (one answer: elbow up). UnreachableError names the point and the reason
        (the distance it cannot span, or the joint that would leave its limits)."""
        plane = self.plane
        x, y, z = grip[0] - plane.axis_x_mm, grip[1] - plane.axis_y_mm, grip[2]
        lateral = plane.lateral_mm
        if lateral:
            radius_sq = x * x + y * y - lateral * lateral
            radius = math.sqrt(radius_sq) if radius_sq > 1e-12 else 0.0
        else:
            radius = math.hypot(x, y)
        if radius < 1e-6:
            raise UnreachableError(f"{where_text(grip)} lies on the base axis: expected a point in front of the arm")
        heading = math.atan2(y, x) - (math.atan2(lateral, radius) if lateral else 0.0)
        # The wrist axis sits behind the grip point along the tool at the asked pitch.
        tool_r, tool_z = self._tool
        alpha3 = math.radians(pitch_deg) - plane.approach0
        c3, s3 = math.cos(alpha3), math.sin(alpha3)
        dr = radius - tool_r * c3 + tool_z * s3 - plane.shoulder_r_mm
        dz = z - tool_r * s3 - tool_z * c3 - plane.shoulder_z_mm
        distance = math.hypot(dr, dz)
        upper, fore = self._upper, self._fore
        if not abs(upper - fore) <= distance <= upper + fore:
            raise unreachable_distance(where_text(grip), distance, upper, fore)
        cos_gamma = (distance * distance - upper * upper - fore * fore) / (2.0 * upper * fore)
        gamma = -math.acos(max(-1.0, min(1.0, cos_gamma)))
        beta1 = math.atan2(dz, dr) + math.atan2(-fore * math.sin(gamma), upper + fore * math.cos(gamma))
        alpha1 = beta1 - self._phi1
        s1, s2, s3_sign = plane.pitch_signs
        angles = self._held.copy()
        j0, (j1, j2, j3) = plane.yaw_joint, plane.pitch_joints
        centres = self._centres
        angles[j0] = wrap_deg(plane.yaw_sign * math.degrees(heading - plane.heading0), centres[j0])
        angles[j1] = wrap_deg(s1 * math.degrees(alpha1), centres[j1])
        angles[j2] = wrap_deg(s2 * math.degrees(gamma + self._phi1 - self._phi2), centres[j2])
        alpha2 = beta1 + gamma - self._phi2
        angles[j3] = wrap_deg(s3_sign * math.degrees(alpha3 - alpha2), centres[j3])
        for j, low, high in self._limits:
            if not low <= angles[j] <= high:
                self.chain.check_limits(angles, where_text(grip))  # raises, naming the joint
        return tuple(angles)
