"""A chain seen as a base yaw joint and three parallel pitch joints: the plane both analytic IK families solve in.

:func:`planar_arm` reads the geometry off the chain itself (its frames at the reference pose: every moving joint at
0, every held joint at its held angle), so a preset or a URDF need not be written in any special way: the yaw axis
must be vertical, the three pitch axes horizontal and parallel, the tool's approach in their plane. What it finds:

- the yaw axis' place on the table and the heading of the arm's plane at yaw 0;
- the **lateral offset** ``lateral_mm``: how far the plane runs beside the yaw axis (an SO-101's joints sit a few
  mm off its pan axis: the same at every pose, since pitch joints turn about axes across the plane);
- the shoulder axis in the plane (radius from the yaw axis, height), and each link as a planar vector at the
  reference pose (so an upper arm whose elbow sits 28 mm off the line between its axes, the SO-101's, is one
  vector with its angle), each pitch joint's turning sense, and the tool's approach angle.

Planar angles (radians) count from the plane's radial direction towards up; ``alpha`` is a link's turn from its
reference direction: ``alpha_k = Σ_{i ≤ k} sign_i · θ_i``; the tool pitch is ``approach0 + alpha_3``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ConfigError, UnreachableError
from . import frames
from .chain import Chain

#: How far from exact (unit-vector components) axes may be and still count as vertical or parallel.
_AXIS_TOLERANCE = 1e-5


@dataclass(frozen=True)
class PlanarArm:
    """The planar geometry of a yaw + three-pitch chain (see the module docstring); lengths in mm, angles in rad."""

    yaw_joint: int
    pitch_joints: tuple[int, int, int]
    yaw_sign: float
    heading0: float
    axis_x_mm: float
    axis_y_mm: float
    lateral_mm: float
    shoulder_r_mm: float
    shoulder_z_mm: float
    links_mm: tuple[tuple[float, float], tuple[float, float], tuple[float, float]]
    pitch_signs: tuple[float, float, float]
    approach0: float

    @property
    def upper_mm(self) -> float:
        """Shoulder axis to elbow axis (mm)."""
        return math.hypot(*self.links_mm[0])

    @property
    def fore_mm(self) -> float:
        """Elbow axis to wrist axis (mm)."""
        return math.hypot(*self.links_mm[1])

    def grip_point(self, yaw_deg: float, pitch_deg: tuple[float, float, float]) -> tuple[float, float, float]:
        """Grip point (mm) for the yaw joint at ``yaw_deg`` and the three pitch joints at ``pitch_deg``: the chain's
        forward kinematics by plane geometry alone (its cheap form)."""
        s1, s2, s3 = self.pitch_signs
        a1 = s1 * math.radians(pitch_deg[0])
        a2 = a1 + s2 * math.radians(pitch_deg[1])
        a3 = a2 + s3 * math.radians(pitch_deg[2])
        r, z = self.shoulder_r_mm, self.shoulder_z_mm
        for (lr, lz), a in zip(self.links_mm, (a1, a2, a3), strict=True):
            c, s = math.cos(a), math.sin(a)
            r += lr * c - lz * s
            z += lr * s + lz * c
        heading = self.yaw_sign * math.radians(yaw_deg) + self.heading0
        c, s = math.cos(heading), math.sin(heading)
        return (
            self.axis_x_mm + r * c - self.lateral_mm * s,
            self.axis_y_mm + r * s + self.lateral_mm * c,
            z,
        )


def planar_arm(chain: Chain, family: str) -> PlanarArm:
    """The plane geometry of ``chain``; ConfigError naming the joint if it is no yaw + three-pitch chain (the
    message names ``family``, the IK that needs it)."""
    where = f"[arm] chain {chain.name!r} does not fit the {family} IK:"
    moving = [j for j, joint in enumerate(chain.joints) if not joint.is_held]
    if len(moving) != 4:
        names = ", ".join(chain.joints[j].name for j in moving)
        raise ConfigError(
            f"{where} it moves {len(moving)} joints ({names}): expected a base yaw and three pitch joints"
        )
    reference = [joint.held_deg if joint.held_deg is not None else 0.0 for joint in chain.joints]
    world = chain.frames(reference)
    yaw, pitch = moving[0], moving[1:]
    yaw_axis = frames.turn(world[yaw], chain.joints[yaw].axis)
    if abs(abs(yaw_axis[2]) - 1.0) > _AXIS_TOLERANCE:
        raise ConfigError(
            f"{where} its first moving joint {chain.joints[yaw].name!r} does not turn about a vertical axis"
        )
    centre = frames.origin_of(world[yaw])
    h = frames.turn(world[pitch[0]], chain.joints[pitch[0]].axis)
    if abs(h[2]) > _AXIS_TOLERANCE:
        raise ConfigError(f"{where} joint {chain.joints[pitch[0]].name!r} does not turn about a horizontal axis")
    for j in pitch[1:]:
        axis = frames.turn(world[j], chain.joints[j].axis)
        if max(abs(c) for c in frames.cross(axis, h)) > _AXIS_TOLERANCE:
            raise ConfigError(
                f"{where} joint {chain.joints[j].name!r} does not turn about an axis parallel to joint "
                f"{chain.joints[pitch[0]].name!r}"
            )
    grip = frames.origin_of(world[-1])
    # The plane's radial direction u is horizontal, across the pitch axes, pointing to where the tool is.
    u = frames.unit((h[1], -h[0], 0.0))
    if (grip[0] - centre[0]) * u[0] + (grip[1] - centre[1]) * u[1] < 0.0:
        u, h = (-u[0], -u[1], 0.0), (-h[0], -h[1], -h[2])

    def in_plane(p: frames.Vec3) -> tuple[float, float]:
        return ((p[0] - centre[0]) * u[0] + (p[1] - centre[1]) * u[1], p[2])

    points = [in_plane(frames.origin_of(world[j])) for j in pitch] + [in_plane(grip)]
    links = tuple((b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(points))
    approach = frames.turn(world[-1], chain.tool.approach)
    if abs(frames.dot(approach, h)) > _AXIS_TOLERANCE:
        raise ConfigError(f"{where} the tool {chain.tool.name!r} points out of the plane its pitch joints turn in")
    # A joint turning about -h turns its link from the radial direction towards up: positive in the plane.
    signs = tuple(-round(frames.dot(frames.turn(world[j], chain.joints[j].axis), h)) for j in pitch)
    return PlanarArm(
        yaw_joint=yaw,
        pitch_joints=(pitch[0], pitch[1], pitch[2]),
        yaw_sign=1.0 if yaw_axis[2] > 0 else -1.0,
        heading0=math.atan2(u[1], u[0]),
        axis_x_mm=centre[0],
        axis_y_mm=centre[1],
        lateral_mm=(grip[0] - centre[0]) * h[0] + (grip[1] - centre[1]) * h[1],
        shoulder_r_mm=points[0][0],
        shoulder_z_mm=points[0][1],
        links_mm=(links[0], links[1], links[2]),
        pitch_signs=(float(signs[0]), float(signs[1]), float(signs[2])),
        approach0=math.atan2(approach[2], frames.dot(approach, u)),
    )


def where_text(point: Sequence[float]) -> str:
    """A target as messages name it: ``point (x=160.0, y=-90.0, z=3.0) mm`` (motion.kinematics' words)."""
    return f"point (x={point[0]:.1f}, y={point[1]:.1f}, z={point[2]:.1f}) mm"


def unreachable_distance(where: str, distance_mm: float, upper_mm: float, fore_mm: float) -> UnreachableError:
    """The error for a wrist ``distance_mm`` from the shoulder that the two links cannot span."""
    return UnreachableError(
        f"{where} puts the wrist {distance_mm:.1f} mm from the shoulder: "
        f"expected {abs(upper_mm - fore_mm):.1f} to {upper_mm + fore_mm:.1f} mm"
    )


def wrap_deg(angle_deg: float, centre_deg: float) -> float:
    """``angle_deg`` moved by whole turns to within half a turn of ``centre_deg`` (unchanged if it already is)."""
    turns = round((angle_deg - centre_deg) / 360.0)
    return angle_deg - 360.0 * turns if turns else angle_deg
