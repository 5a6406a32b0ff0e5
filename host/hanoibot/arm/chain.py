"""The arm as data: a chain of N revolute joints from the base to the tool, the servos that drive them, the tool.

Coordinates are millimetres in the arm's frame (DESIGN): the origin is the base yaw axis on the table top, +x
forward, +y to the arm's left, +z up; angles are degrees. Each :class:`Joint` sits at its origin (xyz in mm, URDF
roll-pitch-yaw in degrees, relative to the frame of the joint before it, or of the mount for the first) and turns
about its unit axis in that frame. A joint is driven in one of three ways:

- by its own servo (an :class:`Actuator` of the same name): the joint angle is the servo angle;
- through a linkage, a **coupling**: ``joint_deg = offset_deg + Σ gain · servo_deg`` over named servos (the
  MeArm's forearm servo sets the forearm's angle from the horizontal, so its elbow joint is forearm - shoulder);
- **held** at a fixed angle (an SO-101's wrist roll): no servo moves it while hanoibot runs.

The :class:`Tool` (the gripper) hangs on the last joint's frame: where its grip point is and which way its fingers
point (the approach). Its pitch (0 level, -90 straight down) is what a :class:`GraspMode` asks of the IK.
Pure: no I/O; built by :mod:`.presets` and :mod:`.urdf`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple

from ..errors import ConfigError, UnreachableError
from . import frames
from .frames import Transform, Vec3
from .linalg import pseudo_inverse

#: Acceleration limit in deg/s² of a servo whose preset gives none (motion.geometry's default, kept equal by a test).
DEFAULT_MAX_ACCEL_DEG_S2 = 3000.0

#: The IK families a chain may name (:mod:`.ik` maps each to its module).
IK_FAMILIES = ("serial_pitch", "parallelogram", "numeric")


class _Drive(NamedTuple):
    """How one joint is driven: ``held_deg`` (held), ``servo`` (the servo's index, directly; else -1), or
    ``offset_deg`` plus ``gains`` (servo index, gain) pairs through a coupling."""

    held_deg: float | None
    servo: int
    gains: tuple[tuple[int, float], ...]
    offset_deg: float


class ServoSlot(NamedTuple):
    """One servo of the arm on the wire (:attr:`Chain.servo_slots`): its name, and either the index of the
    :class:`Actuator` it is (``actuator``) or the index of the held joint it holds still (``held_joint``)."""

    name: str
    actuator: int | None
    held_joint: int | None


class Point(NamedTuple):
    """A point in the arm frame, millimetres (the same fields as motion's Point, so the two compare equal)."""

    x_mm: float
    y_mm: float
    z_mm: float


class GraspMode(Enum):
    """How the gripper takes a disk: from above (``top_down``, the tool pointing down) or from the side
    (``side``: a level claw comes at the disk's rim radially)."""

    TOP_DOWN = "top_down"
    SIDE = "side"

    @property
    def pitch_deg(self) -> float:
        """The tool pitch (degrees, 0 = level, -90 = straight down) this mode asks of the IK."""
        return -90.0 if self is GraspMode.TOP_DOWN else 0.0


@dataclass(frozen=True)
class Coupling:
    """A joint moved through a linkage: ``joint_deg = offset_deg + Σ gain · servo_deg``; ``gains`` pairs servo
    names with unitless gains."""

    gains: tuple[tuple[str, float], ...]
    offset_deg: float = 0.0


@dataclass(frozen=True)
class Joint:
    """One revolute joint: origin (mm, URDF rpy in degrees) in the frame before it, unit ``axis`` in its own frame,
    mechanical limits (degrees), and how it is driven: its own servo (both ``coupling`` and ``held_deg`` None), a
    ``coupling`` or ``held_deg`` (fixed at that angle; its limits are then not used)."""

    name: str
    origin_xyz_mm: Vec3
    origin_rpy_deg: Vec3
    axis: Vec3
    min_deg: float
    max_deg: float
    coupling: Coupling | None = None
    held_deg: float | None = None

    @property
    def is_held(self) -> bool:
        """True for a joint fixed at ``held_deg``."""
        return self.held_deg is not None

    def contains(self, angle_deg: float, tolerance_deg: float = 1e-9) -> bool:
        """True if ``angle_deg`` lies within the limits (plus ``tolerance_deg`` for rounding)."""
        return self.min_deg - tolerance_deg <= angle_deg <= self.max_deg + tolerance_deg


@dataclass(frozen=True)
class Actuator:
    """One servo of the arm (a wire channel later): its travel in degrees of its own angle, its safe top speed
    (deg/s) and acceleration limit (deg/s²). A joint driven directly shares its name and angle."""

    name: str
    min_deg: float
    max_deg: float
    max_speed_deg_s: float
    max_accel_deg_s2: float = DEFAULT_MAX_ACCEL_DEG_S2

    def contains(self, angle_deg: float, tolerance_deg: float = 1e-9) -> bool:
        """True if ``angle_deg`` lies within the travel (plus ``tolerance_deg`` for rounding)."""
        return self.min_deg - tolerance_deg <= angle_deg <= self.max_deg + tolerance_deg


@dataclass(frozen=True)
class Tool:
    """The gripper on the last joint: its grip point (mm, between the fingertips) and the unit ``approach`` (the way
    the fingers point) in the last joint's frame; ``actuator`` is its own servo where the model gives one."""

    name: str
    grip_xyz_mm: Vec3
    approach: Vec3
    actuator: Actuator | None = None


@dataclass(frozen=True)
class Chain:
    """An arm: joints from the base out, the servos in wire order, the tool, the grasp mode, the IK family (one
    of :data:`IK_FAMILIES`) and where the chain's root frame sits in the arm frame (``mount_*``)."""

    name: str
    joints: tuple[Joint, ...]
    actuators: tuple[Actuator, ...]
    tool: Tool
    grasp: GraspMode = GraspMode.TOP_DOWN
    ik_family: str = "numeric"
    mount_xyz_mm: Vec3 = (0.0, 0.0, 0.0)
    mount_rpy_deg: Vec3 = (0.0, 0.0, 0.0)
    _drives: tuple[_Drive, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_chain(self)
        index = {a.name: i for i, a in enumerate(self.actuators)}
        drives = []
        for joint in self.joints:
            if joint.held_deg is not None:
                drives.append(_Drive(joint.held_deg, -1, (), 0.0))
            elif joint.coupling is None:
                drives.append(_Drive(None, index[joint.name], (), 0.0))
            else:
                gains = tuple((index[name], gain) for name, gain in joint.coupling.gains)
                drives.append(_Drive(None, -1, gains, joint.coupling.offset_deg))
        object.__setattr__(self, "_drives", tuple(drives))
        try:
            self._from_joints  # noqa: B018 - built now, so a servo the joints do not fix fails at load
        except ZeroDivisionError:
            raise ConfigError(
                f"[arm] chain {self.name!r}: the couplings do not fix every servo's angle from the joint angles"
            ) from None

    # --- coupling -------------------------------------------------------------------------------------------
    def joint_angles(self, actuator_deg: Sequence[float]) -> tuple[float, ...]:
        """Joint angles (degrees, joint order) produced by the servo angles ``actuator_deg`` (servo order)."""
        out = []
        for drive in self._drives:
            if drive.held_deg is not None:
                out.append(drive.held_deg)
            elif drive.servo >= 0:
                out.append(actuator_deg[drive.servo])
            else:
                out.append(drive.offset_deg + sum(gain * actuator_deg[i] for i, gain in drive.gains))
        return tuple(out)

    def actuator_angles(self, joint_deg: Sequence[float]) -> tuple[float, ...]:
        """Servo angles (degrees, servo order) that give the joint angles ``joint_deg`` (joint order): a directly
        driven joint's angle as it is; a servo that only drives couplings by least squares over the joints it
        moves (exact for a pose the couplings can make)."""
        direct, rows = self._from_joints
        out = []
        for source, row in zip(direct, rows, strict=True):
            if source >= 0:
                out.append(joint_deg[source])
            else:
                out.append(sum(weight * (joint_deg[j] - self._drives[j].offset_deg) for j, weight in row))
        return tuple(out)

    @functools.cached_property
    def _from_joints(self) -> tuple[tuple[int, ...], tuple[tuple[tuple[int, float], ...], ...]]:
        """Per servo: the joint it drives directly (-1 for none), and its least-squares weights over the moving
        joints (ZeroDivisionError if the joints do not fix it)."""
        moving = [j for j, drive in enumerate(self._drives) if drive.held_deg is None]
        matrix = [[0.0] * len(self.actuators) for _ in moving]
        for row, j in enumerate(moving):
            drive = self._drives[j]
            for i, gain in ((drive.servo, 1.0),) if drive.servo >= 0 else drive.gains:
                matrix[row][i] += gain
        inverse = pseudo_inverse(matrix)
        direct = tuple(
            next((j for j, drive in enumerate(self._drives) if drive.servo == a), -1)
            for a in range(len(self.actuators))
        )
        rows = tuple(
            tuple((j, inverse[a][row]) for row, j in enumerate(moving) if inverse[a][row] != 0.0)
            for a in range(len(self.actuators))
        )
        return direct, rows

    @functools.cached_property
    def servo_slots(self) -> tuple[ServoSlot, ...]:
        """The arm's servos in wire order, the tool's aside: joint by joint from the base, each joint's servos not
        yet listed (its own; a coupling's, in :attr:`actuators` order), and a held joint's servo where the joint is
        (a PWM servo holds a joint only while it is driven: it gets a channel and a constant pulse)."""
        slots: list[ServoSlot] = []
        listed = 0
        for j, drive in enumerate(self._drives):
            if drive.held_deg is not None:
                slots.append(ServoSlot(self.joints[j].name, None, j))
                continue
            last = drive.servo if drive.servo >= 0 else max(i for i, _ in drive.gains)
            while listed <= last:
                slots.append(ServoSlot(self.actuators[listed].name, listed, None))
                listed += 1
        slots.extend(ServoSlot(a.name, i, None) for i, a in enumerate(self.actuators) if i >= listed)
        return tuple(slots)

    def servo_gains(self, joint: int) -> tuple[tuple[tuple[int, float], ...], float]:
        """How joint number ``joint`` is driven: (servo index, gain) pairs and an offset in degrees (a directly
        driven joint: its servo with gain 1; a held joint: no servos, its held angle as the offset)."""
        drive = self._drives[joint]
        if drive.held_deg is not None:
            return (), drive.held_deg
        if drive.servo >= 0:
            return ((drive.servo, 1.0),), 0.0
        return drive.gains, drive.offset_deg

    def middle_pose(self) -> tuple[float, ...]:
        """Joint angles (degrees) with every servo in the middle of its travel: a neutral seed for a numeric solve."""
        return self.joint_angles([(a.min_deg + a.max_deg) / 2.0 for a in self.actuators])

    # --- limits ---------------------------------------------------------------------------------------------
    def check_limits(self, joint_deg: Sequence[float], where: str = "pose") -> None:
        """Raise :class:`UnreachableError` naming the joint (or servo) and ``where`` if an angle leaves its limits."""
        for joint, angle in zip(self.joints, joint_deg, strict=True):
            if joint.held_deg is None and not joint.contains(angle, tolerance_deg=1e-6):
                raise UnreachableError(
                    f"{where} needs {joint.name} at {angle:.1f} deg: "
                    f"expected {joint.min_deg:g} to {joint.max_deg:g} deg"
                )
        direct, _ = self._from_joints
        for actuator, source, angle in zip(self.actuators, direct, self.actuator_angles(joint_deg), strict=True):
            if source < 0 and not actuator.contains(angle, tolerance_deg=1e-6):
                raise UnreachableError(
                    f"{where} needs servo {actuator.name} at {angle:.1f} deg: "
                    f"expected {actuator.min_deg:g} to {actuator.max_deg:g} deg"
                )

    # --- forward kinematics ---------------------------------------------------------------------------------
    @functools.cached_property
    def _links(self) -> tuple[tuple[tuple[Transform, Vec3, int, int], ...], Vec3]:
        """The chain compiled for speed, last joint first: per moving joint its origin (the mount and the held
        joints before it folded in), axis, joint index and axis kind (1, 2, 3: along +x, +y, +z; negative: along
        minus that; 0: slanted); then the grip point in the last moving joint's frame."""
        before = frames.from_xyz_rpy(self.mount_xyz_mm, self.mount_rpy_deg)
        links = []
        for j, joint in enumerate(self.joints):
            origin = frames.compose(before, frames.from_xyz_rpy(joint.origin_xyz_mm, joint.origin_rpy_deg))
            if joint.held_deg is not None:
                before = frames.compose(origin, frames.rotation_about(joint.axis, joint.held_deg))
            else:
                kind = next((sign * (i + 1) for i in range(3) for sign in (1, -1) if joint.axis[i] == sign), 0)
                links.append((origin, joint.axis, j, kind))
                before = frames.IDENTITY
        return tuple(reversed(links)), frames.apply(before, self.tool.grip_xyz_mm)

    def grip_point(self, joint_deg: Sequence[float]) -> Point:
        """Position (mm) of the grip point for the joint angles ``joint_deg`` (degrees, joint order; a held joint
        is at its held angle whatever is passed for it): the grip point carried back joint by joint to the base."""
        links, (x, y, z) = self._links
        for t, (kx, ky, kz), j, kind in links:
            angle = math.radians(joint_deg[j])
            c, s = math.cos(angle), math.sin(angle)
            if kind == 3 or kind == -3:
                s = s if kind > 0 else -s
                rx, ry, rz = x * c - y * s, x * s + y * c, z
            elif kind == 2 or kind == -2:
                s = s if kind > 0 else -s
                rx, ry, rz = x * c + z * s, y, z * c - x * s
            elif kind == 1 or kind == -1:
                s = s if kind > 0 else -s
                rx, ry, rz = x, y * c - z * s, y * s + z * c
            else:  # Rodrigues: v c + (k × v) s + k (k·v)(1 - c)
                k_dot = (kx * x + ky * y + kz * z) * (1.0 - c)
                rx = x * c + (ky * z - kz * y) * s + kx * k_dot
                ry = y * c + (kz * x - kx * z) * s + ky * k_dot
                rz = z * c + (kx * y - ky * x) * s + kz * k_dot
            x = t[0] * rx + t[1] * ry + t[2] * rz + t[3]
            y = t[4] * rx + t[5] * ry + t[6] * rz + t[7]
            z = t[8] * rx + t[9] * ry + t[10] * rz + t[11]
        return Point(x, y, z)

    def frames(self, joint_deg: Sequence[float]) -> tuple[Transform, ...]:
        """World frame of each joint (after its origin, before its own turn: its axis is the joint's axis), joint
        order, then the tool frame (its origin at the grip point), for drawings and the numeric solver."""
        out = []
        t, origins = self._origins
        for joint, (origin, turns), angle in zip(self.joints, origins, joint_deg, strict=True):
            t = frames.compose(t, origin) if turns else frames.shifted(t, joint.origin_xyz_mm)
            out.append(t)
            t = frames.turned(t, joint.axis, joint.held_deg if joint.held_deg is not None else angle)
        grip = frames.apply(t, self.tool.grip_xyz_mm)
        out.append((t[0], t[1], t[2], grip[0], t[4], t[5], t[6], grip[1], t[8], t[9], t[10], grip[2]))
        return tuple(out)

    @functools.cached_property
    def _origins(self) -> tuple[Transform, tuple[tuple[Transform, bool], ...]]:
        """The mount's transform, and each joint's origin transform with whether it turns (computed once)."""
        mount = frames.from_xyz_rpy(self.mount_xyz_mm, self.mount_rpy_deg)
        return mount, tuple(
            (frames.from_xyz_rpy(j.origin_xyz_mm, j.origin_rpy_deg), any(j.origin_rpy_deg)) for j in self.joints
        )

    def approach(self, joint_deg: Sequence[float]) -> Vec3:
        """The unit direction the fingers point in the arm frame for ``joint_deg``."""
        return frames.turn(self.frames(joint_deg)[-1], self.tool.approach)

    def tool_pitch_deg(self, joint_deg: Sequence[float]) -> float:
        """The tool's pitch in degrees for ``joint_deg``: the elevation of the way the fingers point (0 = level,
        -90 = straight down; within ±90, so a tool tipped past the vertical reads as less than 90)."""
        x, y, z = self.approach(joint_deg)
        return math.degrees(math.atan2(z, math.hypot(x, y)))  # not asin(z): it loses digits near ±90

    def joint_points(self, joint_deg: Sequence[float]) -> tuple[Point, ...]:
        """Where each joint's origin is (mm, joint order), then the grip point: the arm as a polyline to draw."""
        return tuple(Point(t[3], t[7], t[11]) for t in self.frames(joint_deg))


def _check_chain(chain: Chain) -> None:
    """Raise ConfigError naming the joint or servo if ``chain`` is not a usable arm."""
    where = f"[arm] chain {chain.name!r}"
    if not chain.joints:
        raise ConfigError(f"{where} has no joints: expected at least one revolute joint")
    if chain.ik_family not in IK_FAMILIES:
        raise ConfigError(f"{where} ik = {chain.ik_family!r}: expected one of {', '.join(IK_FAMILIES)}")
    for kind, names in (("joint", [j.name for j in chain.joints]), ("servo", [a.name for a in chain.actuators])):
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ConfigError(f"{where}: {kind} {repeated[0]!r} is named twice: expected unique names")
    servos = {a.name: a for a in chain.actuators}
    driven: set[str] = set()
    for joint in chain.joints:
        _check_unit(f"{where} joint {joint.name!r} axis", joint.axis)
        if joint.held_deg is not None:
            if joint.coupling is not None:
                raise ConfigError(f"{where} joint {joint.name!r} is both held and coupled: expected one of them")
            continue
        if not joint.min_deg < joint.max_deg:
            raise ConfigError(
                f"{where} joint {joint.name!r} min_deg = {joint.min_deg:g}, max_deg = {joint.max_deg:g}: "
                "expected min_deg below max_deg"
            )
        names = [joint.name] if joint.coupling is None else [name for name, _ in joint.coupling.gains]
        for name in names:
            if name not in servos:
                raise ConfigError(f"{where} joint {joint.name!r} is driven by servo {name!r}, which the arm lacks")
        driven.update(names)
        own = servos[joint.name] if joint.coupling is None else None
        if own is not None and (own.min_deg, own.max_deg) != (joint.min_deg, joint.max_deg):
            raise ConfigError(
                f"{where} servo {own.name!r} travels {own.min_deg:g} to {own.max_deg:g} deg: expected its joint's "
                f"limits, {joint.min_deg:g} to {joint.max_deg:g} deg"
            )
    for actuator in chain.actuators:
        if actuator.name not in driven:
            raise ConfigError(f"{where} servo {actuator.name!r} drives no joint")
        if not actuator.min_deg < actuator.max_deg:
            raise ConfigError(f"{where} servo {actuator.name!r}: expected min_deg below max_deg")
        if not (actuator.max_speed_deg_s > 0 and actuator.max_accel_deg_s2 > 0):
            raise ConfigError(f"{where} servo {actuator.name!r}: expected a positive speed and acceleration")
    _check_unit(f"{where} tool {chain.tool.name!r} approach", chain.tool.approach)


def _check_unit(what: str, vector: Vec3) -> None:
    """Raise ConfigError if ``vector`` is not of length 1 (within rounding)."""
    if abs(math.sqrt(frames.dot(vector, vector)) - 1.0) > 1e-9:
        raise ConfigError(f"{what} = {list(vector)!r}: expected a unit vector")
