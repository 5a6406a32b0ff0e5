"""Arm presets: the kits makers own, each a TOML file beside this module (``presets/<name>.toml``), with sources.

A preset is a whole robot config (``hanoibot init --arm NAME`` writes it as the user's robot.toml): a ``[preset]``
table (its name and a one-line description), an ``[arm]`` chain (joints, servos, tool, grasp mode, IK family), the
``[board]`` it can reach, and robot.toml's ``[servos]``, ``[gripper]``, ``[motion]`` and ``[tolerances]``, which
:mod:`hanoibot.config` reads (this room reads ``[preset]``, ``[arm]`` and ``[board]``). :func:`load_preset` reads
one by name; :func:`read_preset` any file; :func:`parse_chain` the ``[arm]`` table alone, for a robot config that
describes its arm the same way. Every option is checked where it is read and an unknown key is an error naming
its section (config/reader.py's rules). Reading the files is this room's only I/O, at its edge.

``[arm]`` keys: ``ik`` (serial_pitch, parallelogram, numeric), ``grasp`` (top_down, side), optional
``mount_xyz_mm``/``mount_rpy_deg`` (the chain's root in the arm frame); ``[[arm.joints]]`` base first: ``name``,
``origin_xyz_mm``, ``origin_rpy_deg`` (URDF roll-pitch-yaw, degrees; default 0), ``axis``, then ``held_deg`` for a
joint held fixed, or ``min_deg``/``max_deg`` with either ``max_speed_deg_s`` (and ``max_accel_deg_s2``) for a joint
on its own servo or ``coupling = { servo = gain, ... }`` (and ``coupling_offset_deg``) for a joint moved through a
linkage; ``[[arm.actuators]]``: servos that drive couplings only (``name``, ``min_deg``, ``max_deg``,
``max_speed_deg_s``, ``max_accel_deg_s2``); ``[arm.tool]``: ``name``, ``grip_xyz_mm``, ``approach`` and optionally
its servo's ``min_deg``, ``max_deg``, ``max_speed_deg_s``, ``max_accel_deg_s2``. Servo (wire) order: the joints'
own servos in joint order, each coupling-only servo where a coupling first names it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import ConfigError
from . import frames
from .board import BoardLayout, PegSpot
from .chain import DEFAULT_MAX_ACCEL_DEG_S2, IK_FAMILIES, Actuator, Chain, Coupling, GraspMode, Joint, Tool
from .toml_table import Table

#: The presets shipped, as ``hanoibot init --arm NAME`` will name them.
PRESET_NAMES = ("default", "mearm", "so101", "bracket6")
#: The robot config's tables a preset carries that :mod:`hanoibot.config` reads, not this room.
CONFIG_TABLES = ("servos", "gripper", "motion", "tolerances")
_LENGTH_MM = 5000.0
_ANGLE_DEG = 360.0
_SPEED_DEG_S = 10000.0
_ACCEL_DEG_S2 = 1e6


@dataclass(frozen=True)
class Preset:
    """One kit: its name, a one-line description, its arm and the board it can reach."""

    name: str
    description: str
    chain: Chain
    board: BoardLayout


def load_preset(name: str) -> Preset:
    """The shipped preset ``name`` (ConfigError listing the names if there is none)."""
    return parse_preset(preset_text(name), f"preset {name}")


def preset_text(name: str) -> str:
    """The text of the shipped preset ``name``: a whole robot config (ConfigError listing the names if none)."""
    if name not in PRESET_NAMES:
        raise ConfigError(f"arm preset {name!r}: expected one of {', '.join(PRESET_NAMES)}")
    return resources.files(__package__).joinpath("presets", f"{name}.toml").read_text(encoding="utf-8")


def read_preset(path: Path) -> Preset:
    """The preset in the file at ``path`` (ConfigError naming the file if it cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read the preset ({err})") from None
    return parse_preset(text, str(path))


def parse_preset(text: str, source: str) -> Preset:
    """The preset in the TOML ``text`` (``source`` names it in messages)."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{source}: not TOML: {err}") from None
    top = Table("", document)
    about = top.table("preset")
    name = about.text("name")
    description = about.text("description")
    about.finish()
    chain = parse_chain(top.table("arm"), name)
    board = parse_board(top.table("board"))
    for key in CONFIG_TABLES:
        top.has(key)
    top.finish()
    return Preset(name, description, chain, board)


def parse_chain(arm: Table, name: str) -> Chain:
    """The chain of an ``[arm]`` table (keys in the module docstring), named ``name``."""
    extra = {t.text("name"): t for t in arm.tables("actuators", required=False)}
    joints: list[Joint] = []
    actuators: list[Actuator] = []
    for table in arm.tables("joints"):
        joint, own = _joint(table)
        joints.append(joint)
        if own is not None:
            actuators.append(own)
        for servo, _ in joint.coupling.gains if joint.coupling is not None else ():
            if servo in extra and all(a.name != servo for a in actuators):
                actuators.append(_actuator(extra[servo], servo))
                extra[servo].finish()
    for servo, table in extra.items():
        if all(a.name != servo for a in actuators):
            raise ConfigError(f"[{table.name}] servo {servo!r} drives no coupling: expected a joint naming it")
    chain = Chain(
        name=name,
        joints=tuple(joints),
        actuators=tuple(actuators),
        tool=_tool(arm.table("tool")),
        grasp=GraspMode(arm.text("grasp", tuple(m.value for m in GraspMode))),
        ik_family=arm.text("ik", IK_FAMILIES),
        mount_xyz_mm=arm.vector("mount_xyz_mm", (0.0, 0.0, 0.0)),
        mount_rpy_deg=arm.vector("mount_rpy_deg", (0.0, 0.0, 0.0)),
    )
    arm.finish()
    return chain


def parse_board(board: Table) -> BoardLayout:
    """The ``[board]`` table in robot.toml's keys (its colour set, which :mod:`hanoibot.config` reads, aside)."""
    board.has("colour_set")
    height_mm = board.number("peg_height_mm", 1.0, 1000.0)
    pegs = []
    for table in board.tables("pegs"):
        pegs.append(
            PegSpot(
                table.number("x_mm", -_LENGTH_MM, _LENGTH_MM),
                table.number("y_mm", -_LENGTH_MM, _LENGTH_MM),
                table.number("height_mm", 1.0, 1000.0, default=height_mm),
            )
        )
        table.finish()
    diameters = board.numbers("disk_diameters_mm", 1.0, 1000.0)
    count = board.number("disk_count", 1, 64)  # robot.toml's key, kept so the board can be written there as is
    if count != len(diameters):
        raise board.error("disk_count", int(count), f"{len(diameters)}, the number of disk_diameters_mm")
    layout = BoardLayout(
        pegs=tuple(pegs),
        peg_diameter_mm=board.number("peg_diameter_mm", 1.0, 100.0),
        disk_diameters_mm=diameters,
        disk_thickness_mm=board.number("disk_thickness_mm", 0.5, 100.0),
        disk_hole_diameter_mm=board.number("disk_hole_diameter_mm", 1.0, 100.0),
    )
    board.finish()
    return layout


def _joint(table: Table) -> tuple[Joint, Actuator | None]:
    """One ``[[arm.joints]]`` table: the joint, and its own servo if it has one."""
    name = table.text("name")
    axis = _unit(table, "axis")
    origin = (table.vector("origin_xyz_mm"), table.vector("origin_rpy_deg", (0.0, 0.0, 0.0)))
    if table.has("held_deg"):
        held = table.number("held_deg", -_ANGLE_DEG, _ANGLE_DEG)
        table.finish()
        return Joint(name, *origin, axis, min_deg=held, max_deg=held, held_deg=held), None
    if table.has("coupling"):
        low = table.number("min_deg", -_ANGLE_DEG, _ANGLE_DEG)
        high = table.number("max_deg", -_ANGLE_DEG, _ANGLE_DEG)
        if not low < high:
            raise table.error("max_deg", high, f"more than min_deg = {low:g}")
        offset = table.number("coupling_offset_deg", -_ANGLE_DEG, _ANGLE_DEG, 0.0)
        coupling = Coupling(table.gains("coupling"), offset)
        table.finish()
        return Joint(name, *origin, axis, min_deg=low, max_deg=high, coupling=coupling), None
    own = _actuator(table, name)
    table.finish()
    return Joint(name, *origin, axis, min_deg=own.min_deg, max_deg=own.max_deg), own


def _actuator(table: Table, name: str) -> Actuator:
    """A servo's travel (``min_deg``, ``max_deg``), top speed and acceleration limit from ``table``."""
    low = table.number("min_deg", -_ANGLE_DEG, _ANGLE_DEG)
    high = table.number("max_deg", -_ANGLE_DEG, _ANGLE_DEG)
    if not low < high:
        raise table.error("max_deg", high, f"more than min_deg = {low:g}")
    speed = table.number("max_speed_deg_s", 1e-3, _SPEED_DEG_S)
    accel = table.number("max_accel_deg_s2", 1e-3, _ACCEL_DEG_S2, DEFAULT_MAX_ACCEL_DEG_S2)
    return Actuator(name, low, high, speed, accel)


def _tool(table: Table) -> Tool:
    """The ``[arm.tool]`` table."""
    name = table.text("name")
    servo = _actuator(table, name) if table.has("min_deg") else None
    tool = Tool(name, table.vector("grip_xyz_mm"), _unit(table, "approach"), servo)
    table.finish()
    return tool


def _unit(table: Table, key: str) -> frames.Vec3:
    """The direction ``key`` scaled to length 1."""
    value = table.vector(key)
    try:
        return frames.unit(value)
    except ValueError:
        raise table.error(key, list(value), "a direction (not all zero)") from None
