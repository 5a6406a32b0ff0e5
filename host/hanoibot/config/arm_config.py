"""The robot config's ``[arm]``: the arm as a chain of joints (DESIGN decision 20), written one of four ways.

- **a chain**: ``[[arm.joints]]`` base first, ``[arm.tool]``, ``ik`` and ``grasp`` (the keys of
  :mod:`hanoibot.arm.presets`, read by its :func:`~hanoibot.arm.parse_chain`): any arm of revolute joints, coupled
  or held; every preset is written this way;
- **a preset**: ``preset = "mearm"``, the chain of a shipped kit (``hanoibot init --arm NAME`` writes the whole
  robot config instead, to calibrate);
- **a URDF**: ``urdf = "my_arm.urdf"`` (beside the config file, or an absolute path), with optional ``tool_link``,
  ``gripper_joint``, ``hold = { wrist_roll = 0.0 }`` (joints to hold, degrees), ``grasp``, ``approach`` (the way
  the fingers point in the tool link's frame), ``mount_xyz_mm`` and ``mount_rpy_deg`` (:func:`~hanoibot.arm.
  parse_urdf`); what it could not map comes back as notes, one line each;
- **the 4-joint short form** of the default robot (hardware/robot.toml): ``shoulder_height_mm``,
  ``upper_arm_mm``, ``forearm_mm``, ``tool_length_mm`` and ``[arm.base]``, ``[arm.shoulder]``, ``[arm.elbow]``,
  ``[arm.wrist]``: a base yaw and three pitch joints, the gripper pointing down. It is read into the same chain as
  the ``default`` preset's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..arm import PRESET_NAMES, Actuator, Chain, GraspMode, Joint, Tool, load_preset, parse_chain, read_urdf
from ..arm.toml_table import Table
from ..errors import ConfigError
from ..motion.geometry import DEFAULT_MAX_ACCEL_DEG_S2
from .reader import Section

#: The short form's joints, base first (robot.toml's ``[arm.<name>]`` tables).
SHORT_FORM_JOINTS = ("base", "shoulder", "elbow", "wrist")
#: A pitch joint of the short form turns about -y: a positive angle lifts (motion's convention since the start).
_PITCH_AXIS = (0.0, -1.0, 0.0)


def read_arm(root: Section, source_path: Path | None, name: str) -> tuple[Chain, tuple[str, ...]]:
    """The chain the config's ``[arm]`` describes (named ``name``), and the notes of a URDF it names."""
    raw = root.raw_table("arm")
    if "preset" in raw:
        table = Table("arm", raw)
        preset = table.text("preset", PRESET_NAMES)
        table.finish()
        return load_preset(preset).chain, ()
    if "urdf" in raw:
        return _from_urdf(Table("arm", raw), source_path)
    if "joints" in raw:
        return parse_chain(Table("arm", raw), name), ()
    return _short_form(Section("arm", raw), name), ()


def _from_urdf(table: Table, source_path: Path | None) -> tuple[Chain, tuple[str, ...]]:
    """``[arm] urdf = FILE`` and its options (module docstring)."""
    path = Path(table.text("urdf"))
    if not path.is_absolute() and source_path is not None:
        path = source_path.parent / path
    options: dict[str, Any] = {
        "grasp": GraspMode(table.text("grasp", tuple(m.value for m in GraspMode), default=GraspMode.TOP_DOWN.value)),
        "approach": table.vector("approach", (0.0, 0.0, 1.0)),
        "mount_xyz_mm": table.vector("mount_xyz_mm", (0.0, 0.0, 0.0)),
        "mount_rpy_deg": table.vector("mount_rpy_deg", (0.0, 0.0, 0.0)),
    }
    for key in ("tool_link", "gripper_joint"):
        if table.has(key):
            options[key] = table.text(key)
    if table.has("hold"):
        options["held_deg"] = dict(table.gains("hold"))
    table.finish()
    imported = read_urdf(path, **options)
    return imported.chain, imported.notes


def _short_form(section: Section, name: str) -> Chain:
    """The 4-joint short form (module docstring) as a chain."""
    shoulder_height_mm = section.number("shoulder_height_mm", 0.0, 1000.0)
    upper_arm_mm = section.number("upper_arm_mm", 10.0, 1000.0)
    forearm_mm = section.number("forearm_mm", 10.0, 1000.0)
    tool_length_mm = section.number("tool_length_mm", 0.0, 500.0)
    origins = ((0.0, 0.0, 0.0), (0.0, 0.0, shoulder_height_mm), (upper_arm_mm, 0.0, 0.0), (forearm_mm, 0.0, 0.0))
    axes = ((0.0, 0.0, 1.0), _PITCH_AXIS, _PITCH_AXIS, _PITCH_AXIS)
    joints, servos = [], []
    for joint_name, origin, axis in zip(SHORT_FORM_JOINTS, origins, axes, strict=True):
        table = section.table(joint_name)
        min_deg = table.number("min_deg", -180.0, 180.0)
        max_deg = table.number("max_deg", -180.0, 180.0)
        if max_deg <= min_deg:
            raise table.error("max_deg", max_deg, f"more than min_deg = {min_deg:g}")
        speed_deg_s = table.number("max_speed_deg_s", 0.0, 2000.0, low_open=True)
        accel_deg_s2 = table.number("max_accel_deg_s2", 0.0, 100000.0, low_open=True, default=DEFAULT_MAX_ACCEL_DEG_S2)
        table.finish()
        joints.append(Joint(joint_name, origin, (0.0, 0.0, 0.0), axis, min_deg, max_deg))
        servos.append(Actuator(joint_name, min_deg, max_deg, speed_deg_s, accel_deg_s2))
    section.finish()
    tool = Tool("gripper", (tool_length_mm, 0.0, 0.0), (1.0, 0.0, 0.0))
    try:
        return Chain(name, tuple(joints), tuple(servos), tool, GraspMode.TOP_DOWN, "serial_pitch")
    except ConfigError as err:
        raise ConfigError(f"[arm]: {err}") from None
