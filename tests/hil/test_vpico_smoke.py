"""Smoke run on the virtual Pico: boot -> HELLO, CONFIG, home, a 3-disk run judged from the virtual disks, an
ESTOP, and a watchdog reset that the host sees as a new boot.

The firmware runs as the stock rp2 MicroPython image executes it, so anything the rp2 port lacks fails here. The
chip runs on chip time (see vpico_checks): the host has a user's link bounds, the same on any machine. The robot's
servos are :data:`FASTER` times as fast as the default robot's (host and world alike: the same paths in half the
time).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.config import load_config
from hanoibot.link.status import parse_hello
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoifw.rxframe import FrameReader
from robot_configs import speed_scaled_config
from vpico_checks import run_chip_until, vpico_url

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

#: Every arm joint this many times as fast as the default robot's. The gripper keeps its speed: the simulated servo
#: turns no faster than its physical top speed, and fingers told to close faster than that are still closing when
#: the grip sensor is read (it says empty, and the host lets go of a disk it holds).
FASTER = 2.0


def test_smoke_run_on_the_virtual_pico(tmp_path: Path) -> None:
    config = speed_scaled_config(tmp_path, FASTER, gripper=False)
    robot = Robot(vpico_url(board="AAA", config=config), load_config(config))
    robot.open()
    pico = robot.session.port.pico  # type: ignore[union-attr]
    try:
        first_boot_id = robot.boot_id
        plan = make_plan(3)
        run = Run(robot, plan)
        assert run.start() is Phase.DONE, run.report()
        world = pico.world
        assert world.state == plan.goal  # judged from the virtual disks, not from what the board says
        assert world.faults() == []
        assert sum(1 for event in world.events if event["event"] == "place") == plan.length

        robot.session.estop()
        assert robot.session.status().mode == "ESTOP"

        # Ctrl-C is ignored while an output is on; once the outputs are released, mpremote's Ctrl-C (b"\r\x03": one
        # lone 0x03 is noise, issue 34 defect 4) stops main.py, and the hardware watchdog started at CONFIG then
        # resets the chip (flash kept)
        robot.session.release()
        robot.session.port.write(b"\r\x03")  # type: ignore[union-attr]
        run_chip_until(pico, lambda: len(pico.boots) == 2, 5.0, "a watchdog reset")
        assert pico.boots[1]["cause"] == "wdt"

        def hellos() -> list[list[str]]:
            return [f for kind, _seq, _ack, f in FrameReader().feed(pico.output_since_boot()) if kind == "HELLO"]

        run_chip_until(pico, lambda: bool(hellos()), 10.0, "a whole HELLO after the reset")  # not only its first bytes
        hello = parse_hello(hellos()[0])
        assert hello.reset_cause == "wdt"
        assert hello.boot_id != first_boot_id  # the modelled ring-oscillator bit: a new boot id
    finally:
        robot.close()
        pico.close()
