"""The SO-101 preset on the virtual Pico with its six Feetech STS servos on the bus (``vpico://?servo=sts``): the
stock MicroPython rp2 image runs the firmware's bus driver on UART0, and the harness's bus model
(hanoibot/sim/vpico/feetech_bus.mjs) echoes the line and answers on chip time; the servos move the simulated arm,
which judges every pick and place. Shown: ``run -n 3`` to the goal with every move once, each pick judged held by
the gripper's load read on the bus, and each joint's measured position reported; a servo silent from power-up named
in a fault before anything moves (no hang). The kill -9 and the recovery table on the bus:
test_vpico_bus_recovery.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.config import load_config
from hanoibot.errors import BoardError
from hanoibot.link.session import Session
from hanoibot.link.status import Grip, Status
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoifw import protocol
from robot_configs import preset_speed_scaled_config
from vpico_checks import vpico_url
from world_events import moves_made

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

#: Every servo of the SO-101 preset (host and board) this many times as fast: a shorter run.
FASTER = 3.0
#: The SO-101's six channels on the bus: ids 1..6, the gripper last (hanoibot init --arm so101).
BUS_IDS = b"BUS_IDS = (1, 2, 3, 4, 5, 6)"
#: A servo silent from power-up is named this soon, in s of chip time from power-up: the boot (about 2.4 s: MicroPython
#: compiles the firmware), the CONFIG, then a few control steps (READ_TRIES unanswered reads).
SILENT_WITHIN_S = 6.0


@pytest.fixture(scope="module")
def so101(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SO-101 preset, every servo :data:`FASTER` times as fast."""
    return preset_speed_scaled_config(tmp_path_factory.mktemp("so101"), "so101", FASTER)


def test_the_so101_plays_three_disks_on_bus_servos_with_every_move_once(
    so101: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    statuses: list[Status] = []
    original = Session.status

    def status(session: Session) -> Status:
        statuses.append(original(session))
        return statuses[-1]

    monkeypatch.setattr(Session, "status", status)
    config = load_config(so101)
    plan = make_plan(3)
    robot = Robot(vpico_url(servo="sts", config=so101, board="AAA"), config)
    robot.open()
    pico = robot.session.port.pico  # type: ignore[union-attr]
    try:
        files = pico.files["board_config.py"]
        assert b'SERVO_DRIVER = "bus"' in files and BUS_IDS in files and b"CHANNELS = 6\n" in files
        run = Run(robot, plan)
        assert run.start() is Phase.DONE, run.report()
        world = pico.world
        assert world.state == plan.goal and world.faults() == []
        assert moves_made(world.events) == list(plan), "every move once, in order, as the world saw it"
        held = [s for s in statuses if s.grip is Grip.HELD]
        assert len(held) >= len(list(plan)), "the host saw every pick held"
        threshold = config.gripper.grip_threshold_u16
        assert all(s.grip_raw > threshold for s in held), "judged by the gripper's load, read on the bus"
        pico.run_until(pico.time_s + 0.5)  # the last DONE ends the profile: the horns trail it a little
        status = robot.session.status()
        assert len(status.measured_us) == 6, "every joint reports where it is"
        for measured, pulse in zip(status.measured_us, status.pulses_us, strict=True):
            assert abs(measured - pulse) <= 2, f"at rest each servo stands where it was sent: {status}"
        assert pico.bus.bus.frames > 1000 and pico.tracebacks == []
    finally:
        robot.close()
        pico.close()


def test_a_servo_silent_from_power_up_is_named_before_anything_moves(so101: Path) -> None:
    robot = Robot(vpico_url(servo="sts", config=so101, board="AAA", silent=3), load_config(so101))
    try:
        try:  # the board latches it as soon as it polls the bus: at the CONFIG, or at the run's first command
            robot.open()
            run = Run(robot, make_plan(3))
            assert run.start() is Phase.FAULT
            reason = run.sequencer.reason
        except BoardError as err:
            reason = str(err)
        assert protocol.FAULT_SERVO_SILENT in reason and "servo 2 (bus id 3)" in reason, reason
        pico = robot.session.port.pico  # type: ignore[union-attr]
        assert pico.time_s < SILENT_WITHIN_S, "named within its timeout, not after a hang"
        assert moves_made(pico.world.events) == []
    finally:
        robot.close()
        port = robot.session.port
        if port is not None:
            port.pico.close()  # type: ignore[union-attr]
