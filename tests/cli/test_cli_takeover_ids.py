"""``jog`` and ``calibrate`` (its pegs, its grip step) on a board a killed run left never reuse a command id that
run had planned.

A run journals the segments of the next moves before it sends them, so when it dies the journal names command
ids the board never saw. A command that then takes the board over must send MOVEs with higher ids only: if it
reused them, ``resume`` would read the board's "done up to N" as the run's own segments and carry on from a phase
the arm never reached. Judged from the simulated board's own record of the command ids it executed, and from
``resume`` refusing to guess where the moving disk is.

Everything runs in one process on one ``sim://`` board: the run is "killed" by an exception out of its move
listener (nothing more is sent, as after SIGKILL), and the commands are the real CLI entry points, handed the same
board in place of a new process's connection.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hanoibot.cli import main
from hanoibot.cli_support import grip_calibration
from hanoibot.config import default_config_path, load_config
from hanoibot.errors import RunFault
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move, State
from hanoibot.run.journal import Journal, load_journal
from hanoibot.run.recovery import check_journal, resume_same_boot
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run

#: The run dies when its second move is done: the journal then names segments of the moves after it.
KILLED_AFTER_MOVE = 1
#: Bound on the simulated time the board takes to run out the queue the killed run left, in seconds.
DRAIN_S = 30.0


class Killed(Exception):
    """Stands for SIGKILL: the run sends nothing more."""


def killed_run(tmp_path: Path) -> tuple[Robot, Path]:
    """A robot whose 3-disk run (journaled at the returned path) died after move 1; the board has since run out
    the motion it had queued and stands idle, mid-puzzle."""
    plan = make_plan(3, pegs=3, start=State.tower(3), goal=State.tower(3, peg=2))
    robot = Robot("sim://?board=AAA&seed=5", load_config())
    robot.open()
    path = tmp_path / "run.journal"

    def die(k: int, move: Move, state: State) -> None:
        if k == KILLED_AFTER_MOVE:
            raise Killed

    with Journal.create(path) as journal, pytest.raises(Killed):
        Run(robot, plan, journal=journal, on_move_done=die).start()
    clock = robot.session.clock
    deadline_s = clock.now_s() + DRAIN_S
    while robot.session.status().mode == "MOVING" and clock.now_s() < deadline_s:
        robot.sim_board.run_until(clock.now_s() + 0.1)  # tick by tick: the world follows the arm all the way
    status = robot.session.status()
    assert (status.mode, status.faults) == ("IDLE", ())
    assert load_journal(path).last_cmd_id > int(status.last_queued_cmd)  # the journal is ahead of the board
    return robot, path


@contextlib.contextmanager
def same_board(robot: Robot, args: Any) -> Iterator[Robot]:
    """What ``robot_for`` gives a command: here the board the killed run left (its link open again)."""
    robot.open()
    yield robot


def ids_run_since(robot: Robot, before: int) -> list[int]:
    """Command ids the simulated board executed after its first ``before`` ones."""
    return robot.sim_board.executed_cmd_ids()[before:]


def assert_resume_refuses(robot: Robot, path: Path) -> None:
    """``resume`` on the same boot sees that the arm moved since the run died and asks where the disks are."""
    robot.open()
    log = load_journal(path)
    plan = check_journal(log, robot.config.config_hash, str(path))
    with Journal.open_append(path) as journal, pytest.raises(RunFault, match=r"the arm moved after the run stopped"):
        resume_same_boot(log, plan, robot, journal)


def test_jog_after_a_killed_run_uses_only_ids_the_run_never_planned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    robot, path = killed_run(tmp_path)
    before = len(robot.sim_board.executed_cmd_ids())
    monkeypatch.setattr("hanoibot.commands.jog.robot_for", lambda args: same_board(robot, args))
    monkeypatch.setattr("sys.stdin", io.StringIO("2++q"))
    assert main(["jog"]) == 0, capsys.readouterr().err
    jogged = ids_run_since(robot, before)
    assert len(jogged) == 2
    assert min(jogged) > load_journal(path).last_cmd_id
    assert_resume_refuses(robot, path)
    assert [e for e in robot.sim_board.world.events if e["event"] in ("fault", "drop")] == []
    robot.close()


def test_calibrate_after_a_killed_run_uses_only_ids_the_run_never_planned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    robot, path = killed_run(tmp_path)
    before = len(robot.sim_board.executed_cmd_ids())
    config = tmp_path / "robot.toml"
    shutil.copyfile(default_config_path(), config)
    monkeypatch.setattr("hanoibot.commands.calibrate.robot_for", lambda args: same_board(robot, args))
    # The arm is taken to each peg's foot in turn (several moves each): every peg saved where it stands.
    monkeypatch.setattr("sys.stdin", io.StringIO("sss\nskip\n"))
    output = tmp_path / "calibrated.toml"
    args = ["calibrate", "--config", str(config), "--output", str(output)]
    assert main(args) == 0, capsys.readouterr().err
    calibrated = ids_run_since(robot, before)
    assert len(calibrated) >= 3 and output.exists()
    assert min(calibrated) > load_journal(path).last_cmd_id
    assert_resume_refuses(robot, path)
    assert [e for e in robot.sim_board.world.events if e["event"] in ("fault", "drop")] == []
    robot.close()


def test_calibrates_grip_step_after_a_killed_run_uses_only_ids_the_run_never_planned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    robot, path = killed_run(tmp_path)
    config = tmp_path / "robot.toml"
    shutil.copyfile(default_config_path(), config)
    monkeypatch.setattr("hanoibot.commands.calibrate.robot_for", lambda args: same_board(robot, args))
    # Every peg saved where it stands (the last key's line ends there), then Enter at the grip step's three
    # questions: the gripper closes empty and again (nobody holds a disk in a simulated one), the readings are
    # refused, and the input ends.
    monkeypatch.setattr("sys.stdin", io.StringIO("sss\n\n\n\n"))
    before: list[int] = []
    measure = grip_calibration.ask_grip_threshold

    def grip_step(*args: Any, **kwargs: Any) -> Any:
        before.append(len(robot.sim_board.executed_cmd_ids()))  # the ids the board ran before the grip step
        return measure(*args, **kwargs)

    monkeypatch.setattr(grip_calibration, "ask_grip_threshold", grip_step)
    output = tmp_path / "calibrated.toml"
    assert main(["calibrate", "--config", str(config), "--output", str(output)]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "grip sensor: not saved: grip current on a disk" in out
    gripped = ids_run_since(robot, before[0])
    assert len(gripped) >= 4, "open, close and hold, the samples, open: each its own command id"
    assert min(gripped) > load_journal(path).last_cmd_id
    assert gripped == sorted(set(gripped))
    assert [e for e in robot.sim_board.world.events if e["event"] in ("fault", "drop")] == []
    robot.close()
