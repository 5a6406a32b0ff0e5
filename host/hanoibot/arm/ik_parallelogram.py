"""Closed-form IK of a parallelogram arm: two servos set the upper arm's and the forearm's angles through linkages,
and a parallel link keeps the tool at one pitch (the MeArm, whose claw stays level).

As the MeArm's own libraries do (RorschachUK/meArmPi ``kinematics.py`` after aquila12/me-arm-ik, and
benshields/MeArm-Tower-of-Hanoi): polar coordinates (yaw, radius, height), the wrist a fixed claw length behind
the grip point, then the cosine rule for the shoulder-elbow-wrist triangle, elbow up. Here the servo angles come
out of the chain's own couplings (a linear map), so a kit that measures its forearm angle another way is the same
module with another preset. Plane geometry from :func:`.planar.planar_arm`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..errors import ConfigError, UnreachableError
from .chain import Chain
from .planar import planar_arm, unreachable_distance, where_text, wrap_deg


class ParallelogramIK:
    """IK of a yaw + two-servo parallelogram chain with a tool at a fixed pitch (see the module docstring)."""

    family = "parallelogram"

    def __init__(self, chain: Chain) -> None:
        self.chain = chain
        plane = self.plane = planar_arm(chain, self.family)
        fits = f"[arm] chain {chain.name!r} does not fit the {self.family} IK:"
        yaw_gains, _ = chain.servo_gains(plane.yaw_joint)
        if len(yaw_gains) != 1 or yaw_gains[0][1] != 1.0:
            raise ConfigError(f"{fits} its yaw joint must be driven by a servo of its own")
        self._yaw_servo = yaw_gains[0][0]
        # Each link's turn from its reference direction, as a linear map of the servo angles (degrees):
        # alpha_k = sum over pitch joints i <= k of sign_i * theta_i, theta_i = offset_i + sum gain * servo.
        servos = sorted({s for j in plane.pitch_joints for s, _ in chain.servo_gains(j)[0]})
        if len(servos) != 2 or self._yaw_servo in servos:
            names = ", ".join(chain.actuators[s].name for s in servos)
            raise ConfigError(f"{fits} its pitch joints are driven by servos {names}: expected two, not the yaw's")
        rows: list[list[float]] = []
        offsets: list[float] = []
        row, offset = [0.0, 0.0], 0.0
        for sign, j in zip(plane.pitch_signs, plane.pitch_joints, strict=True):
            gains, joint_offset = chain.servo_gains(j)
            for s, gain in gains:
                row[servos.index(s)] += sign * gain
            offset += sign * joint_offset
            rows.append(row.copy())
            offsets.append(offset)
        if max(abs(v) for v in rows[2]) > 1e-9:
            raise ConfigError(f"{fits} the tool's pitch changes with the servos: expected a linkage that keeps it")
        det = rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0]
        if abs(det) < 1e-9:
            raise ConfigError(f"{fits} its two servos do not set the upper arm and forearm independently")
        self._servos = (servos[0], servos[1])
        self._inverse = ((rows[1][1] / det, -rows[0][1] / det), (-rows[1][0] / det, rows[0][0] / det))
        self._offsets = (offsets[0], offsets[1])
        #: The tool's one pitch (degrees), whatever the servos do.
        self.tool_pitch_deg = math.degrees(plane.approach0) + offsets[2]
        alpha3 = math.radians(offsets[2])
        tool_r, tool_z = plane.links_mm[2]
        # The wrist axis sits this far behind the grip point, in the plane (the claw is rigid at one pitch).
        self._tool_r = tool_r * math.cos(alpha3) - tool_z * math.sin(alpha3)
        self._tool_z = tool_r * math.sin(alpha3) + tool_z * math.cos(alpha3)
        (l1r, l1z), (l2r, l2z) = plane.links_mm[0], plane.links_mm[1]
        self._upper, self._fore = math.hypot(l1r, l1z), math.hypot(l2r, l2z)
        self._phi1, self._phi2 = math.atan2(l1z, l1r), math.atan2(l2z, l2r)
        self._centres = tuple((a.min_deg + a.max_deg) / 2.0 for a in chain.actuators)
        # Limits checked inline (the chain's own check names the joint once one fails): every moving joint's
        # mechanical limits, and the travel of each servo that drives couplings only.
        self._joint_limits = tuple(
            (j, joint.min_deg - 1e-6, joint.max_deg + 1e-6) for j, joint in enumerate(chain.joints) if not joint.is_held
        )
        own = {joint.name for joint in chain.joints if joint.coupling is None and not joint.is_held}
        self._servo_limits = tuple(
            (s, a.min_deg - 1e-6, a.max_deg + 1e-6) for s, a in enumerate(chain.actuators) if a.name not in own
        )

    def solve(self, grip: Sequence[float], pitch_deg: float, seed: Sequence[float] | None = None) -> tuple[float, ...]:
        """Joint angles (degrees, joint order) that put the grip point at ``grip`` (mm); ``pitch_deg`` must be the
        tool's one pitch. ``seed`` is ignored (one answer: elbow up). UnreachableError names the point and why."""
        where = where_text(grip)
        if abs(pitch_deg - self.tool_pitch_deg) > 1e-6:
            raise UnreachableError(
                f"{where} with the {self.chain.tool.name} at pitch {pitch_deg:g} deg: a linkage holds it at "
                f"{self.tool_pitch_deg:g} deg"
            )
        plane = self.plane
        x, y = grip[0] - plane.axis_x_mm, grip[1] - plane.axis_y_mm
        lateral = plane.lateral_mm
        radius_sq = x * x + y * y - lateral * lateral
        radius = math.sqrt(radius_sq) if radius_sq > 1e-12 else 0.0
        if radius < 1e-6:
            raise UnreachableError(f"{where} lies on the base axis: expected a point in front of the arm")
        heading = math.atan2(y, x) - math.atan2(lateral, radius)
        dr = radius - self._tool_r - plane.shoulder_r_mm
        dz = grip[2] - self._tool_z - plane.shoulder_z_mm
        distance = math.hypot(dr, dz)
        upper, fore = self._upper, self._fore
        if not abs(upper - fore) <= distance <= upper + fore:
            raise unreachable_distance(where, distance, upper, fore)
        cos_gamma = (distance * distance - upper * upper - fore * fore) / (2.0 * upper * fore)
        gamma = -math.acos(max(-1.0, min(1.0, cos_gamma)))
        beta1 = math.atan2(dz, dr) + math.atan2(-fore * math.sin(gamma), upper + fore * math.cos(gamma))
        a1 = math.degrees(beta1 - self._phi1) - self._offsets[0]
        a2 = math.degrees(beta1 + gamma - self._phi2) - self._offsets[1]
        (i00, i01), (i10, i11) = self._inverse
        servo_deg = [0.0] * len(self.chain.actuators)
        first, second = self._servos
        centres = self._centres
        servo_deg[self._yaw_servo] = wrap_deg(
            plane.yaw_sign * math.degrees(heading - plane.heading0), centres[self._yaw_servo]
        )
        servo_deg[first] = wrap_deg(i00 * a1 + i01 * a2, centres[first])
        servo_deg[second] = wrap_deg(i10 * a1 + i11 * a2, centres[second])
        angles = self.chain.joint_angles(servo_deg)
        for j, low, high in self._joint_limits:
            if not low <= angles[j] <= high:
                self.chain.check_limits(angles, where)  # raises, naming the joint
        for s, low, high in self._servo_limits:
            if not low <= servo_deg[s] <= high:
                self.chain.check_limits(angles, where)  # raises, naming the servo
        return angles
