"""Tests for recovery: where a journaled run goes on after the host stopped (same boot or a reset board)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hanoibot.clock import VirtualClock
from hanoibot.config import load_config
from hanoibot.errors import JournalError, RunFault
from hanoibot.link.session import Session
from hanoibot.link.status import Status
from hanoibot.motion.segments import segments_for_move
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move, Rules, State
from hanoibot.run.grip_check import EMPTY_READS, READ_GAP_S
from hanoibot.run.journal import Journal, load_journal
from hanoibot.run.recovery import check_journal, resume_after_reset, resume_same_boot
from hanoibot.run.robot import Robot
from hanoibot.run.runner import plan_spec

#: Phases of one move's segments as segments_for_move lays them out: the grip, travel and release phases end with
#: a settle hold (a second segment to the same pose), as test_the_fake_journal_ends_its_grip_with_a_hold checks.
PHASES = [
    "approach", "descend", "descend", "grip", "grip", "lift", "lift", "travel", "travel",
    "lower", "lower", "release", "release", "retreat", "retreat",
]  # fmt: skip
#: Command ids per move in the fake journal: move k has ids IDS * k + 1 .. IDS * k + IDS.
IDS = len(PHASES)


class FakeBoard:
    """Answers STATUS like a board that kept its boot; records ESTOP/CLEAR/RESUME."""

    def __init__(self, statuses: list[dict[str, Any]]) -> None:
        self.statuses = statuses
        self.calls: list[str] = []
        self.asked = 0
        self.clock = VirtualClock()

    def status(self) -> Status:
        self.asked += 1
        values = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        base = {"boot_id": "b", "mode": "FAULT", "free_slots": 8, "faults": ("HOST_LOST",), "grip": "held"}
        fields = {"grip_raw": 40000} | base | values
        off = fields["mode"] == "UNCONFIGURED"  # a reset board on GPIO PWM: every output off
        return Status(**fields, rail="on", pulses_us=(0 if off else 1500,) * 5)

    def estop(self) -> None:
        self.calls.append("estop")

    def clear(self) -> None:
        self.calls.append("clear")

    def resume(self) -> None:
        self.calls.append("resume")


def journal_with(tmp_path: Path, moves_done: int, open_moves: int) -> tuple[Path, Any]:
    """A journal of a 3-disk run: ``moves_done`` moves confirmed, ``open_moves`` more sent (IDS ids each)."""
    plan = make_plan(3)
    path = tmp_path / "j"
    with Journal.create(path) as journal:
        journal.record_plan(plan_spec(plan), config_hash="h", boot_id="b")
        for k in range(moves_done + open_moves):
            journal.record_send(k, plan.move_at(k), IDS * k + 1, IDS * k + IDS, PHASES)
            if k < moves_done:
                journal.record_done(k)
    return path, plan


def robot_with(board: FakeBoard, grip_sensor: bool = True) -> Any:
    """A Robot double (autospec of Robot and Session) whose session answers from ``board``."""
    session = mock.create_autospec(Session, instance=True)
    session.clock = board.clock
    session.status.side_effect = board.status
    session.estop.side_effect = board.estop
    session.clear.side_effect = board.clear
    session.resume.side_effect = board.resume
    config = load_config()
    session.last_sent_cmd = 0
    robot = mock.create_autospec(Robot, instance=True)
    robot.session = session
    robot.config = replace(config, gripper=replace(config.gripper, grip_sensor=grip_sensor))
    robot.limits.side_effect = lambda: Robot.limits(robot)
    return robot


@pytest.mark.parametrize(
    ("last_done", "phase"),
    [
        (30, "approach"),
        (31, "descend"),
        (32, "descend"),
        (33, "grip"),
        (34, "grip"),
        (35, "lift"),
        (41, "release"),
        (42, "release"),
        (44, "retreat"),
    ],
)
def test_a_half_done_move_resumes_at_the_phase_after_the_last_finished_id(
    tmp_path: Path, last_done: int, phase: str
) -> None:
    path, plan = journal_with(tmp_path, 2, 1)
    session = FakeBoard([{"last_done_cmd": last_done, "last_queued_cmd": 45}])
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
    assert (point.first_k, point.first_phase, point.same_boot) == (2, phase, True)
    assert point.board_state == plan.state_at(2)
    assert point.first_cmd_id == 46, "fresh ids after everything the board ever accepted"
    assert session.calls == ["clear", "resume"]


def test_moves_the_board_finished_after_the_host_died_are_recorded_done(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 1, 2)
    session = FakeBoard([{"last_done_cmd": 45, "last_queued_cmd": 45, "mode": "IDLE", "faults": ()}])
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
    assert (point.first_k, point.first_phase) == (3, "approach")
    assert load_journal(path).moves_done == 3
    assert session.calls == ["resume"], "nothing latched: nothing to clear"


def test_motion_still_queued_on_the_board_is_flushed_first(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 0, 1)
    moving = {"last_done_cmd": 3, "last_queued_cmd": 8, "mode": "MOVING", "faults": ()}
    stopped = {"last_done_cmd": 5, "last_queued_cmd": 8, "mode": "ESTOP", "faults": ("ESTOP",)}
    session = FakeBoard([moving, stopped])
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
    assert session.calls == ["estop", "clear", "resume"]
    assert point.first_phase == "lift", "the status after the e-stop says what finished (up to the grip's hold)"


def test_a_latched_estop_is_released_only_when_told_and_nothing_is_sent_before(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 1, 1)
    estopped = {"last_done_cmd": 20, "last_queued_cmd": 24, "mode": "ESTOP", "faults": ("ESTOP",)}
    session = FakeBoard([estopped])
    with Journal.open_append(path) as journal:
        with pytest.raises(RunFault, match=r"ESTOP: nothing moved.* hanoibot resume --journal \S+ --clear"):
            resume_same_boot(load_journal(path), plan, robot_with(session), journal)
        assert session.calls == [], "refused before anything was sent"
        point = resume_same_boot(load_journal(path), plan, robot_with(session), journal, clear=True)
    assert session.calls == ["clear", "resume"]
    assert (point.first_k, point.first_phase) == (1, "lift"), "ids 16-30 are move 1: 20 ends its grip"


def test_a_dropped_disk_is_never_resumed_blindly(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 0, 1)
    session = FakeBoard([{"last_done_cmd": 5, "last_queued_cmd": 10, "faults": ("DROP",)}])
    with Journal.open_append(path) as journal, pytest.raises(RunFault, match=r"DROP.*--board"):
        resume_same_boot(load_journal(path), plan, robot_with(session), journal)


@pytest.mark.parametrize(("last_done", "phase"), [(5, "approach"), (7, "approach"), (9, None), (10, None)])
def test_an_empty_gripper_while_carrying(tmp_path: Path, last_done: int, phase: str | None) -> None:
    # 5 and 7: stopped in the lift or the travel (the disk is still on its peg); 9 and 10: in the lower.
    path, plan = journal_with(tmp_path, 0, 1)
    session = FakeBoard([{"last_done_cmd": last_done, "last_queued_cmd": 15, "grip": "empty"}])
    with Journal.open_append(path) as journal:
        if phase is None:
            with pytest.raises(RunFault, match="disk 1 is no longer in the gripper"):
                resume_same_boot(load_journal(path), plan, robot_with(session), journal)
        else:
            point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
            assert point.first_phase == phase, "a pick that missed is made again from the start"


def test_one_empty_reading_then_held_resumes_the_lift_with_the_disk(tmp_path: Path) -> None:
    # Issue 33: after the resume's ESTOP the board said "empty" once (one frame's mean) while the gripper was still
    # stalled on the disk; the resumed LIFT became an APPROACH, its first MOVE opened the fingers and the disk fell.
    # Id 5 is the grip's settle hold: the gripper has settled, and the next read, a PWM frame later, says "held".
    path, plan = journal_with(tmp_path, 0, 1)
    after_hold = {"last_done_cmd": 5, "last_queued_cmd": 15}
    session = FakeBoard([{**after_hold, "grip": "empty", "grip_raw": 25878}, {**after_hold, "grip": "held"}])
    robot = robot_with(session)
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot, journal)
    assert (point.first_k, point.first_phase) == (0, "lift"), "the disk is held: the lift goes on"
    assert session.asked == 2 and session.clock.now_s() >= READ_GAP_S, "asked again a PWM frame later"
    robot.session.poll.assert_called()  # the link was served while waiting


def test_a_missed_pick_is_believed_only_when_every_read_a_frame_apart_says_empty(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 0, 1)
    session = FakeBoard([{"last_done_cmd": 5, "last_queued_cmd": 15, "grip": "empty", "grip_raw": 900}])
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
    assert point.first_phase == "approach", "the pick missed: it is made again"
    assert session.asked == EMPTY_READS and session.clock.now_s() >= (EMPTY_READS - 1) * READ_GAP_S


def test_a_run_stopped_during_the_settle_hold_resumes_at_the_grip(tmp_path: Path) -> None:
    # Id 4 closed the fingers, the hold (5) did not finish: the servo may still be closing, so no verdict is drawn
    # from the sensor; the grip is sent again and the sequencer reads the sensor after its hold.
    path, plan = journal_with(tmp_path, 0, 1)
    session = FakeBoard([{"last_done_cmd": 4, "last_queued_cmd": 15, "grip": "empty"}])
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
    assert (point.first_k, point.first_phase) == (0, "grip")


@pytest.mark.parametrize(("grip", "grip_sensor"), [("unknown", True), ("none", True), ("empty", False)])
def test_no_sensor_reading_means_no_verdict(tmp_path: Path, grip: str, grip_sensor: bool) -> None:
    # unknown: the sensor read failed or has no threshold; none: the board has no sensor; or the config has none.
    path, plan = journal_with(tmp_path, 0, 1)
    session = FakeBoard([{"last_done_cmd": 9, "last_queued_cmd": 15, "grip": grip}])
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot_with(session, grip_sensor), journal)
    assert point.first_phase == "lower"


def test_the_fake_journal_ends_its_grip_with_a_hold() -> None:
    # The fake PHASES must lay a move out as the real segments do: the grip phase ends with a hold of its pose.
    plan = make_plan(3)
    segments = segments_for_move(load_config(), plan.start, plan.move_at(0))
    grips = [seg for seg in segments if seg.phase == "grip"]
    assert len(grips) >= 2 and grips[-1].pulses_us == grips[-2].pulses_us
    assert PHASES.count("grip") == len(grips) and PHASES[PHASES.index("grip") + len(grips)] == "lift"


def test_after_a_reset_the_rest_is_replanned_from_the_confirmed_board(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 2, 1)
    reset = {"last_done_cmd": 0, "last_queued_cmd": 0, "mode": "UNCONFIGURED", "faults": ()}
    probed = {"last_done_cmd": 46, "last_queued_cmd": 46, "mode": "IDLE", "faults": ()}
    # the reset gripper is limp: no current, no verdict; driven closed, it closes on nothing
    session = FakeBoard([reset | {"grip": "unknown", "grip_raw": -1}, probed | {"grip": "empty", "grip_raw": 900}])
    robot = robot_with(session)
    confirmed = State.parse("CBA")
    point = resume_after_reset(load_journal(path), plan, robot, confirmed)
    starts = robot.session.configure.call_args.args[2]
    assert starts[-1] == robot.config.gripper.closed_us and starts[:-1] == robot.config.start_pulses_us()[:-1]
    assert robot.session.send_move.call_args.args[0] == 46, "the probe's hold follows the journal's ids"
    assert (point.first_k, point.board_state, point.same_boot) == (0, confirmed, False)
    assert point.plan.start == confirmed and point.plan.goal == plan.goal and point.plan.rules == Rules(3)
    assert point.first_cmd_id == 47
    with pytest.raises(JournalError, match="4 disks"):
        resume_after_reset(load_journal(path), plan, robot_with(session), State.parse("CBAA"))


def test_a_board_that_lost_its_servo_rail_is_released_only_with_clear(tmp_path: Path) -> None:
    # The operator says where the disks are (a held disk fell when the outputs went off); the latch is theirs to
    # release: without --clear nothing is sent and the message names the command that goes on.
    path, plan = journal_with(tmp_path, 2, 1)
    lost = {"last_done_cmd": 40, "last_queued_cmd": 46, "mode": "FAULT", "faults": ("POWER_LOST",), "grip": "none"}
    session = FakeBoard([lost])
    with pytest.raises(RunFault, match=rf"hanoibot resume --journal {path} --board STATE --clear"):
        resume_after_reset(load_journal(path), plan, robot_with(session), State.parse("CBA"), journal=str(path))
    assert session.calls == []
    cleared = {"last_done_cmd": 40, "last_queued_cmd": 46, "mode": "UNCONFIGURED", "faults": (), "grip": "none"}
    session = FakeBoard([lost, lost, cleared])
    point = resume_after_reset(load_journal(path), plan, robot_with(session), State.parse("CBA"), clear=True)
    assert "clear" in session.calls and point.plan.start == State.parse("CBA")


def test_check_journal_names_a_different_robot_config(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 0, 0)
    log = load_journal(path)
    assert list(check_journal(log, "h", str(path))) == list(plan)
    with pytest.raises(JournalError, match="robot config"):
        check_journal(log, "other", str(path))


def test_every_move_of_the_fake_journal_is_the_plan(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 3, 0)
    assert [entry.move for entry in load_journal(path).moves.values()] == [plan.move_at(k) for k in range(3)]
    assert plan.move_at(0) == Move(1, 0, 2)
