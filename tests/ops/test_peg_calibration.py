"""The peg calibration as an operation (:mod:`hanoibot.ops.peg_calibration`) on ``sim://``: a peg is in the file as
soon as it is confirmed, a position the config refuses is not written, the default config is never the target, and
a calibration begun by the operation goes on at the command line where it stopped."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hanoibot.cli import main
from hanoibot.config import default_config_path
from hanoibot.errors import ConfigError, HanoiError
from hanoibot.ops.board import open_robot
from hanoibot.ops.peg_calibration import PegCalibration, calibration_target
from shifted_config import pegs_mm, shifted_config


def test_the_default_config_is_never_the_target_unless_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="calibrate never writes the default robot config"):
        calibration_target(None, default_config_path())
    assert calibration_target(str(tmp_path / "out.toml"), default_config_path()) == tmp_path / "out.toml"
    assert calibration_target(None, tmp_path / "mine.toml") == tmp_path / "mine.toml"


def test_a_confirmed_peg_is_saved_at_once_and_the_command_line_goes_on_from_the_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = shifted_config(tmp_path)
    true_x_mm = pegs_mm(default_config_path())[0][0]
    with open_robot("sim://", str(config)) as robot:
        calibration = PegCalibration(robot, config)
        with pytest.raises(HanoiError, match="go to a peg first"):
            calibration.confirm()
        calibration.go_to_peg(0)
        x_mm = calibration.grip_point_mm()[0]
        assert calibration.jog("x", -1) is None
        assert calibration.grip_point_mm()[0] == pytest.approx(x_mm - 2.0, abs=0.3)
        assert calibration.set_step(100.0) == 20.0 and calibration.set_step(2.0) == 2.0
        calibration.jog("x", -1)
        point = calibration.confirm()
    assert pegs_mm(config)[0] == point and abs(point[0] - true_x_mm) <= 0.5
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    main(["calibrate", "--port", "sim://", "--config", str(config)])
    out = capsys.readouterr().out
    assert "going on with the calibration that stopped at peg B: peg A was saved" in out, out


def test_a_position_the_config_refuses_is_not_written(tmp_path: Path) -> None:
    config = shifted_config(tmp_path, 0.0)
    before = config.read_text()
    with open_robot("sim://", str(config)) as robot:
        calibration = PegCalibration(robot, config)
        calibration.go_to_peg(1)
        calibration.jogger.grip_point_mm = lambda: (*pegs_mm(config)[0], 3.0)  # type: ignore[method-assign]
        with pytest.raises(ConfigError):
            calibration.confirm()  # peg B where peg A stands
        assert calibration.confirmed == {}
    assert config.read_text() == before
