"""Rigid transforms as plain tuples of floats: the arithmetic under the chain's forward kinematics.

A :data:`Transform` is a 3×4 matrix ``[R | t]`` stored row by row in a tuple of 12 floats (rotation entries
unitless, translation in mm). Rotations follow URDF: ``rpy`` is roll about x, then pitch about y, then yaw about z,
all about the fixed axes, i.e. ``R = Rz(yaw) · Ry(pitch) · Rx(roll)``. Angles are degrees here (the rest of
hanoibot's unit), converted once where a matrix is built. No numpy: the host stays numpy-free (DESIGN decision 20).
"""

from __future__ import annotations

import math

#: Three floats: a point (mm) or a direction (unitless).
Vec3 = tuple[float, float, float]
#: ``(r00, r01, r02, tx, r10, r11, r12, ty, r20, r21, r22, tz)``: rotation rows with the translation (mm) after each.
Transform = tuple[float, float, float, float, float, float, float, float, float, float, float, float]

IDENTITY: Transform = (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0)


def from_xyz_rpy(xyz_mm: Vec3, rpy_deg: Vec3) -> Transform:
    """The transform that moves by ``xyz_mm`` and turns by URDF roll, pitch, yaw ``rpy_deg`` (degrees)."""
    roll, pitch, yaw = (math.radians(a) for a in rpy_deg)
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    x, y, z = xyz_mm
    return (
        cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr, x,
        sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr, y,
        -sp, cp * sr, cp * cr, z,
    )  # fmt: skip


def rotation_about(axis: Vec3, angle_deg: float) -> Transform:
    """The rotation by ``angle_deg`` about the unit vector ``axis`` through the origin (Rodrigues' formula)."""
    x, y, z = axis
    angle = math.radians(angle_deg)
    c, s = math.cos(angle), math.sin(angle)
    k = 1.0 - c
    return (
        c + x * x * k, x * y * k - z * s, x * z * k + y * s, 0.0,
        y * x * k + z * s, c + y * y * k, y * z * k - x * s, 0.0,
        z * x * k - y * s, z * y * k + x * s, c + z * z * k, 0.0,
    )  # fmt: skip


def compose(a: Transform, b: Transform) -> Transform:
    """``a · b``: first ``b``, then ``a`` (``b`` expressed in ``a``'s frame)."""
    a00, a01, a02, ax, a10, a11, a12, ay, a20, a21, a22, az = a
    b00, b01, b02, bx, b10, b11, b12, by, b20, b21, b22, bz = b
    return (
        a00 * b00 + a01 * b10 + a02 * b20, a00 * b01 + a01 * b11 + a02 * b21, a00 * b02 + a01 * b12 + a02 * b22,
        a00 * bx + a01 * by + a02 * bz + ax,
        a10 * b00 + a11 * b10 + a12 * b20, a10 * b01 + a11 * b11 + a12 * b21, a10 * b02 + a11 * b12 + a12 * b22,
        a10 * bx + a11 * by + a12 * bz + ay,
        a20 * b00 + a21 * b10 + a22 * b20, a20 * b01 + a21 * b11 + a22 * b21, a20 * b02 + a21 * b12 + a22 * b22,
        a20 * bx + a21 * by + a22 * bz + az,
    )  # fmt: skip


def shifted(t: Transform, xyz_mm: Vec3) -> Transform:
    """``t`` followed by a pure move by ``xyz_mm`` in its own frame: ``compose(t, move)`` without the rotation's
    arithmetic (most joint origins do not turn)."""
    x, y, z = xyz_mm
    return (
        t[0], t[1], t[2], t[0] * x + t[1] * y + t[2] * z + t[3],
        t[4], t[5], t[6], t[4] * x + t[5] * y + t[6] * z + t[7],
        t[8], t[9], t[10], t[8] * x + t[9] * y + t[10] * z + t[11],
    )  # fmt: skip


def turned(t: Transform, axis: Vec3, angle_deg: float) -> Transform:
    """``t`` followed by a turn of ``angle_deg`` about the unit ``axis`` of its own frame:
    ``compose(t, rotation_about(axis, angle_deg))``, with a short form for the axes along x, y or z (a URDF's
    usual ``0 0 1``), which mixes two columns only."""
    angle = math.radians(angle_deg)
    c, s = math.cos(angle), math.sin(angle)
    ax, ay, az = axis
    if ax == 0.0 and ay == 0.0:
        s = s if az > 0 else -s
        return (
            t[0] * c + t[1] * s, t[1] * c - t[0] * s, t[2], t[3],
            t[4] * c + t[5] * s, t[5] * c - t[4] * s, t[6], t[7],
            t[8] * c + t[9] * s, t[9] * c - t[8] * s, t[10], t[11],
        )  # fmt: skip
    if ax == 0.0 and az == 0.0:
        s = s if ay > 0 else -s
        return (
            t[0] * c - t[2] * s, t[1], t[2] * c + t[0] * s, t[3],
            t[4] * c - t[6] * s, t[5], t[6] * c + t[4] * s, t[7],
            t[8] * c - t[10] * s, t[9], t[10] * c + t[8] * s, t[11],
        )  # fmt: skip
    if ay == 0.0 and az == 0.0:
        s = s if ax > 0 else -s
        return (
            t[0], t[1] * c + t[2] * s, t[2] * c - t[1] * s, t[3],
            t[4], t[5] * c + t[6] * s, t[6] * c - t[5] * s, t[7],
            t[8], t[9] * c + t[10] * s, t[10] * c - t[9] * s, t[11],
        )  # fmt: skip
    return compose(t, rotation_about(axis, angle_deg))


def apply(t: Transform, point: Vec3) -> Vec3:
    """``point`` (mm) moved by ``t``."""
    x, y, z = point
    return (
        t[0] * x + t[1] * y + t[2] * z + t[3],
        t[4] * x + t[5] * y + t[6] * z + t[7],
        t[8] * x + t[9] * y + t[10] * z + t[11],
    )


def turn(t: Transform, direction: Vec3) -> Vec3:
    """``direction`` turned by ``t``'s rotation (its translation ignored)."""
    x, y, z = direction
    return (
        t[0] * x + t[1] * y + t[2] * z,
        t[4] * x + t[5] * y + t[6] * z,
        t[8] * x + t[9] * y + t[10] * z,
    )


def origin_of(t: Transform) -> Vec3:
    """Where ``t`` puts the origin (mm)."""
    return (t[3], t[7], t[11])


def rpy_deg_of(t: Transform) -> Vec3:
    """URDF roll, pitch, yaw in degrees of ``t``'s rotation (pitch within ±90; at ±90 the roll is taken as 0)."""
    pitch = math.asin(max(-1.0, min(1.0, -t[8])))
    if math.cos(pitch) > 1e-9:
        roll = math.atan2(t[9], t[10])
        yaw = math.atan2(t[4], t[0])
    else:
        roll = 0.0
        yaw = math.atan2(-t[1], t[5])
    return (math.degrees(roll), math.degrees(pitch), math.degrees(yaw))


def unit(v: Vec3) -> Vec3:
    """``v`` scaled to length 1 (ValueError for a zero vector: an axis must point somewhere)."""
    length = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if not length > 1e-12:
        raise ValueError(f"the vector {v!r} has no direction")
    return (v[0] / length, v[1] / length, v[2] / length)


def cross(a: Vec3, b: Vec3) -> Vec3:
    """The cross product ``a × b``."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a: Vec3, b: Vec3) -> float:
    """The dot product ``a · b``."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
