"""The campaign's randomized worlds on the virtual Pico, a covering handful (benchmarks/campaign.py plays hundreds
on sim://): the firmware on the stock MicroPython image drives servos, a calibration, pegs and disks that are off
within the robot's ``[tolerances]`` (``world=random&seed=S``, hanoibot.sim.random_world), and a 3-disk run must end
on the goal with every planned move made once and nothing hitting a peg or falling, as the virtual disks judge.

As in the smoke run, the chip is capped at 1/CHIP_SLOW of a real RP2040 and the arm's joints are twice as fast as
the default robot's (the same paths in half the wall time).

Both seeds are in make test-vpico (by hand). Seed 12 was in CI's covering set (make test) until 2026-12-02: since
the on-peg share went from 0.65 to 0.67 (2026-12-01) it collides in about a third of its runs here ("held disk hits
peg" on a lift: 2 of 5 runs with the link of 2026-12-01, 2 of 9 with protocol 4; 1 of 5 at the robot's own joint
speeds), while the same world on sim:// is clean and so are hundreds of randomized worlds at 0.67. The cause is not
found; the chip here runs at a sixth of a Pico's speed, so its control steps come late, and the on-peg error stack
(docs/margins.md) has no term for a late step. Seed 11 collided once in a fresh-clone run (session 9).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hanoibot.config import load_config
from hanoibot.planner import make_plan
from hanoibot.puzzle import peg_index
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from robot_configs import speed_scaled_config
from vpico_checks import require_machine_sustains_the_cap, vpico_url

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

#: The worlds played (seeds of hanoibot.sim.random_world); `benchmarks/campaign.py --first-seed S --worlds 1`
#: plays the same world on sim://.
SEEDS = (11, 12)
#: Every arm joint this many times as fast as the default robot's (the gripper keeps its speed, as in the smoke run).
FASTER = 2.0


def moves_seen(events: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """(disk, from peg, to peg) of each pick and the place after it that changed the disk's peg."""
    moves, picked = [], None
    for event in events:
        if event["event"] == "pick":
            picked = event
        elif event["event"] == "place" and picked is not None:
            if picked["peg"] != event["peg"]:
                moves.append((event["disk"], peg_index(picked["peg"]), peg_index(event["peg"])))
            picked = None
    return moves


@pytest.mark.parametrize("seed", SEEDS)
def test_a_randomized_world_on_the_virtual_pico_runs_clean(seed: int, tmp_path: Path) -> None:
    require_machine_sustains_the_cap()
    config = speed_scaled_config(tmp_path, FASTER, gripper=False)
    plan = make_plan(3)
    robot = Robot(vpico_url(board="AAA", config=config, world="random", seed=seed), load_config(config))
    robot.open()
    pico = robot.session.port.pico  # type: ignore[union-attr]
    try:
        run = Run(robot, plan)
        assert run.start() is Phase.DONE, run.report()
        world = pico.world
        assert world.servo_traits is not None  # a randomized world: its own servos, not the config's
        assert world.faults() == [], f"seed {seed}"
        assert world.state == plan.goal, f"seed {seed}"
        assert moves_seen(list(world.events)) == [(m.disk, m.src, m.dst) for m in plan], f"seed {seed}"
    finally:
        robot.close()
        pico.close()
