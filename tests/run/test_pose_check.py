"""The host's check that the arm got there (hanoibot.run.pose_check): after each pick and each place, each joint's
measured angle (STATUS ``measured_us``, bus servos) against the pose it was sent to.

Oracles: the degrees are the robot config's own calibrations worked by hand (the default robot's base is linear at
11.1 µs a degree); the simulated world's log of picks and places is the judge of what the arm really did; a
joint is held back by the world's obstacle (``world.block_joint``), which the host cannot see except through the
servos' answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hanoibot.config import load_config
from hanoibot.errors import RunFault
from hanoibot.link.status import Grip, Mode, Rail, Status
from hanoibot.motion.phases import MotionPhase
from hanoibot.ops.home import home
from hanoibot.planner import make_plan
from hanoibot.run.journal import Journal, load_journal
from hanoibot.run.pose_check import PoseCheck
from hanoibot.run.recovery import check_journal, recorded_board, resume_after_reset, resume_same_boot
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from world_events import moves_made

#: The obstacle holds the joint this far (µs of pulse: 7.2 deg of the default robot's shoulder) from its pick pose.
PUSH_US = 80.0


def check_of(tolerance_deg: float = 3.0) -> PoseCheck:
    """Three joints at 10 µs a degree (the last one the gripper, skipped)."""
    return PoseCheck(
        ("base", "shoulder", "gripper"), [lambda us: us / 10.0] * 3, tolerance_deg=tolerance_deg, skip=(-1,)
    )


class StatusLink:
    """A link whose every STATUS is ``status``; counts the reads."""

    def __init__(self, status: Status) -> None:
        self.statuses = status
        self.reads = 0

    @property
    def clock(self) -> Any:
        raise AssertionError("the check waits for nothing")

    def poll(self) -> None:
        pass

    def status(self) -> Status:
        self.reads += 1
        return self.statuses


def status_with(pulses_us: tuple[int, ...], measured_us: tuple[int, ...]) -> Status:
    return Status("b", Mode.IDLE, 0, 0, 8, (), Grip.NONE, -1, Rail.NONE, pulses_us, measured_us)


# --- the comparison ----------------------------------------------------------------------------------------------
def test_a_joint_off_by_more_than_the_tolerance_is_named_with_its_error_in_degrees() -> None:
    misses = check_of().misses((1500, 1535, 1900), (1500, 1500, 1500))
    assert [(m.name, m.error_deg) for m in misses] == [("shoulder", pytest.approx(3.5))], "the gripper is skipped"
    assert check_of().misses((1500, 1530, 1500), (1500, 1500, 1500)) == [], "3.0 deg is within 3 deg"
    assert check_of().misses((1460, -1, 1500), (1500, 1500, 1500))[0].error_deg == pytest.approx(-4.0)
    assert check_of().misses((), (1500, 1500, 1500)) == [], "no measured positions (PWM): nothing to judge"


def test_a_joint_on_its_way_to_the_pose_commanded_now_is_there() -> None:
    # the lift has begun: the shoulder is commanded 1560 now, and stands between the pick pose and there
    assert check_of().misses((1500, 1550, 1500), (1500, 1500, 1500), (1500, 1560, 1500)) == []
    assert check_of().misses((1500, 1600, 1500), (1500, 1500, 1500), (1500, 1560, 1500))[0].error_deg == 4.0


def test_the_fault_names_the_joint_the_degrees_and_the_commands_to_go_on() -> None:
    link = StatusLink(status_with((1500, 1500, 1500), (1500, 1570, 1500)))
    with pytest.raises(RunFault) as caught:
        check_of().check(link, (1500, 1500, 1500), "the pick of disk 1 on peg A (move 1)")
    text = str(caught.value)
    assert "after the pick of disk 1 on peg A (move 1) the shoulder joint stands 7.0 deg off" in text, text
    assert "`hanoibot home --clear` and `hanoibot resume`" in text


def test_a_board_without_measured_positions_is_asked_once_and_never_faulted() -> None:
    link = StatusLink(status_with((1500, 1500, 1500), ()))
    check = check_of()
    for _ in range(3):
        check.check(link, (900, 2100, 1500), "a place")
    assert link.reads == 1 and not check.board_measures


def test_the_tolerance_is_the_configs_in_degrees(tmp_path: Path) -> None:
    config = load_config()
    check = PoseCheck.for_robot(config)
    assert check.tolerance_deg == config.motion.pose_tolerance_deg == 6.0
    assert check.names == config.channel_names() and config.gripper_channel in check.skip
    base = list(config.start_pulses_us())
    off = [base[0] + 78, *base[1:]]  # the base is linear at 11.1 µs a degree: 78 µs is 7.03 deg
    assert [round(m.error_deg, 2) for m in check.misses(off, base)] == [7.03]
    text = (
        Path(config.source_path or "").read_text().replace("settle_ms = 40", "settle_ms = 40\npose_tolerance_deg = 8")
    )
    (tmp_path / "robot.toml").write_text(text)
    assert PoseCheck.for_robot(load_config(tmp_path / "robot.toml")).misses(off, base) == []
    (tmp_path / "robot.toml").write_text(text.replace("pose_tolerance_deg = 8", "pose_tolerance_deg = 0.1"))
    with pytest.raises(ValueError, match="pose_tolerance_deg"):
        load_config(tmp_path / "robot.toml")


# --- a run on the simulated bus ----------------------------------------------------------------------------------
def hold_back_at_grip(robot: Robot, job: Run, *, channel: int, move_k: int) -> list[float]:
    """When move ``move_k``'s fingers start closing, an obstacle pushes joint ``channel`` :data:`PUSH_US` back the
    way it came down, and holds it there (a hand, a cable): the world's block. Returns where it was pushed from."""
    board = robot.sim_board
    world = board.world
    on_tick = world.on_tick
    came_from: list[float] = []
    pushed: list[float] = []

    def tick(t_s: float, pulses_us: Any) -> None:
        on_tick(t_s, pulses_us)
        seq = job.sequencer
        if seq.moves_done != move_k or pushed:
            return
        horn_us = board.servo_bus.servos[channel].horn_us
        if seq.state is MotionPhase.DESCEND and not came_from:
            came_from.append(horn_us - seq._queued[0].pulses_us[channel])
        elif seq.state is MotionPhase.GRIP and came_from:
            if came_from[0] > 0:
                world.block_joint(channel, low_us=horn_us + PUSH_US)
            else:
                world.block_joint(channel, high_us=horn_us - PUSH_US)
            pushed.append(horn_us)

    world.on_tick = tick
    return pushed


def resume(robot: Robot, path: Path) -> Phase:
    """What ``hanoibot resume --journal PATH`` does, on the same (in-process) board."""
    log = load_journal(path)
    plan = check_journal(log, robot.config.config_hash, str(path))
    board = recorded_board(log)
    with Journal.open_append(path) as journal:
        if board is None and robot.boot_id == log.boot_id:
            point = resume_same_boot(log, plan, robot, journal)
        else:
            assert board is not None
            point = resume_after_reset(log, plan, robot, board)
        end = point.run(robot, journal).start(**point.start_options())
    assert isinstance(end, Phase)
    return end


def test_a_joint_held_back_stops_the_run_named_and_home_clear_then_resume_finish_it(tmp_path: Path) -> None:
    plan = make_plan(3)
    path = tmp_path / "run.journal"
    robot = Robot("sim://?servo=sts&seed=4", load_config())
    robot.open()
    with robot:
        world = robot.sim_board.world
        with Journal.create(path) as journal:
            job = Run(robot, plan, journal=journal)
            pushed = hold_back_at_grip(robot, job, channel=1, move_k=3)
            assert job.start() is Phase.FAULT
        reason = job.sequencer.reason
        assert pushed, "the obstacle came"
        assert "after the pick of disk 3 on peg A (move 4) the shoulder joint stands" in reason, reason
        assert "`hanoibot home --clear` and `hanoibot resume`" in reason
        assert len(moves_made(world.events)) == 3, "stopped at the fourth pick"
        world.unblock_joint(1)  # the user clears its way
        result = home(robot, clear=True, journal_path=path)
        assert result.is_home, result.failed
        assert resume(robot, path) is Phase.DONE
        events = list(world.events)
        executed = robot.sim_board.executed_cmd_ids()
    assert moves_made(events) == list(plan), "every move once, in order, nothing dropped or hit"
    assert world.state == plan.goal
    assert len(executed) == len(set(executed)), "no command ran twice"


@pytest.mark.parametrize("url", ["sim://?servo=sts&seed=11", "sim://?servo=sts&seed=12&corrupt=0.01"])
def test_a_clean_bus_run_raises_no_false_fault(url: str) -> None:
    checked: list[int] = []
    robot = Robot(url, load_config())
    robot.open()
    with robot:
        job = Run(robot, make_plan(3))
        check = job.sequencer.pose_check
        assert check is not None
        misses = check.misses

        def counted(*args: Any) -> Any:
            checked.append(1)
            return misses(*args)

        check.misses = counted  # type: ignore[method-assign]
        assert job.start() is Phase.DONE, job.sequencer.reason
        events = list(robot.sim_board.world.events)
    assert len(moves_made(events)) == 7
    assert len(checked) >= 14, "each pick and each place was checked"


def test_a_pwm_board_runs_as_before_and_is_never_judged() -> None:
    robot = Robot("sim://?seed=4", load_config())
    robot.open()
    with robot:
        job = Run(robot, make_plan(3))
        check = job.sequencer.pose_check
        assert check is not None and check.board_measures
        assert job.start() is Phase.DONE, job.sequencer.reason
        assert not check.board_measures, "PWM outputs report no positions: the check stopped asking"
        events = list(robot.sim_board.world.events)
    assert len(moves_made(events)) == 7
