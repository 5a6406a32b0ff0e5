"""``hanoibot calibrate --grip`` on the simulated robot: many readings per state, the middle of the gap saved only
with a margin, comments kept; on a bus gripper (``sim://?servo=sts``) its load closed on nothing and on the smallest
disk, closed as a pick of that disk closes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from hanoibot.arm import preset_text
from hanoibot.commands.jog import prepare_for_jogging
from hanoibot.config import default_config_path, load_config
from hanoibot.config.writer import ConfigWriter
from hanoibot.errors import RunFault
from hanoibot.ops.grip_measure import (
    BUS_PROMPTS,
    MIN_MARGIN_U16,
    PROMPTS,
    SAMPLES,
    grip_threshold,
    measure_grip_threshold,
)
from hanoibot.run.robot import Robot
from hanoibot.sim.bus import FULL_EFFORT_US
from hanoibot.sim.sensors import ServoCurrent
from hanoibot.sim.world import GRIP_COMPLIANCE_MM


def u16(current_a: float) -> float:
    """Independent oracle: current x 0.1 ohm x gain 50 on a 3.3 V 16-bit ADC."""
    return current_a * 0.1 * 50 / 3.3 * 65535


def frame_mean_a(stalled: bool) -> float:
    """Oracle: the servo's current averaged over a PWM frame (its quiescent current plus one burst)."""
    servo = ServoCurrent()
    peak_a, burst_s = (servo.stall_peak_a, servo.stall_burst_s) if stalled else (servo.rest_peak_a, servo.rest_burst_s)
    return servo.quiescent_a + peak_a * burst_s / servo.frame_s


def test_the_threshold_is_the_middle_of_the_gap_between_many_noisy_readings() -> None:
    with Robot("sim://?seed=2") as robot:
        robot.open()
        prepare_for_jogging(robot)
        sensor = robot.sim_board.world.grip_sensor
        asked: list[str] = []
        statuses: list[int] = []
        status = robot.session.status

        def counting_status() -> Any:
            reply = status()
            statuses.append(reply.grip_raw)
            return reply

        def ask(prompt: str) -> None:
            asked.append(prompt)
            if prompt == PROMPTS[1]:  # the user puts a disk between the fingers: closing on it stalls the servo
                sensor.is_stalled = lambda: True

        robot.session.status = counting_status  # type: ignore[method-assign]
        empty, held, threshold = measure_grip_threshold(robot, ask)
        assert asked == list(PROMPTS)
        readings = [raw for raw in statuses if raw > 0]
        assert len(readings) >= 2 * SAMPLES, "many readings per state, not one"
        assert abs(empty - u16(frame_mean_a(False))) <= 0.02 * 65535
        assert abs(held - u16(frame_mean_a(True))) <= 0.02 * 65535
        empty_readings, held_readings = readings[:SAMPLES], readings[-SAMPLES:]
        assert threshold == (max(empty_readings) + min(held_readings)) // 2
        assert robot.session.status().pulses_us[4] == robot.config.gripper.open_us  # left open


def test_readings_that_cannot_be_told_apart_are_refused() -> None:
    with Robot("sim://?seed=2") as robot:
        robot.open()
        prepare_for_jogging(robot)
        with pytest.raises(RunFault, match=r"not clearly above the empty close"):
            measure_grip_threshold(robot, lambda prompt: None)  # nobody put a disk in


def test_a_threshold_without_margin_over_the_noise_is_refused() -> None:
    assert grip_threshold([1000, 1100, 900], [9000, 9100, 8900]) == (1100 + 8900) // 2
    with pytest.raises(RunFault, match="gap"):  # the means are far apart, but one held reading is not
        grip_threshold([1000, 1100, 900], [9000, 9100, 1500])
    with pytest.raises(RunFault, match="gap"):  # a clean gap, but narrower than the margin
        grip_threshold([1000] * 4, [1000 + MIN_MARGIN_U16 - 1] * 4)
    noisy_held = [30000, 40000, 50000, 60000]  # spread about 11 000: a 6-sigma gap would be 67 000
    with pytest.raises(RunFault, match="gap"):
        grip_threshold([1000, 1200], noisy_held)
    with pytest.raises(RunFault, match="no reading"):
        grip_threshold([1000, -1], [9000, 9000])


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


# --- a bus gripper (sim://?servo=sts): its load and position, no shunt ---------------------------------------------
def hand_holds_the_smallest_disk(board: Any) -> float:
    """From now on a disk 1 held in the fingers stops them as it would a pick (less the give of the disk and the
    pads, as the world's own held disk does); the pulse (µs) they stop at."""
    config = board.world.config
    gripper, channel = config.gripper, config.gripper_channel
    stop_us = gripper.pulse_for_width_us(min(config.board.disk_diameters_mm) - GRIP_COMPLIANCE_MM)
    closing_up = gripper.closed_us > gripper.open_us
    stop = (None, stop_us) if closing_up else (stop_us, None)
    board.servo_bus.stop_us = lambda ch: stop if ch == channel else (None, None)
    return stop_us


def expected_bus_reading(config: Any, stop_us: float) -> float:
    """Oracle: the simulated servo's effort on the error between the pick's pulse and where the disk stops it
    (full effort, load 1000, at FULL_EFFORT_US), on the grip sensor's scale (65535 at stall)."""
    gripper = config.gripper
    goal_us = gripper.pulse_for_width_us(min(config.board.disk_diameters_mm) - gripper.squeeze_mm)
    return min(1000.0, 1000.0 * abs(goal_us - stop_us) / FULL_EFFORT_US) * 65535 / 1000


@pytest.mark.parametrize("arm", ["default", "so101"])
def test_a_bus_gripper_is_measured_closed_on_nothing_and_on_the_smallest_disk(arm: str, tmp_path: Path) -> None:
    path = tmp_path / f"{arm}.toml"
    path.write_text(preset_text(arm), encoding="utf-8")
    with Robot(f"sim://?servo=sts&seed=3&config={path}", load_config(path)) as robot:
        robot.open()
        prepare_for_jogging(robot)
        asked: list[str] = []
        stops: list[float] = []

        def ask(prompt: str) -> None:
            asked.append(prompt)
            if prompt == BUS_PROMPTS[1]:
                stops.append(hand_holds_the_smallest_disk(robot.sim_board))

        empty, held, threshold = measure_grip_threshold(robot, ask)
        assert robot.session.status().pulses_us[-1] == robot.config.gripper.open_us  # left open
        config = robot.config
    assert asked == list(BUS_PROMPTS)
    assert empty == 0, "closed to the pick's pulse on nothing: no load counts"
    # The pick's pulse is a whole µs and the servo stops on a whole step (0.49 µs): up to 1 µs of error's load.
    assert held == pytest.approx(expected_bus_reading(config, stops[0]), abs=65535 / FULL_EFFORT_US)
    assert threshold == pytest.approx(held / 2, abs=1)


def test_a_bus_gripper_stopped_short_with_nothing_between_its_fingers_is_refused() -> None:
    with Robot("sim://?servo=sts&seed=3") as robot:
        robot.open()
        prepare_for_jogging(robot)
        hand_holds_the_smallest_disk(robot.sim_board)  # a cable in the jaw, before the empty close
        with pytest.raises(RunFault, match=r"closed on nothing stopped at \d+ us, short of"):
            measure_grip_threshold(robot, lambda prompt: None)


def test_calibrate_grip_saves_a_bus_grippers_threshold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from hanoibot.cli import main
    from hanoibot.ops.person import Person
    from hanoibot.sim.board import SimBoard

    boards: list[Any] = []
    made = SimBoard.__init__

    def remember(self: Any, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        boards.append(self)

    stops: list[float] = []

    def confirm(self: Any, prompt: str) -> bool:
        if prompt == BUS_PROMPTS[1]:  # the person puts the smallest disk between the fingers, presses Enter
            stops.append(hand_holds_the_smallest_disk(boards[-1]))
        return True

    monkeypatch.setattr(SimBoard, "__init__", remember)
    monkeypatch.setattr(Person, "confirm", confirm)
    source = tmp_path / "robot.toml"
    shutil.copyfile(default_config_path(), source)
    target = tmp_path / "calibrated.toml"
    argv = [
        "calibrate",
        "--grip",
        "--port",
        "sim://?servo=sts&seed=3",
        "--config",
        str(source),
        "--output",
        str(target),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    saved = load_config(target).gripper.grip_threshold_u16
    assert saved == pytest.approx(expected_bus_reading(load_config(source), stops[0]) / 2, rel=0.03)
    assert f"grip_threshold_u16 = {saved}" in out and "# The grip sensor measures" in target.read_text()
