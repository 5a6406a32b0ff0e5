"""The campaign's randomized worlds on the virtual Pico, a covering handful (benchmarks/campaign.py plays hundreds
on sim://): the firmware on the stock MicroPython image drives servos, a calibration, pegs and disks that are off
within the robot's ``[tolerances]`` (``world=random&seed=S``, hanoibot.sim.random_world), and a 3-disk run must end
on the goal with every planned move made once and nothing hitting a peg or falling, as the virtual disks judge.

As in the smoke run, the chip runs on chip time (the same run on any machine; the seed replays it exactly) and the
arm's joints are twice as fast as the default robot's (the same paths in half the time).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from benchmark_scripts import load_benchmark
from hanoibot.config import load_config
from hanoibot.planner import make_plan
from hanoibot.puzzle import peg_index
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from robot_configs import speed_scaled_config
from vpico_checks import vpico_url

pytestmark = [pytest.mark.slow, pytest.mark.vpico]


#: benchmarks/campaign.py, loaded as a module.
def campaign_module() -> ModuleType:
    return load_benchmark("campaign")


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


#: The virtual Pico's recovered runs CI plays (benchmarks/campaign.py --target vpico plays hundreds by hand): each
#: stop once, mid-carry, on randomized worlds of 2 disks, recovered as the user is told: (world seed, stop,
#: recovery, the pick the stop follows, s after it).
RECOVERED = (
    (61000, "estop", "resume --clear", 1, 0.3),
    (61001, "ctrl-c", "stop, resume", 2, 0.2),
    (61002, "kill -9", "resume", 3, 0.4),
    (61003, "board reset", "resume --board", 1, 0.5),
    (61004, "rail loss", "home --clear, resume --board", 2, 0.1),
)


@pytest.mark.parametrize(
    ("seed", "stop", "recovery", "pick", "after_s"), RECOVERED, ids=[f"{s}-{stop}" for s, stop, *_ in RECOVERED]
)
def test_a_run_stopped_mid_carry_on_the_virtual_pico_is_recovered_as_the_user_is_told(
    seed: int, stop: str, recovery: str, pick: int, after_s: float
) -> None:
    """benchmarks/campaign.py's recovered run on the virtual Pico (chip time): the stop comes while the gripper
    holds a disk (a reset or a rail loss lets it go: the person puts it back), the recovery runs as a user's
    commands would, and the disks reach the goal with every planned move made once and nothing colliding or
    dropped (the world's own events judge)."""
    campaign = campaign_module()
    result = campaign.recover(
        seed, 2, stop, recovery, 0.0, target=campaign.TARGETS["vpico"], after_pick=(pick, after_s)
    )
    assert result.held, f"the {stop} did not come while a disk was carried"
    assert not result.failed, result
