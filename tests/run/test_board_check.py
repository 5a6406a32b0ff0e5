"""The robot config against the board that answered: pulse range and grip sensor from HELLO, the rail on sim://."""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.config import default_config_path, load_config
from hanoibot.errors import BoardError, ConfigError
from hanoibot.link.status import Hello
from hanoibot.run.board_check import check_config_fits_board
from hanoibot.run.robot import Robot
from hanoifw import protocol

CONFIG = load_config()


def hello(min_us: int = 500, max_us: int = 2500, grip_sensor: int = 1) -> Hello:
    return Hello(
        protocol.PROTOCOL_VERSION, "0.1.0", "cafe", "power", 8, 5, min_us, max_us, 60000, 300, 256, 0, 0,
        "UNCONFIGURED", grip_sensor, 1,
    )  # fmt: skip


def test_a_config_within_the_board_range_with_a_sensor_fits() -> None:
    check_config_fits_board(CONFIG, hello(), "/dev/ttyACM0")


@pytest.mark.parametrize(
    ("board", "message"),
    [
        (hello(min_us=700), r"^\[servos.base\] min_us = 600: the board on /dev/ttyACM0 accepts 700..2500 µs$"),
        (hello(max_us=2300), r"^\[servos.base\] max_us = 2400: the board on /dev/ttyACM0 accepts 500..2300 µs$"),
        (hello(grip_sensor=0), r"^\[gripper\] grip_sensor = true: the board on /dev/ttyACM0 has no grip sensor"),
    ],
)
def test_a_config_the_board_cannot_serve_is_refused_naming_the_key(board: Hello, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as err:
        check_config_fits_board(CONFIG, board, "/dev/ttyACM0")
    assert "\n" not in str(err.value)


def test_connecting_with_a_grip_sensor_to_a_board_without_one_is_refused_before_anything_moves(tmp_path: Path) -> None:
    """The simulated board is built from a config without the sensor (its HELLO says grip_sensor 0); the host's
    config asks for one. Robot.open is where every command connects, so the check must happen there."""
    text = default_config_path().read_text()
    assert "grip_sensor = true\ngrip_threshold_u16 = 32768\n" in text
    board_config = tmp_path / "no_sensor.toml"
    board_config.write_text(text.replace("grip_sensor = true\ngrip_threshold_u16 = 32768\n", "grip_sensor = false\n"))
    robot = Robot(f"sim://?config={board_config}", CONFIG)
    with pytest.raises(
        ConfigError, match=r"^\[gripper\] grip_sensor = true: the board on sim://\S+ has no grip sensor"
    ):
        robot.open()
    assert not robot.is_open
    with Robot(f"sim://?config={board_config}", load_config(board_config)) as fitting:
        fitting.open()
        assert fitting.session.hello is not None and fitting.session.hello.grip_sensor == 0


def test_a_dead_servo_rail_stops_the_move_and_home_clear_brings_the_arm_back() -> None:
    with Robot("sim://?seed=5") as robot:
        robot.open()
        robot.session.configure(*robot.limits())
        world = robot.sim_board.world
        home = robot.home_segment()
        robot.session.send_move(1, home.pulses_us, home.duration_ms)
        robot.session.wait_done(1)
        target = list(home.pulses_us)
        target[4] = robot.config.gripper.closed_us
        robot.session.send_move(2, target, 2000)
        world.cut_servo_power()
        with pytest.raises(BoardError, match="POWER_LOST"):
            robot.session.wait_done(2, timeout_s=5)
        status = robot.session.status()
        assert status.rail == "off" and status.pulses_us == (0,) * 5  # every output off: nothing slams back
        assert robot.sim_board.servos.pulses_us() == [None] * 5
        world.cut_servo_power(False)
        board = robot.sim_board
        board.run_until(board.clock.now_s() + 0.05)  # the switch's contacts bounce a few ms, then the rail is on
        robot.session.clear()
        assert robot.session.status().mode == "UNCONFIGURED"
        robot.session.configure(*robot.limits())
        assert robot.session.status().rail == "on"
