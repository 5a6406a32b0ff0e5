"""Tests for the Robot facade on the simulated board."""

from __future__ import annotations

import math
from unittest import mock

import pytest
from hanoibot.clock import VirtualClock
from hanoibot.config import load_config
from hanoibot.errors import ConfigError
from hanoibot.link.session import Session
from hanoibot.link.status import Grip, Mode, Rail, Status
from hanoibot.motion.margins import on_peg_speed_ratio
from hanoibot.motion.phases import MotionPhase
from hanoibot.motion.timing import channel_times_s
from hanoibot.puzzle import Move, State
from hanoibot.run.robot import Robot

MIN_JERK_PEAK_RATIO = 15 / 8  # peak over average speed of the firmware's profile 10u^3 - 15u^4 + 6u^5


def test_a_simulated_robot_exposes_its_board_and_clock() -> None:
    with Robot("sim://?seed=3") as robot:
        robot.open()
        assert robot.is_simulated and robot.sim_board is not None
        assert robot.board_clock is not None and robot.boot_id == robot.sim_board.boot_id
        min_us, max_us, start_us, speeds_us_s, threshold = robot.limits()
        assert (min_us, max_us, start_us) == (
            robot.config.min_pulses_us(),
            robot.config.max_pulses_us(),
            robot.config.start_pulses_us(),
        )
        assert all(speed >= rate for speed, rate in zip(speeds_us_s, robot.config.max_speeds_us_s(), strict=True))
        assert threshold == robot.config.gripper.grip_threshold_u16 > 0


def test_home_segment_is_timed_from_where_the_arm_is() -> None:
    config = load_config()
    with Robot("sim://", config) as robot:
        robot.open()
        robot.session.configure(*robot.limits())
        at_rest = robot.home_segment()
        assert at_rest.pulses_us == config.start_pulses_us()
        far = list(config.start_pulses_us())
        far[0] += 400
        robot.session.send_move(1, far, robot.duration_between_ms(config.start_pulses_us(), tuple(far)))
        robot.session.wait_done(1)
        coming_back = robot.home_segment()
        assert coming_back.duration_ms > at_rest.duration_ms
        assert coming_back.duration_ms >= robot.duration_between_ms(tuple(far), config.start_pulses_us())


def test_home_keeps_the_fingers_shut_when_one_of_several_grip_reads_says_held() -> None:
    # An "empty" read once would send the fingers to the start pose's opening with the disk between them: the grip
    # is read as run/grip_check.py reads it (held wins), so the fingers stay shut on the disk.
    config = load_config()
    shut = (*config.start_pulses_us()[:-1], config.gripper.closed_us)
    answers = [status_at(shut, "empty"), status_at(shut, "held")]
    robot = Robot("sim://", config)
    robot.session = mock.create_autospec(Session, instance=True)
    robot.session.clock = VirtualClock()
    robot.session.status.side_effect = lambda: answers.pop(0) if len(answers) > 1 else answers[0]
    assert robot.home_segment().pulses_us[-1] == config.gripper.closed_us
    answers[:] = [status_at(shut, "empty")]
    assert robot.home_segment().pulses_us == config.start_pulses_us(), "every read empty: nothing is held"


def status_at(pulses_us: tuple[int, ...], grip: str) -> Status:
    """A STATUS of an idle board giving ``pulses_us`` whose grip sensor says ``grip``."""
    return Status("b", Mode.IDLE, 1, 1, 8, (), Grip(grip), 40000, Rail.ON, pulses_us)


def test_segments_start_from_the_given_pose() -> None:
    config = load_config()
    robot = Robot("sim://", config)
    from_start = robot.segments_for(State.tower(3), Move(1, 0, 2))
    raised = list(config.start_pulses_us())
    raised[1] += 200
    from_elsewhere = robot.segments_for(State.tower(3), Move(1, 0, 2), tuple(raised))
    assert from_start[-1].pulses_us == from_elsewhere[-1].pulses_us
    assert from_start[0].duration_ms != from_elsewhere[0].duration_ms or from_start[0] != from_elsewhere[0]


def test_a_board_with_another_channel_count_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    robot = Robot("sim://")
    original_open = robot.session.open

    def open_with_four_channels() -> None:
        original_open()
        hello = robot.session.heard.hello
        assert hello is not None
        robot.session.heard.hello = hello._replace(channels=4)  # as a 4-channel firmware build says

    monkeypatch.setattr(robot.session, "open", open_with_four_channels)
    with pytest.raises(ConfigError, match="drives 4 servo channels but the robot config needs 5"):
        robot.open()
    assert not robot.is_open


@pytest.mark.parametrize("phase", list(MotionPhase))
def test_a_move_resumed_with_a_held_disk_on_its_peg_keeps_to_the_on_peg_share_of_the_speeds(phase: MotionPhase) -> None:
    # A resumed move's first segment runs from wherever the arm stopped, timed from the servo speeds: while the held
    # disk slides along its peg (lift, lower) at the on-peg share of them, as the planned segments do there.
    config = load_config()
    robot = Robot("sim://", config)
    start = config.start_pulses_us()
    lower = (start[0], start[1] - 120, start[2] + 90, start[3] + 60, start[4])
    peak_s = max(channel_times_s(config, start, lower)) * MIN_JERK_PEAK_RATIO
    ratio = on_peg_speed_ratio(config) if phase in (MotionPhase.LIFT, MotionPhase.LOWER) else 1.0
    assert ratio < 1 or phase not in (MotionPhase.LIFT, MotionPhase.LOWER)
    expected_ms = math.ceil(peak_s / ratio * 1000 - 1e-9) + config.motion.settle_ms
    assert robot.duration_between_ms(start, lower, phase) == expected_ms
