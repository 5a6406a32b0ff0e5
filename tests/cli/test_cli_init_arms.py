"""``hanoibot init --arm NAME`` and ``hanoibot init --urdf FILE`` (issue 32): the arm's robot config and a board
wiring (``board_config.py``) with as many servo channels as the arm has, checked before anything is written;
a file already there is kept; a bad preset name or an unreadable URDF is one line naming it, and nothing is written.
The board wiring is checked against the firmware's own rules (every channel its own pin, not a pin another setting of
the same file uses, one PWM output each on rp2), not against the text the writer produces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hanoibot.arm import preset_text
from hanoibot.cli import main
from hanoibot.config import default_config_path, load_config
from hanoibot.firmware_source import shipped_firmware
from hanoifw.controller import MAX_CHANNELS

#: Every shipped preset is a whole robot config: its channel count (the arm's servos and the gripper).
RUNNABLE = {"default": 5, "so101": 6, "bracket6": 6, "mearm": 4}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user config home; no hanoibot environment variables."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("HANOIBOT_PORT", raising=False)
    monkeypatch.delenv("HANOIBOT_CONFIG", raising=False)
    return tmp_path / "config" / "hanoibot"


def board_settings(path: Path) -> dict[str, Any]:
    """The settings of a board_config.py, as the firmware's ``import board_config`` sees them."""
    settings: dict[str, Any] = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), settings)
    return settings


def check_wiring(settings: dict[str, Any], channels: int) -> None:
    """The firmware's rules for a board of ``channels`` servo channels."""
    assert settings["CHANNELS"] == channels <= MAX_CHANNELS
    assert sorted(settings["ENABLE_ORDER"]) == list(range(channels))
    assert len(settings["PCA9685_CHANNELS"]) == channels == len(set(settings["PCA9685_CHANNELS"]))
    assert all(0 <= output <= 15 for output in settings["PCA9685_CHANNELS"])
    assert len(settings["BUS_IDS"]) == channels == len(set(settings["BUS_IDS"]))
    for chip, pins in settings["PWM_PINS"].items():
        assert len(pins) == channels == len(set(pins)), chip
        others = set(settings["I2C_BUS"][chip][1:]) | set(settings["BUS_UART"][chip][1:])
        others |= {settings["GRIP_SENSOR_PIN"][chip], settings["RAIL_SENSE_PIN"][chip]}
        assert not others & set(pins), f"{chip}: a servo pin another setting uses"
        if chip == "RP2040":  # one PWM output (slice, A/B) per servo
            outputs = {((pin >> 1) & 7, pin & 1) for pin in pins}
            assert len(outputs) == channels


@pytest.mark.parametrize("name", list(RUNNABLE))
def test_init_arm_writes_the_preset_and_a_board_wiring_of_its_channels(
    name: str, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--arm", name]) == 0, capsys.readouterr().err
    expected = default_config_path().read_text() if name == "default" else preset_text(name)
    assert (home / "robot.toml").read_text() == expected
    config = load_config(home / "robot.toml")
    assert config.channels == RUNNABLE[name]
    check_wiring(board_settings(home / "board_config.py"), config.channels)
    if name == "default":  # the default robot's wiring is the shipped one, byte for byte
        assert (home / "board_config.py").read_bytes() == shipped_firmware().board_config_py.read_bytes()


def test_init_arm_keeps_the_users_files(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init"]) == 0
    robot, wiring = (home / "robot.toml").read_bytes(), (home / "board_config.py").read_bytes()
    capsys.readouterr()
    assert main(["init", "--arm", "bracket6"]) == 0
    out = capsys.readouterr().out
    assert (home / "robot.toml").read_bytes() == robot and (home / "board_config.py").read_bytes() == wiring
    assert out.count("kept") == 2 and "hanoibot init --arm bracket6 --force" in out
    assert main(["init", "--arm", "bracket6", "--force"]) == 0
    assert (home / "robot.toml").read_text() == preset_text("bracket6")
    check_wiring(board_settings(home / "board_config.py"), 6)


def test_a_kept_wiring_that_does_not_fit_the_arm_is_said(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init"]) == 0  # 5 channels
    (home / "robot.toml").unlink()
    capsys.readouterr()
    assert main(["init", "--arm", "so101"]) == 0
    out = capsys.readouterr().out
    assert "CHANNELS = 5" in out and "6 servo channels" in out and "--force" in out


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--arm", "ur5"], "ur5"),
        (["--urdf", "no_such_arm.urdf"], "no_such_arm.urdf"),
        (["--urdf", "NOT_XML"], "NOT_XML"),
        (["--hold", "wrist_roll=0"], "--hold"),
    ],
)
def test_bad_arm_input_is_one_line_and_writes_nothing(
    argv: list[str], named: str, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if "NOT_XML" in argv:
        (tmp_path / "NOT_XML").write_text("this is no URDF")
        argv = ["--urdf", str(tmp_path / "NOT_XML")]
    capsys.readouterr()
    assert main(["init", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err
    assert not (home / "robot.toml").exists() and not (home / "board_config.py").exists()


def test_a_preset_that_is_no_whole_robot_config_writes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A preset that describes its arm and board only (as the MeArm's did before its [servos]): refused, one line.
    text = preset_text("so101")
    monkeypatch.setattr("hanoibot.arm.preset_text", lambda name: text.split("\n[servos]")[0])
    assert main(["init", "--arm", "so101"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--arm so101" in err and "is missing" in err
    assert not (home / "robot.toml").exists()


def test_the_board_wiring_takes_every_channel_count_the_firmware_drives(tmp_path: Path) -> None:
    from hanoibot.board_wiring import wire_board_config
    from hanoibot.errors import ConfigError

    shipped = shipped_firmware().board_config_py.read_text(encoding="utf-8")
    for channels in range(1, MAX_CHANNELS + 1):  # 6 + 1: a 6-joint arm and its gripper, up to the firmware's 9
        path = tmp_path / f"board_config_{channels}.py"
        path.write_text(wire_board_config(shipped, [f"servo{c}" for c in range(channels)]), encoding="utf-8")
        check_wiring(board_settings(path), channels)
    with pytest.raises(ConfigError, match=f"{MAX_CHANNELS + 1} servo channels"):
        wire_board_config(shipped, [f"servo{c}" for c in range(MAX_CHANNELS + 1)])
