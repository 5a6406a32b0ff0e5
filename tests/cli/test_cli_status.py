"""``hanoibot status``: a diagnostic shows the board as it is, also when it does not fit the robot config."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hanoibot.cli import main
from hanoibot.config import default_config_path


def config_without_grip_sensor(tmp_path: Path) -> Path:
    """The default robot config with ``grip_sensor = false``: a simulated board built from it has no sensor."""
    path = tmp_path / "no_sensor.toml"
    shutil.copyfile(default_config_path(), path)
    text = path.read_text().replace("grip_sensor = true", "grip_sensor = false")
    text = "\n".join(line for line in text.splitlines() if not line.startswith("grip_threshold_u16"))
    path.write_text(text + "\n")
    return path


def test_status_shows_a_board_whose_sensors_differ_from_the_config_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_config = config_without_grip_sensor(tmp_path)
    assert main(["status", "--port", f"sim://?config={board_config}"]) == 0  # the host's config wants the sensor
    out, err = capsys.readouterr()
    assert "grip        no sensor" in out and "mode        UNCONFIGURED" in out
    assert err.count("warning:") == 1 and "[gripper] grip_sensor = true" in err
    assert main(["status", "--json", "--port", f"sim://?config={board_config}"]) == 0
    fields = json.loads(capsys.readouterr().out)
    assert fields["grip"] == "none" and len(fields["warnings"]) == 1


def test_a_board_that_fits_gets_no_warning(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status"]) == 0
    out, err = capsys.readouterr()
    assert "warning" not in err and "mode        UNCONFIGURED" in out


def test_commands_that_move_the_arm_still_refuse_such_a_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board_config = config_without_grip_sensor(tmp_path)
    assert main(["home", "--port", f"sim://?config={board_config}"]) == 2
    assert "grip_sensor" in capsys.readouterr().err
