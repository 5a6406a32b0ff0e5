"""A held disk threaded on its peg (3 mm of play a side) stays off the peg while the servos take a new pulse only
once per 50 Hz PWM frame, as real servos do, and may be slower than the config says by ``servo_speed_sag``: the
lift and the lower run at the on-peg share of the joints' top speeds, which follows from ``[tolerances]`` and the
servo model (hanoibot.motion.margins.on_peg_speed_ratio, docs/margins.md) instead of being tuned.

The judge is the simulated world's collision check: on the nominal world and on randomized worlds, whose servos
sag, accelerate, and have deadband and backlash within the tolerances.
"""

from __future__ import annotations

import pytest
from hanoibot.config import load_config
from hanoibot.motion.margins import on_peg_speed_ratio
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase

DISKS = 5
#: Randomized worlds on which a 3-disk run with lifts and lowers at full speed put a held disk into its peg, with the
#: 10 mm hole and 1 µs servos of before issue 34 (found by benchmarks/campaign.py at ratio 1.0 over seeds
#: 9000-9149). With the 14 mm hole no world of those seeds collides at full speed (nor 5-disk runs on 9000-9039):
#: the servos' static errors, not their speed, fill the hole now (docs/margins.md); the seeds stay as worlds to run.
FULL_SPEED_COLLIDES = (9062, 9085, 9127)


def run_on(url: str, n_disks: int) -> tuple[Phase, list[str]]:
    """A run of the ``n_disks`` tower on ``url`` with the default robot: the phase it ended in and the faults the
    world saw."""
    robot = Robot(url, load_config(None))
    robot.open()
    try:
        board = robot.session.port.board  # type: ignore[union-attr]
        phase = Run(robot, make_plan(n_disks)).start()
        return phase, [f"{e['fault']}: {e['detail']}" for e in board.world.events if e["event"] == "fault"]
    finally:
        robot.close()


def test_the_default_robot_keeps_held_disks_off_their_pegs() -> None:
    phase, faults = run_on(f"sim://?board={'A' * DISKS}", DISKS)
    assert faults == []
    assert phase is Phase.DONE


def test_servos_slower_than_described_by_the_stated_sag_keep_held_disks_off_their_pegs() -> None:
    sag = load_config(None).tolerances.servo_speed_sag
    phase, faults = run_on(f"sim://?board={'A' * DISKS}&speed={1 - sag}", DISKS)
    assert faults == []
    assert phase is Phase.DONE


@pytest.mark.parametrize("seed", FULL_SPEED_COLLIDES)
def test_randomized_worlds_where_full_speed_lifts_collided_are_clean_at_the_derived_speed(seed: int) -> None:
    assert on_peg_speed_ratio(load_config(None)) < 1
    url = f"sim://?world=random&seed={seed}&board=AAA"
    phase, faults = run_on(url, 3)
    assert (phase, faults) == (Phase.DONE, [])
