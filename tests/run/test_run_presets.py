"""Every arm preset that is a whole robot config runs the 3-disk tower to the goal on sim:// (issue 32), judged by
the simulated world: the arm's own chain of joints, its servos on their channels and the gripper on its own, no
collision, no drop, every planned move exactly once, in order.

Every shipped preset is a whole robot config (``[servos]``, ``[gripper]``, ``[motion]``, ``[tolerances]`` beside
its ``[arm]`` and ``[board]``): the default robot, the SO-101, the 6-DOF bracket arm and the MeArm, whose level claw
takes each disk from the side (issue 32, item 4), judged by the world's contact model for its claw's bars. The
SO-101's published URDF (its joints, tests/arm/fixtures/) written as ``[arm] urdf = FILE`` in its robot config runs
the same way.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hanoibot.arm import preset_text
from hanoibot.config import RobotConfig, load_config, parse_config
from hanoibot.planner import make_plan
from hanoibot.puzzle import State
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from test_run_sim import moves_seen_by_the_world

#: The SO-101's published URDF, its joints only (tests/arm/fixtures/, with its source and licence).
URDF_FIXTURE = Path(__file__).resolve().parents[1] / "arm" / "fixtures" / "so101_new_calib_joints.urdf"
#: The presets that are whole robot configs, and how many channels each has (its arm's servos, then the gripper).
RUNNABLE = {"default": 5, "so101": 6, "bracket6": 6, "mearm": 4}


def preset_file(name: str, folder: Path) -> Path:
    """The preset ``name`` written out as a robot config file, as ``hanoibot init --arm NAME`` would write it."""
    path = folder / f"{name}.toml"
    path.write_text(preset_text(name), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", list(RUNNABLE))
def test_each_preset_runs_three_disks_to_the_goal_with_every_move_once(name: str, tmp_path: Path) -> None:
    path = preset_file(name, tmp_path)
    config = load_config(path)
    assert config.channels == RUNNABLE[name] == len(config.chain.servo_slots) + 1
    run_three_disks(path, config)


def test_the_so101s_published_urdf_imports_into_a_config_that_runs(tmp_path: Path) -> None:
    # The SO-101 preset's robot config with its [arm] replaced by the URDF's joints (the published joint values,
    # tests/arm/fixtures/, with their source): [arm] urdf = FILE, the wrist roll held, the pan axis on the origin.
    shutil.copy(URDF_FIXTURE, tmp_path / "so101.urdf")
    document: Any = tomlkit.parse(preset_text("so101"))
    arm = tomlkit.table()
    arm["urdf"] = "so101.urdf"  # beside the config file
    arm["hold"] = {"wrist_roll": 0.0}
    arm["mount_xyz_mm"] = [-38.8353, 0.0, 0.0]
    document["arm"] = arm
    path = tmp_path / "robot.toml"
    path.write_text(tomlkit.dumps(document), encoding="utf-8")
    config = load_config(path)
    assert config.notes == () and config.chain.ik_family == "serial_pitch"
    assert config.channel_names() == load_config(preset_file("so101", tmp_path)).channel_names()
    run_three_disks(path, config)


def run_three_disks(path: Path, config: RobotConfig) -> None:
    """Run the 3-disk tower A -> C on sim:// with the robot config at ``path`` (``config``, read from it) and
    check what the simulated world saw."""
    start, goal = State.tower(3), State.tower(3, 2)
    plan = make_plan(3, start=start, goal=goal)
    robot = Robot(f"sim://?board={start.to_string()}&seed=7&config={path}", config)
    robot.open()
    try:
        job = Run(robot, plan)
        assert job.start() is Phase.DONE, job.sequencer.reason
        board = robot.sim_board
    finally:
        robot.close()
    assert board.channels == config.channels
    assert board.world.state == goal
    assert board.world.faults() == [], "no collision, no drop"
    assert moves_seen_by_the_world(board.world.events) == list(plan)
    executed = [e["cmd_id"] for e in board.events if e["event"] == "executed"]
    assert executed == sorted(set(executed)), "a command id ran twice or out of order"
    report = job.report()
    assert (report.status, report.moves_done, report.final) == ("done", plan.length, goal.to_string())


def test_the_default_preset_is_the_shipped_robot_config() -> None:
    # The default preset, read as a robot config, is hardware/robot.toml's robot (its arm written as a chain).
    preset, shipped = parse_config(preset_text("default").encode("utf-8")), load_config()
    assert preset.servos == shipped.servos and preset.gripper == shipped.gripper
    assert preset.board == shipped.board and preset.motion == shipped.motion
    assert preset.tolerances == shipped.tolerances and preset.servo_driver == shipped.servo_driver
    assert [j.name for j in preset.chain.joints] == [j.name for j in shipped.chain.joints]
    pulses = shipped.start_pulses_us()
    assert preset.grip_point(pulses) == pytest.approx(shipped.grip_point(pulses), abs=1e-9)
