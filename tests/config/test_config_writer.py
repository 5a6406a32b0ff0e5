"""``config/writer.py``: edits applied with comments kept, validated before writing, written in one step."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from hanoibot.config import default_config_path, load_config, packaged_config_path
from hanoibot.config.writer import ConfigWriter
from hanoibot.errors import ConfigError


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "robot.toml"
    shutil.copyfile(default_config_path(), path)
    return path


def test_pegs_and_threshold_are_written_together_with_comments_kept(source: Path) -> None:
    writer = ConfigWriter(source)
    writer.set_peg(0, 158.04, -91.26)
    writer.set_peg(2, 161.0, 88.0)
    writer.set_grip_threshold(30001)
    config = writer.save()
    text = source.read_text()
    raw = tomllib.loads(text)
    assert [(p["x_mm"], p["y_mm"]) for p in raw["board"]["pegs"]] == [(158.0, -91.3), (160.0, 0.0), (161.0, 88.0)]
    assert raw["gripper"]["grip_threshold_u16"] == 30001
    assert "# Wooden dowel pegs standing on the board." in text
    assert load_config(source) == config


def test_a_config_that_would_not_load_is_never_written(source: Path) -> None:
    before = source.read_bytes()
    writer = ConfigWriter(source)
    writer.set_peg(1, 160.0, -85.0)  # on top of peg A
    with pytest.raises(ConfigError, match=r"overlaps peg A|too wide"):
        writer.save()
    assert source.read_bytes() == before
    assert [p.name for p in source.parent.iterdir()] == [source.name], "no temporary file left behind"


def test_another_target_leaves_the_source_alone(source: Path, tmp_path: Path) -> None:
    before = source.read_bytes()
    writer = ConfigWriter(source)
    writer.set_grip_threshold(12345)
    target = tmp_path / "out.toml"
    writer.save(target)
    assert source.read_bytes() == before and load_config(target).gripper.grip_threshold_u16 == 12345


def test_the_packaged_config_is_never_written(source: Path) -> None:
    writer = ConfigWriter(source)
    writer.set_grip_threshold(12345)
    before = packaged_config_path().read_bytes()
    with pytest.raises(ConfigError, match=r"packaged with hanoibot"):
        writer.save(packaged_config_path())
    assert packaged_config_path().read_bytes() == before


def test_a_peg_the_board_does_not_have_is_refused(source: Path) -> None:
    writer = ConfigWriter(source)
    writer.set_peg(3, 160.0, 180.0)
    with pytest.raises(ConfigError, match=r"no peg number 4"):
        writer.save()


def test_a_servos_calibration_and_limits_and_its_joints_limits_are_written(source: Path) -> None:
    writer = ConfigWriter(source)
    writer.set_servo_calibration("base", -3.456, -1, 11.12345)
    writer.set_servo_limits("base", 620, 2350, note="range of motion swept by hand: 620..2350 us")
    writer.set_joint_limits("base", -70.5, 70.25)
    config = writer.save()
    text = source.read_text()
    raw = tomllib.loads(text)
    base = raw["servos"]["base"]
    assert (base["offset_deg"], base["direction"], base["us_per_deg"]) == (-3.46, -1, 11.1235)
    assert (base["min_us"], base["max_us"]) == (620, 2350) and "# range of motion swept by hand" in text
    assert (raw["arm"]["base"]["min_deg"], raw["arm"]["base"]["max_deg"]) == (-70.5, 70.25)
    assert config.servos[0].min_deg == -70.5


def test_joint_limits_in_a_presets_joint_list_are_found_by_name(tmp_path: Path) -> None:
    preset = Path(__file__).resolve().parents[2] / "host" / "hanoibot" / "arm" / "presets" / "so101.toml"
    path = tmp_path / "so101.toml"
    shutil.copyfile(preset, path)
    writer = ConfigWriter(path)
    writer.set_joint_limits("elbow_flex", -80.0, 90.0)
    writer.save()
    joints = tomllib.loads(path.read_text())["arm"]["joints"]
    assert [(j["min_deg"], j["max_deg"]) for j in joints if j["name"] == "elbow_flex"] == [(-80.0, 90.0)]
    writer.set_joint_limits("no_such_joint", 0.0, 1.0)
    with pytest.raises(ConfigError, match="no joint 'no_such_joint'"):
        writer.text()
