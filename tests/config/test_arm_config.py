"""Tests of hanoibot.config.arm_config: the robot config's [arm] read the four ways it may be written (robot.toml's
4-joint short form is tests/config/test_config.py's): a chain, a preset by name, a URDF beside the config file;
what a URDF holds that cannot be mapped comes back as the config's notes, one line each."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hanoibot.arm import load_preset, preset_text
from hanoibot.config import load_config, parse_config
from hanoibot.errors import ConfigError

FIXTURE = Path(__file__).resolve().parents[1] / "arm" / "fixtures" / "so101_new_calib_joints.urdf"


def with_arm(preset: str, arm: dict[str, Any]) -> bytes:
    """The robot config of ``preset`` with its [arm] table replaced by ``arm``."""
    document: Any = tomlkit.parse(preset_text(preset))
    document["arm"] = arm
    return tomlkit.dumps(document).encode("utf-8")


def test_a_preset_by_name_is_the_presets_chain() -> None:
    config = parse_config(with_arm("bracket6", {"preset": "bracket6"}))
    assert config.chain == load_preset("bracket6").chain
    assert config.chain == parse_config(preset_text("bracket6").encode("utf-8")).chain


def test_an_unknown_preset_names_the_presets() -> None:
    with pytest.raises(ConfigError, match=r"\[arm\] preset = 'meArm': expected one of .*mearm"):
        parse_config(with_arm("bracket6", {"preset": "meArm"}))


def test_a_chain_in_the_config_is_read_as_the_preset_reads_it() -> None:
    shipped = load_config().chain  # robot.toml's short form: the same chain as the default preset's, named "robot"
    assert replace(shipped, name="default") == load_preset("default").chain
    assert parse_config(preset_text("so101").encode("utf-8")).chain == load_preset("so101").chain


def test_what_a_urdf_cannot_map_is_one_note_a_line(tmp_path: Path) -> None:
    extra = (
        '  <link name="camera_slide_link"/>\n'
        '  <joint name="camera_slide" type="prismatic">\n'
        '    <origin xyz="0 0 0.1" rpy="0 0 0"/><parent link="base_link"/><child link="camera_slide_link"/>\n'
        '    <axis xyz="0 0 1"/><limit lower="0" upper="0.05" effort="1" velocity="1"/>\n'
        "  </joint>\n"
    )
    (tmp_path / "arm.urdf").write_text(FIXTURE.read_text(encoding="utf-8").replace("</robot>", extra + "</robot>"))
    arm = {"urdf": "arm.urdf", "hold": {"wrist_roll": 0.0}, "mount_xyz_mm": [-38.8353, 0.0, 0.0]}
    (tmp_path / "robot.toml").write_bytes(with_arm("so101", arm))
    config = load_config(tmp_path / "robot.toml")
    assert config.notes == ("prismatic joint 'camera_slide' is not between base_link and gripper_frame_link: ignored",)
    assert [j.name for j in config.chain.joints] == [j.name for j in load_preset("so101").chain.joints]


def test_a_urdf_that_is_not_there_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "robot.toml").write_bytes(with_arm("so101", {"urdf": "missing.urdf"}))
    with pytest.raises(ConfigError, match=r"missing.urdf: cannot read the URDF"):
        load_config(tmp_path / "robot.toml")
