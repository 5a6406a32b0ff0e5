"""Taking over a board (run/release.py): the grip verdicts the takeover acts on are read as run/grip_check.py
reads them, so one frame that reads a held disk as "empty" never lets it go."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from unittest import mock

import pytest
from hanoibot.clock import VirtualClock
from hanoibot.config import load_config
from hanoibot.errors import RunFault
from hanoibot.link.session import Session
from hanoibot.link.status import Grip, Mode, Rail, Status
from hanoibot.run.grip_check import EMPTY_READS, READ_GAP_S
from hanoibot.run.release import grip_status, grip_verdict, refuse_held_disk, settled_status
from hanoibot.run.robot import Robot


def status(grip: str, *, mode: str = "IDLE", gripper_us: int = 1300) -> Status:
    """A STATUS of a board whose arm stands at the config's start pose with the gripper at ``gripper_us``."""
    pose = (*load_config().start_pulses_us()[:-1], gripper_us)
    raw = {"held": 48000, "empty": 25878}.get(grip, -1)
    return Status("b", Mode(mode), 3, 3, 8, (), Grip(grip), raw, Rail.ON, pose)


def robot_answering(*answers: Status, grip_sensor: bool = True) -> Any:
    """A Robot double (autospec of Robot and Session) whose board answers STATUS from ``answers`` (the last one
    repeats) on a virtual clock."""
    queue = list(answers)
    session = mock.create_autospec(Session, instance=True)
    session.clock = VirtualClock()
    session.last_sent_cmd = 3
    session.status.side_effect = lambda: queue.pop(0) if len(queue) > 1 else queue[0]
    config = load_config()
    robot = mock.create_autospec(Robot, instance=True)
    robot.session = session
    robot.config = replace(config, gripper=replace(config.gripper, grip_sensor=grip_sensor))
    robot.limits.side_effect = lambda: Robot.limits(robot)
    robot.duration_between_ms.return_value = 100
    return robot


def test_a_run_does_not_start_over_a_held_disk_that_one_frame_read_as_empty() -> None:
    robot = robot_answering(status("empty"), status("held"))
    with pytest.raises(RunFault, match="holds a disk"):
        refuse_held_disk(robot)
    robot = robot_answering(status("empty"))
    refuse_held_disk(robot)
    assert robot.session.status.call_count == EMPTY_READS, "empty is believed once every read says so"
    assert robot.session.clock.now_s() >= (EMPTY_READS - 1) * READ_GAP_S


def test_without_a_sensor_in_the_config_the_board_is_asked_once() -> None:
    robot = robot_answering(status("empty"), grip_sensor=False)
    assert grip_status(robot).grip is Grip.EMPTY and robot.session.status.call_count == 1


def test_the_settled_verdict_after_the_hold_is_read_several_times() -> None:
    robot = robot_answering(status("empty"), status("empty"), status("held"))
    got = settled_status(robot, first_cmd_id=10)
    assert got.grip is Grip.HELD
    robot.session.send_move.assert_called_once()  # the hold that lets closing fingers settle
    assert robot.session.send_move.call_args.args[0] == 10


def test_a_reset_gripper_driven_closed_is_read_several_times() -> None:
    # The reset board's gripper is limp (no current, no verdict); driven closed on a disk, one frame may read
    # "empty": the next read, a frame later, says "held", and the disk is reported, not forgotten.
    limp = status("unknown", mode="UNCONFIGURED", gripper_us=0)
    robot = robot_answering(limp, status("empty"), status("held"))
    got = grip_verdict(robot, first_cmd_id=7)
    assert got.grip is Grip.HELD
    assert robot.session.configure.call_args.args[2][-1] == robot.config.gripper.closed_us, "driven closed"
