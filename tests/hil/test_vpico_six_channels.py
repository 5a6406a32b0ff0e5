"""A 6-channel arm on the virtual Pico (issue 32): the bracket6 preset's robot config as the board's world and the
host's robot; the board is wired for its 6 channels (board_config.py's CHANNELS, PWM pins; as ``hanoibot init --arm
bracket6`` writes it), boots, takes the 6-channel CONFIG and plays the 3-disk tower, judged by the simulated world:
the goal, no collision, no drop, every planned move exactly once and in order."""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.arm import preset_text
from hanoibot.config import load_config
from hanoibot.planner import make_plan
from hanoibot.puzzle import State
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from vpico_checks import vpico_url
from world_events import moves_made

pytestmark = [pytest.mark.slow, pytest.mark.vpico]


@pytest.mark.parametrize("servo", ["pwm", "pca9685"])
def test_the_bracket6_arm_plays_three_disks_on_the_virtual_pico(servo: str, tmp_path: Path) -> None:
    path = tmp_path / "bracket6.toml"
    path.write_text(preset_text("bracket6"), encoding="utf-8")
    config = load_config(path)
    assert config.channels == 6
    start, goal = State.tower(3), State.tower(3, 2)
    plan = make_plan(3, start=start, goal=goal)
    robot = Robot(vpico_url(board=start.to_string(), config=path, servo=servo), config)
    robot.open()
    pico = robot.session.port.pico  # type: ignore[union-attr]
    try:
        assert pico.channels == 6 and b"CHANNELS = 6\n" in pico.files["board_config.py"]
        run = Run(robot, plan)
        assert run.start() is Phase.DONE, run.report()
        world = pico.world
        assert world.state == goal
        assert world.faults() == [], "no collision, no drop"
        assert moves_made(world.events) == list(plan)
        assert all(p is not None for p in pico.pulses_us), "every one of the 6 outputs drove its servo"
    finally:
        robot.close()
        pico.close()
