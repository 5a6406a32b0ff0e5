"""The small operations on ``sim://``, judged by the simulated board: release, clear, e-stop, start's refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.config import load_config
from hanoibot.errors import RunFault
from hanoibot.ops import board as ops_board
from hanoibot.ops.home import home, release
from hanoibot.ops.journals import list_runs, runs_dir
from hanoibot.ops.start import RunRequest, open_run
from hanoibot.ops.stop import estop_port, estop_robot
from hanoibot.planner import make_plan
from hanoibot.puzzle import State
from hanoibot.run.robot import Robot
from hanoibot.run.sequencer import Phase


@pytest.fixture
def robot() -> Robot:
    """A homed arm on a simulated board with three disks on A."""
    robot = Robot("sim://?board=AAA", load_config())
    robot.open()
    assert home(robot, clear=False).is_home
    return robot


def start_long_move(robot: Robot) -> None:
    """Queue a 3 s move of every joint and come back at once (the board is MOVING)."""
    session = robot.session
    pulses = [p + 150 for p in robot.config.start_pulses_us()[:-1]] + [robot.config.start_pulses_us()[-1]]
    session.send_move(session.last_sent_cmd + 1, pulses, 3000)
    session.poll()
    assert session.status().mode == "MOVING"


def test_release_holds_a_moving_board_first_and_every_output_goes_off(robot: Robot) -> None:
    start_long_move(robot)
    said = release(robot)
    assert "held first" in said
    servos = robot.sim_board.servos
    assert servos.pulses_us() == [None] * servos.channels
    robot.close()


def test_clear_drops_queued_motion_before_releasing_the_latch(robot: Robot) -> None:
    start_long_move(robot)
    robot.sim_board.controller.estop()
    assert ops_board.clear(robot) == ("ESTOP",)
    status = robot.session.status()
    assert status.mode == "IDLE" and status.faults == ()
    done = robot.sim_board.executed_cmd_ids()
    robot.session.ping()  # time passes: nothing queued before the latch runs after the Clear
    robot.sim_board.run_until(robot.sim_board.clock.now_s() + 4.0)
    assert robot.sim_board.executed_cmd_ids() == done
    robot.close()


def test_estop_robot_claims_the_latch_only_when_the_board_confirms_it(robot: Robot) -> None:
    result = estop_robot(robot)
    assert result.latched and robot.session.status().mode == "ESTOP"
    robot.close()


def test_estop_with_no_simulated_arm_running_says_no_arm_and_sends_nothing() -> None:
    result = estop_port("sim://")
    assert not result.latched and result.no_arm and "no arm connected" in result.text


def test_estop_on_a_port_that_cannot_be_opened_says_no_arm_connected(tmp_path: Path) -> None:
    result = estop_port(str(tmp_path / "ttyNONE"))
    assert not result.latched and result.no_arm and "no arm connected" in result.text


def test_a_run_refused_by_the_board_makes_no_journal_and_no_run(robot: Robot) -> None:
    robot.sim_board.controller.estop()
    plan = make_plan(3, pegs=3, start=State.tower(3), goal=State.tower(3, peg=2))
    with pytest.raises(RunFault, match="latched ESTOP"):
        open_run(RunRequest(plan, robot.config), robot=robot)
    assert list_runs() == [] and not runs_dir().exists()
    robot.close()


def test_a_run_journals_by_default_into_the_state_folder(tmp_path: Path) -> None:
    plan = make_plan(2, pegs=3, start=State.tower(2), goal=State.tower(2, peg=2))
    started = open_run(RunRequest(plan, load_config()))
    try:
        assert started.job.start() is Phase.DONE
    finally:
        started.close()
    (entry,) = list_runs("sim://")
    assert entry.path.parent == runs_dir() and entry.ended == "done" and (entry.moves_done, entry.moves_total) == (3, 3)
    assert runs_dir().is_relative_to(tmp_path.parent)  # the test's own state folder, never the user's
