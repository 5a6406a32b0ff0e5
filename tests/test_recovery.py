"""Tests for recovery: where a journaled run goes on after the host stopped (same boot or a reset board)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hanoibot.clock import VirtualClock
from hanoibot.errors import JournalError, RunFault
from hanoibot.journal import Journal, load_journal
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move, Rules, State
from hanoibot.recovery import check_journal, resume_after_reset, resume_same_boot
from hanoibot.runner import plan_spec

PHASES = ["approach", "descend", "descend", "grip", "lift", "travel", "lower", "release", "retreat", "retreat"]


class FakeSession:
    """Answers STATUS like a board that kept its boot; records ESTOP/CLEAR/RESUME."""

    def __init__(self, statuses: list[dict[str, Any]]) -> None:
        self.statuses = statuses
        self.calls: list[str] = []
        self.clock = VirtualClock()

    def status(self) -> SimpleNamespace:
        values = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        base = {"mode": "FAULT", "faults": ("HOST_LOST",), "grip_mm": 12, "pulses_us": (1500,) * 5}
        return SimpleNamespace(**(base | values))

    def estop(self) -> None:
        self.calls.append("estop")

    def clear(self) -> None:
        self.calls.append("clear")

    def resume(self) -> None:
        self.calls.append("resume")


def journal_with(tmp_path: Path, moves_done: int, open_moves: int) -> tuple[Path, Any]:
    """A journal of a 3-disk run: ``moves_done`` moves confirmed, ``open_moves`` more sent (10 ids each)."""
    plan = make_plan(3)
    path = tmp_path / "j"
    with Journal.create(path) as journal:
        journal.record_plan(plan_spec(plan), config_hash="h", boot_id="b")
        for k in range(moves_done + open_moves):
            journal.record_send(k, plan.move_at(k), 10 * k + 1, 10 * k + 10, PHASES)
            if k < moves_done:
                journal.record_done(k)
    return path, plan


def robot_with(session: FakeSession, grip_sensor: bool = True) -> Any:
    gripper, motion = SimpleNamespace(grip_sensor=grip_sensor), SimpleNamespace(settle_ms=40)
    return SimpleNamespace(session=session, config=SimpleNamespace(gripper=gripper, motion=motion))


@pytest.mark.parametrize(
    ("last_done", "phase"),
    [(20, "approach"), (21, "descend"), (22, "descend"), (23, "grip"), (24, "lift"), (27, "release"), (28, "retreat")],
)
def test_a_half_done_move_resumes_at_the_phase_after_the_last_finished_id(
    tmp_path: Path, last_done: int, phase: str
) -> None:
    path, plan = journal_with(tmp_path, 2, 1)
    session = FakeSession([{"last_done_cmd": last_done, "last_queued_cmd": 30}])
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
    assert (point.first_k, point.first_phase, point.same_boot) == (2, phase, True)
    assert point.board_state == plan.state_at(2)
    assert point.first_cmd_id == 31, "fresh ids after everything the board ever accepted"
    assert session.calls == ["clear", "resume"]


def test_moves_the_board_finished_after_the_host_died_are_recorded_done(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 1, 2)
    session = FakeSession([{"last_done_cmd": 30, "last_queued_cmd": 30, "mode": "IDLE", "faults": ()}])
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
    assert (point.first_k, point.first_phase) == (3, "approach")
    assert load_journal(path).moves_done == 3
    assert session.calls == ["resume"], "nothing latched: nothing to clear"


def test_motion_still_queued_on_the_board_is_flushed_first(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 0, 1)
    moving = {"last_done_cmd": 3, "last_queued_cmd": 8, "mode": "MOVING", "faults": ()}
    stopped = {"last_done_cmd": 4, "last_queued_cmd": 8, "mode": "ESTOP", "faults": ("ESTOP",)}
    session = FakeSession([moving, stopped])
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
    assert session.calls == ["estop", "clear", "resume"]
    assert point.first_phase == "lift", "the status after the e-stop says what finished (up to the grip)"


def test_a_dropped_disk_is_never_resumed_blindly(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 0, 1)
    session = FakeSession([{"last_done_cmd": 5, "last_queued_cmd": 10, "faults": ("DROP",)}])
    with Journal.open_append(path) as journal, pytest.raises(RunFault, match=r"DROP.*--board"):
        resume_same_boot(load_journal(path), plan, robot_with(session), journal)


@pytest.mark.parametrize(("last_done", "phase"), [(4, "approach"), (6, None)])
def test_an_empty_gripper_while_carrying(tmp_path: Path, last_done: int, phase: str | None) -> None:
    path, plan = journal_with(tmp_path, 0, 1)
    session = FakeSession([{"last_done_cmd": last_done, "last_queued_cmd": 10, "grip_mm": 0}])
    with Journal.open_append(path) as journal:
        if phase is None:
            with pytest.raises(RunFault, match="disk 1 is no longer in the gripper"):
                resume_same_boot(load_journal(path), plan, robot_with(session), journal)
        else:
            point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
            assert point.first_phase == phase, "a pick that missed is made again from the start"


def test_a_gripper_still_closing_is_asked_again_after_the_settle_time(tmp_path: Path) -> None:
    # The host died just as the grip finished: the servo trails its command, so the disk is gripped a moment later.
    path, plan = journal_with(tmp_path, 0, 1)
    closing = {"last_done_cmd": 4, "last_queued_cmd": 10, "grip_mm": 0}
    session = FakeSession([closing, closing, {**closing, "grip_mm": 12}])
    with Journal.open_append(path) as journal:
        point = resume_same_boot(load_journal(path), plan, robot_with(session), journal)
    assert point.first_phase == "lift", "the disk is held: the move goes on with the lift"
    assert session.clock.now_s() == pytest.approx(0.04)


def test_after_a_reset_the_rest_is_replanned_from_the_confirmed_board(tmp_path: Path) -> None:
    path, plan = journal_with(tmp_path, 2, 1)
    session = FakeSession([{"last_done_cmd": 0, "last_queued_cmd": 0, "mode": "UNCONFIGURED", "faults": ()}])
    confirmed = State.parse("CBA")
    point = resume_after_reset(load_journal(path), plan, robot_with(session), confirmed)
    assert (point.first_k, point.board_state, point.same_boot) == (0, confirmed, False)
    assert point.plan.start == confirmed and point.plan.goal == plan.goal and point.plan.rules == Rules(3)
    assert point.first_cmd_id == 31
    with pytest.raises(JournalError, match="4 disks"):
        resume_after_reset(load_journal(path), plan, robot_with(session), State.parse("CBAA"))


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
