"""``hanoibot calibrate --grip`` on the simulated robot: two closes, the midpoint saved, comments kept."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from hanoibot.commands.grip_calibration import PROMPTS, measure_grip_threshold
from hanoibot.commands.jog import prepare_for_jogging
from hanoibot.config import default_config_path, load_config
from hanoibot.config.writer import ConfigWriter
from hanoibot.errors import RunFault
from hanoibot.run.robot import Robot
from hanoibot.sim.world import REST_CURRENT_A, STALL_CURRENT_A


def u16(current_a: float) -> float:
    """Independent oracle: current x 0.1 ohm x gain 50 on a 3.3 V 16-bit ADC."""
    return current_a * 0.1 * 50 / 3.3 * 65535


def test_the_threshold_is_the_midpoint_of_an_empty_close_and_a_close_on_a_disk() -> None:
    with Robot("sim://?seed=2") as robot:
        robot.open()
        prepare_for_jogging(robot)
        sensor = robot.sim_board.world.grip_sensor
        asked: list[str] = []

        def ask(prompt: str) -> None:
            asked.append(prompt)
            if prompt == PROMPTS[1]:  # the user puts a disk between the fingers: closing on it stalls the servo
                sensor.current_a = lambda: STALL_CURRENT_A

        empty, held, threshold = measure_grip_threshold(robot, ask)
        assert asked == list(PROMPTS)
        assert abs(empty - u16(REST_CURRENT_A)) <= 1 and abs(held - u16(STALL_CURRENT_A)) <= 1
        assert threshold == (empty + held) // 2
        assert robot.session.status().pulses_us[4] == robot.config.gripper.open_us  # left open


def test_readings_that_cannot_be_told_apart_are_refused() -> None:
    with Robot("sim://?seed=2") as robot:
        robot.open()
        prepare_for_jogging(robot)
        with pytest.raises(RunFault, match=r"not clearly above the empty close"):
            measure_grip_threshold(robot, lambda prompt: None)  # nobody put a disk in


def test_the_threshold_is_saved_with_the_comments_kept(tmp_path: Path) -> None:
    source = tmp_path / "robot.toml"
    shutil.copyfile(default_config_path(), source)
    target = tmp_path / "calibrated.toml"
    writer = ConfigWriter(source)
    writer.set_grip_threshold(33333)
    writer.save(target)
    assert load_config(target).gripper.grip_threshold_u16 == 33333
    assert "# The grip sensor measures" in target.read_text() and source.read_text() != target.read_text()


def test_the_cli_refuses_to_overwrite_the_default_config(capsys: Any) -> None:
    from hanoibot.cli import main

    assert main(["calibrate", "--grip", "--port", "sim://"]) == 2
    assert "--output" in capsys.readouterr().err
