"""A held disk threaded on its peg (1 mm of play a side) stays off the peg when the servos take a new pulse only
once per 50 Hz PWM frame, as real servos do: the lift and the lower run at ``[motion] on_peg_speed_ratio`` of the
joints' top speeds, so a joint near its limit can catch up within the frame (hanoibot.motion.hardware).

The judge is the simulated world's collision check; the counter-example (ratio 1.0, every joint allowed its full
speed while the disk is on the peg) shows that the check sees the problem the ratio prevents.
"""

from __future__ import annotations

import dataclasses

import pytest
from hanoibot.config import load_config
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase

DISKS = 5


def run_with_ratio(ratio: float | None) -> tuple[Phase, list[str]]:
    """A 5-disk run on sim:// with the default robot (its on_peg_speed_ratio replaced unless None): the phase the
    run ended in and the faults the simulated world saw."""
    config = load_config(None)
    if ratio is not None:
        config = dataclasses.replace(config, motion=dataclasses.replace(config.motion, on_peg_speed_ratio=ratio))
    robot = Robot(f"sim://?board={'A' * DISKS}", config)
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


@pytest.mark.parametrize("ratio", [1.0])
def test_at_full_speed_on_the_peg_a_held_disk_hits_it(ratio: float) -> None:
    _phase, faults = run_with_ratio(ratio)
    assert any(f.startswith("COLLISION: held disk") for f in faults), faults
