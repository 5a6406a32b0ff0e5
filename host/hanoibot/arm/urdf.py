"""A URDF's arm as a :class:`~.chain.Chain`: the joints from the root link to the tool, read with xml.etree.

What is read: each joint's type, parent and child links, ``origin`` (xyz in m, rpy in rad: converted to mm and
degrees), ``axis`` (default 1 0 0, as URDF says), ``limit`` (lower/upper in rad: converted to degrees; velocity in
rad/s: the servo's top speed, often a placeholder in published files: check it) and ``mimic``. Meshes, inertia,
collision, materials and transmissions are ignored. The chain runs from the root link to the tool link; fixed joints
on the way fold into the next joint's origin (or into the tool frame after the last one). The tool link defaults to
the leaf the most moving joints lead to, not through the gripper joint (a revolute or prismatic joint named like a
gripper, jaw, finger or claw), whose limits become the tool's servo.

What cannot be mapped is named in one line each in :attr:`UrdfImport.notes`, never a traceback: a prismatic,
continuous, planar or floating joint on the arm's path (held at 0), a revolute joint without limits (held at 0), a
moving joint off the path (ignored), a mimic joint whose leader is no servo of the chain (held at 0; a mimic joint
that follows a servo of the chain becomes a coupling). A file that is no URDF, or has no revolute joint to move, is
a ConfigError naming the file. ``hanoibot init --urdf FILE`` will call :func:`read_urdf`.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from . import frames
from .chain import DEFAULT_MAX_ACCEL_DEG_S2, Actuator, Chain, Coupling, GraspMode, Joint, Tool
from .frames import IDENTITY, Transform, Vec3
from .ik_serial import SerialPitchIK

#: Words in a joint's name that make it the gripper's joint (lower case).
GRIPPER_WORDS = ("gripper", "jaw", "finger", "claw")
#: Top speed (deg/s) given to a servo whose joint has no velocity limit: a derated hobby servo.
DEFAULT_SPEED_DEG_S = 90.0
MOVING_TYPES = ("revolute", "continuous", "prismatic", "planar", "floating")


@dataclass(frozen=True)
class UrdfImport:
    """The chain read from a URDF, and one line for each thing in the file that could not be mapped."""

    chain: Chain
    notes: tuple[str, ...]


@dataclass(frozen=True)
class _UrdfJoint:
    """One ``<joint>`` as written (SI units as in the file)."""

    name: str
    kind: str
    parent: str
    child: str
    origin: Transform
    xyz_mm: Vec3
    rpy_deg: Vec3
    axis: Vec3 | None
    lower_rad: float | None
    upper_rad: float | None
    velocity_rad_s: float | None
    mimic: tuple[str, float, float] | None  # leader, multiplier, offset (rad)


def read_urdf(path: Path, **options: Any) -> UrdfImport:
    """:func:`parse_urdf` of the file at ``path`` (ConfigError naming the file if it cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read the URDF ({err})") from None
    return parse_urdf(text, source=str(path), **options)


def parse_urdf(
    text: str,
    *,
    source: str = "URDF",
    tool_link: str | None = None,
    gripper_joint: str | None = None,
    held_deg: Mapping[str, float] | None = None,
    grasp: GraspMode = GraspMode.TOP_DOWN,
    approach: Vec3 = (0.0, 0.0, 1.0),
    mount_xyz_mm: Vec3 = (0.0, 0.0, 0.0),
    mount_rpy_deg: Vec3 = (0.0, 0.0, 0.0),
) -> UrdfImport:
    """The arm in the URDF ``text`` (named ``source`` in messages): joints from the root link to ``tool_link``,
    ``held_deg`` naming joints to hold at an angle (an SO-101's wrist roll), ``approach`` the way the fingers
    point in the tool link's frame (a tool frame's usual z), the root link placed in the arm frame by ``mount_*``.
    The IK family is ``serial_pitch`` where the chain fits it, else ``numeric``."""
    try:
        robot = ET.fromstring(text)
    except ET.ParseError as err:
        raise ConfigError(f"{source}: not a URDF: {err}") from None
    if robot.tag != "robot":
        raise ConfigError(f"{source}: the root element is <{robot.tag}>: expected <robot> (a URDF)")
    # Direct children only: a <transmission> names joints too.
    joints = [_read_joint(element, source) for element in robot.findall("joint")]
    by_child = {j.child: j for j in joints}
    children = {j.parent for j in joints}
    links = [link.get("name", "") for link in robot.findall("link")] or sorted(children | set(by_child))
    roots = [name for name in links if name not in by_child]
    if len(roots) != 1:
        raise ConfigError(f"{source}: {len(roots)} root links ({', '.join(roots) or 'none'}): expected one")
    notes: list[str] = []
    gripper = _gripper_joint(joints, gripper_joint, source)
    tool = tool_link if tool_link is not None else _tool_link(links, joints, by_child, children, gripper)
    if tool not in links and tool not in by_child:
        raise ConfigError(f"{source}: tool link {tool!r} is not in the file")
    path = _path(tool, by_child)
    held = dict(held_deg or {})
    on_path = {j.name for j in path}
    for name in held:
        if name not in on_path:
            raise ConfigError(f"{source}: joint {name!r} to hold is not between {roots[0]} and {tool}")
    chain_joints, actuators, pending = _walk(path, held, notes)
    if not chain_joints:
        raise ConfigError(f"{source}: no revolute joint between {roots[0]} and {tool}: nothing for hanoibot to move")
    chain_joints = _mimics(path, chain_joints, actuators, notes)
    for joint in joints:
        if joint.name not in on_path and joint.kind in MOVING_TYPES and (gripper is None or joint is not gripper):
            notes.append(f"{joint.kind} joint {joint.name!r} is not between {roots[0]} and {tool}: ignored")
    tool_servo = None
    if gripper is not None:
        tool_servo = _gripper_servo(gripper, notes)
    else:
        notes.append(f"no gripper joint found (a joint named like {'/'.join(GRIPPER_WORDS)}): the tool has no servo")
    chain = Chain(
        name=robot.get("name") or Path(source).stem,
        joints=tuple(chain_joints),
        actuators=tuple(actuators),
        tool=Tool(
            name=gripper.name if gripper is not None else "gripper",
            grip_xyz_mm=frames.origin_of(pending),
            approach=frames.unit(frames.turn(pending, frames.unit(approach))),
            actuator=tool_servo,
        ),
        grasp=grasp,
        ik_family="numeric",
        mount_xyz_mm=mount_xyz_mm,
        mount_rpy_deg=mount_rpy_deg,
    )
    try:
        SerialPitchIK(chain)
    except ConfigError:
        return UrdfImport(chain, tuple(notes))
    return UrdfImport(replace(chain, ik_family="serial_pitch"), tuple(notes))


def _walk(
    path: list[_UrdfJoint], held: dict[str, float], notes: list[str]
) -> tuple[list[Joint], list[Actuator], Transform]:
    """The chain's joints and servos along ``path``, and the transform left after the last joint (the tool's)."""
    chain_joints: list[Joint] = []
    actuators: list[Actuator] = []
    pending = IDENTITY
    for joint in path:
        folded = pending != IDENTITY
        origin = frames.compose(pending, joint.origin) if folded else joint.origin
        if joint.kind == "fixed":
            pending = origin
            continue
        hold = held.get(joint.name)
        axis = joint.axis if joint.axis is not None else (1.0, 0.0, 0.0)
        if joint.kind != "revolute":
            what = {"prismatic": "slides", "continuous": "turns without limits"}.get(joint.kind, "moves freely")
            notes.append(f"{joint.kind} joint {joint.name!r} {what}: held at 0 (hanoibot maps revolute joints only)")
            pending = origin  # its origin stays; its motion is held at 0
            continue
        low, high = joint.lower_rad, joint.upper_rad
        if hold is None and (low is None or high is None or not low < high):
            notes.append(f"revolute joint {joint.name!r} has no limits (lower < upper): held at 0 deg")
            pending = origin
            continue
        base = Joint(
            name=joint.name,
            # as written where nothing folds in (a matrix read back near pitch ±90 loses a few digits)
            origin_xyz_mm=frames.origin_of(origin) if folded else joint.xyz_mm,
            origin_rpy_deg=frames.rpy_deg_of(origin) if folded else joint.rpy_deg,
            axis=axis,
            min_deg=math.degrees(low) if low is not None else -180.0,
            max_deg=math.degrees(high) if high is not None else 180.0,
        )
        pending = IDENTITY
        if hold is not None:
            chain_joints.append(replace(base, held_deg=hold))
            continue
        chain_joints.append(base)
        speed = joint.velocity_rad_s
        actuators.append(
            Actuator(
                joint.name,
                base.min_deg,
                base.max_deg,
                math.degrees(speed) if speed else DEFAULT_SPEED_DEG_S,
                DEFAULT_MAX_ACCEL_DEG_S2,
            )
        )
    return chain_joints, actuators, pending


def _mimics(
    path: list[_UrdfJoint], chain_joints: list[Joint], actuators: list[Actuator], notes: list[str]
) -> list[Joint]:
    """``chain_joints`` with each mimic joint coupled to its leader's servo (or held, with a note)."""
    servos = {a.name for a in actuators}
    by_name = {j.name: j for j in path}
    out = []
    for joint in chain_joints:
        mimic = by_name[joint.name].mimic
        if mimic is None or joint.is_held:
            out.append(joint)
            continue
        leader, multiplier, offset = mimic
        if leader in servos and leader != joint.name:
            out.append(replace(joint, coupling=Coupling(((leader, multiplier),), math.degrees(offset))))
        else:
            notes.append(f"mimic joint {joint.name!r} follows {leader!r}, no servo of the arm: held at 0 deg")
            out.append(replace(joint, held_deg=0.0))
        actuators[:] = [a for a in actuators if a.name != joint.name]
    return out


def _gripper_servo(gripper: _UrdfJoint, notes: list[str]) -> Actuator | None:
    """The gripper joint's servo (its limits in degrees), or None with a note if it cannot be one."""
    low, high = gripper.lower_rad, gripper.upper_rad
    if gripper.kind != "revolute" or low is None or high is None or not low < high:
        notes.append(f"gripper joint {gripper.name!r} ({gripper.kind}) has no turning range: the tool has no servo")
        return None
    speed = gripper.velocity_rad_s
    return Actuator(
        gripper.name,
        math.degrees(low),
        math.degrees(high),
        math.degrees(speed) if speed else DEFAULT_SPEED_DEG_S,
        DEFAULT_MAX_ACCEL_DEG_S2,
    )


def _gripper_joint(joints: list[_UrdfJoint], name: str | None, source: str) -> _UrdfJoint | None:
    """The joint named ``name``, else the first moving joint named like a gripper, else None."""
    if name is not None:
        for joint in joints:
            if joint.name == name:
                return joint
        raise ConfigError(f"{source}: gripper joint {name!r} is not in the file")
    for joint in joints:
        if joint.kind in ("revolute", "prismatic") and any(w in joint.name.lower() for w in GRIPPER_WORDS):
            return joint
    return None


def _tool_link(
    links: list[str],
    joints: list[_UrdfJoint],
    by_child: dict[str, _UrdfJoint],
    parents: set[str],
    gripper: _UrdfJoint | None,
) -> str:
    """The leaf link the most moving joints lead to (then the most joints), not past the gripper joint."""
    best: tuple[int, int] | None = None
    choice = ""
    for link in links:
        if link in parents:
            continue
        path = _path(link, by_child)
        if gripper is not None and any(j is gripper for j in path):
            continue
        score = (sum(j.kind != "fixed" for j in path), len(path))
        if best is None or score > best:
            best, choice = score, link
    return choice


def _path(link: str, by_child: dict[str, _UrdfJoint]) -> list[_UrdfJoint]:
    """The joints from the root link down to ``link``, root first."""
    path: list[_UrdfJoint] = []
    seen: set[str] = set()
    while link in by_child and link not in seen:
        seen.add(link)
        joint = by_child[link]
        path.append(joint)
        link = joint.parent
    path.reverse()
    return path


def _read_joint(element: ET.Element, source: str) -> _UrdfJoint:
    """One ``<joint>`` element; ConfigError naming the joint and attribute for a malformed number."""
    name = element.get("name", "")
    where = f"{source}: joint {name!r}"
    parent, child = element.find("parent"), element.find("child")
    if parent is None or child is None or not parent.get("link") or not child.get("link"):
        raise ConfigError(f"{where} lacks its <parent link=...> or <child link=...>")
    origin = element.find("origin")
    xyz = _floats(origin.get("xyz", "0 0 0") if origin is not None else "0 0 0", 3, f"{where} origin xyz")
    rpy = _floats(origin.get("rpy", "0 0 0") if origin is not None else "0 0 0", 3, f"{where} origin rpy")
    axis_element = element.find("axis")
    axis: Vec3 | None = None
    if axis_element is not None and element.get("type") != "fixed":
        raw = _floats(axis_element.get("xyz", "1 0 0"), 3, f"{where} axis xyz")
        try:
            axis = frames.unit((raw[0], raw[1], raw[2]))
        except ValueError:
            raise ConfigError(f"{where} axis xyz = {axis_element.get('xyz')!r}: expected a direction") from None
    limit = element.find("limit")
    lower = upper = velocity = None
    if limit is not None:
        lower = _number(limit.get("lower"), f"{where} limit lower")
        upper = _number(limit.get("upper"), f"{where} limit upper")
        velocity = _number(limit.get("velocity"), f"{where} limit velocity")
    mimic_element = element.find("mimic")
    mimic = None
    if mimic_element is not None:
        multiplier = _number(mimic_element.get("multiplier"), f"{where} mimic multiplier")
        offset = _number(mimic_element.get("offset"), f"{where} mimic offset")
        mimic = (
            mimic_element.get("joint", ""),
            1.0 if multiplier is None else multiplier,
            0.0 if offset is None else offset,
        )
    xyz_mm = (xyz[0] * 1000.0, xyz[1] * 1000.0, xyz[2] * 1000.0)
    rpy_deg = (math.degrees(rpy[0]), math.degrees(rpy[1]), math.degrees(rpy[2]))
    return _UrdfJoint(
        name=name,
        kind=element.get("type", ""),
        parent=parent.get("link", ""),
        child=child.get("link", ""),
        origin=frames.from_xyz_rpy(xyz_mm, rpy_deg),
        xyz_mm=xyz_mm,
        rpy_deg=rpy_deg,
        axis=axis,
        lower_rad=lower,
        upper_rad=upper,
        velocity_rad_s=velocity,
        mimic=mimic,
    )


def _floats(text: str, count: int, what: str) -> list[float]:
    """``count`` numbers from the space-separated ``text``."""
    try:
        values = [float(v) for v in text.split()]
    except ValueError:
        values = []
    if len(values) != count or not all(math.isfinite(v) for v in values):
        raise ConfigError(f"{what} = {text!r}: expected {count} numbers")
    return values


def _number(text: str | None, what: str) -> float | None:
    """The number in ``text``, or None if absent."""
    if text is None:
        return None
    values = _floats(text, 1, what)
    return values[0]
