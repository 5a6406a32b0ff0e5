"""A held disk threaded on its peg (1 mm of play a side) stays off the peg when the servos take a new pulse only
once per 50 Hz PWM frame, as real servos do: the lift and the lower run at ``[motion] on_peg_speed_ratio`` of the
joints' top speeds, so a joint near its limit can catch up within the frame (hanoibot.motion.hardware).

The judge is the simulated world's collision check. The blend checker follows the servos by the same model as the
world (hanoibot.motion.servo_model), so with the servos the config describes it plans stops wherever full speed
would push the disk into its peg: the ratio is headroom for servos slower than described (docs/margins.md). Servos
10 % slower than the config says still keep the disk off its peg; 15 % slower hit it at any ratio (measured), so
the ratio is no substitute for describing the servos' speed as they are.
"""

from __future__ import annotations

import dataclasses

from hanoibot.config import load_config
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase

DISKS = 5


def run_with_ratio(ratio: float | None, speed: float = 1.0) -> tuple[Phase, list[str]]:
    """A 5-disk run on sim:// with the default robot (its on_peg_speed_ratio replaced unless None; its servos
    ``speed`` times as fast as the config says): the phase the run ended in and the faults the world saw."""
    config = load_config(None)
    if ratio is not None:
        config = dataclasses.replace(config, motion=dataclasses.replace(config.motion, on_peg_speed_ratio=ratio))
    robot = Robot(f"sim://?board={'A' * DISKS}&speed={speed}", config)
    robot.open()
    try:
        board = robot.session.port.board  # type: ignore[union-attr]
        phase = Run(robot, make_plan(DISKS)).start()
        return phase, [f"{e['fault']}: {e['detail']}" for e in board.world.events if e["event"] == "fault"]
    finally:
        robot.close()


def test_the_default_robot_keeps_held_disks_off_their_pegs() -> None:
    phase, faults = run_with_ratio(None)
    assert faults == []
    assert phase is Phase.DONE


def test_servos_slower_than_described_keep_held_disks_off_their_pegs_at_the_default_ratio() -> None:
    phase, faults = run_with_ratio(None, speed=0.9)
    assert faults == []
    assert phase is Phase.DONE
