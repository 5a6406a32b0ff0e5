"""Helpers shared by the tests: the default robot.toml edited through tomlkit, in memory or written to a file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomlkit
from hanoibot.config import RobotConfig, default_config_path, parse_config

Edit = Callable[[Any], None]

#: The arm joints of robot.toml's [arm] section.
JOINTS = ("base", "shoulder", "elbow", "wrist")
#: The highest max_speed_deg_s the config accepts for an arm joint and for the gripper, in deg/s.
JOINT_TOP_DEG_S = 2000.0
GRIPPER_TOP_DEG_S = 3000.0


def edited(change: Edit) -> bytes:
    """The default robot.toml after ``change`` has edited its tomlkit document (comments kept)."""
    document = tomlkit.parse(default_config_path().read_text(encoding="utf-8"))
    change(document)
    return tomlkit.dumps(document).encode("utf-8")


def config_with(change: Edit) -> RobotConfig:
    """The default robot with ``change`` applied, validated."""
    return parse_config(edited(change))


def four_pegs(document: Any) -> None:
    """An edit that spreads the pegs to y = -135, -45, 45 mm and adds peg D at y = 135 mm."""
    pegs = document["board"]["pegs"]
    for table, y_mm in zip(pegs, (-135.0, -45.0, 45.0), strict=True):
        table["y_mm"] = y_mm
    extra = tomlkit.table()
    extra["x_mm"] = 160.0
    extra["y_mm"] = 135.0
    pegs.append(extra)


def speed_scaled_config(folder: Path, factor: float, *, gripper: bool = True) -> Path:
    """The default robot with every arm joint's max_speed_deg_s times ``factor`` (and the gripper's, unless
    ``gripper`` is False), at most what the config accepts, written to ``folder``; returns the file's path."""

    def scale(document: Any) -> None:
        for joint in JOINTS:
            table = document["arm"][joint]
            table["max_speed_deg_s"] = min(JOINT_TOP_DEG_S, table["max_speed_deg_s"] * factor)
        if gripper:
            table = document["gripper"]
            table["max_speed_deg_s"] = min(GRIPPER_TOP_DEG_S, table["max_speed_deg_s"] * factor)

    path = folder / f"robot_speed_x{factor:g}.toml"
    path.write_bytes(edited(scale))
    return path


def preset_speed_scaled_config(folder: Path, name: str, factor: float) -> Path:
    """The arm preset ``name`` (a whole robot config) with every servo's max_speed_deg_s (its joints', its coupled
    servos' and the gripper's) times ``factor``, at most what the config accepts, written to ``folder``."""
    from hanoibot.arm import preset_text

    document: Any = tomlkit.parse(preset_text(name))
    for table in [*document["arm"].get("joints", []), *document["arm"].get("actuators", [])]:
        if "max_speed_deg_s" in table:
            table["max_speed_deg_s"] = min(JOINT_TOP_DEG_S, table["max_speed_deg_s"] * factor)
    gripper = document["gripper"]
    gripper["max_speed_deg_s"] = min(GRIPPER_TOP_DEG_S, gripper["max_speed_deg_s"] * factor)
    path = folder / f"{name}_speed_x{factor:g}.toml"
    path.write_text(tomlkit.dumps(document), encoding="utf-8")
    return path
