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
