"""The shipped firmware and board_config.py on the virtual Pico (stock MicroPython rp2 image), with the servos on GPIO
PWM and on a PCA9685: it boots with no exception, gives no pulse before CONFIG, switches the outputs on one at a
time, and releases them all when the servo rail dies (rail sense GP22 low: POWER_LOST)."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from hanoibot.config import load_config
from hanoibot.link.session import Session
from hanoibot.run.robot import Robot
from vpico_checks import run_chip_until, vpico_url

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

STAGGER_S = 0.2  # board_config.ENABLE_STAGGER_MS
STEP_WORK_S = 0.003  # how far into its control step a write may land (the step's work before the flush)


def wait_until(condition: object, session: Session, timeout_s: float = 30.0) -> None:
    """Serve the link in 20 ms steps of the chip's time until ``condition()``, for at most ``timeout_s`` of it."""
    clock = session.clock
    deadline_s = clock.now_s() + timeout_s
    while not condition():  # type: ignore[operator]
        assert clock.now_s() < deadline_s, "timed out"
        session.poll()
        clock.sleep(0.02)


@contextlib.contextmanager
def driven_pca9685() -> Iterator[tuple[Session, Any]]:
    """A session with the virtual Pico, servos on a PCA9685, configured and every output pulsing."""
    with Session(vpico_url(world=0, servo="pca9685")) as session:
        pico = session.port.pico  # type: ignore[union-attr]
        session.configure(*Robot("sim://", load_config()).limits())
        wait_until(lambda: None not in pico.pulses_us, session)
        yield session, pico


@pytest.mark.parametrize("servo", [pytest.param("pwm", marks=pytest.mark.vpico_cover), "pca9685"])  # make test: pwm
def test_shipped_firmware_staggers_the_enable_and_releases_every_output_on_a_dead_rail(servo: str) -> None:
    config = load_config()
    with Session(vpico_url(world=0, servo=servo)) as session:
        pico = session.port.pico  # type: ignore[union-attr]
        assert session.hello is not None and session.hello.grip_sensor == 1 and session.hello.rail_sense == 1
        assert pico.pulses_us == [None] * 5 and pico.tracebacks == []  # no pulse before CONFIG, no exception
        limits = Robot("sim://", config).limits()
        session.configure(*limits)
        wait_until(lambda: None not in pico.pulses_us, session)
        firsts: dict[int, float] = {}
        for t_s, channel, pulse_us in pico.servos.history:
            if pulse_us is not None and channel not in firsts:
                firsts[channel] = t_s
        assert sorted(firsts, key=firsts.__getitem__) == [4, 3, 2, 1, 0]  # gripper first, base last
        times_s = sorted(firsts.values())
        # A channel's pulses start at the first output frame after its step's write (a 20 ms PWM frame, or the
        # PCA9685's own 19.99 ms cycle), and a write lands up to a few ms into its step (the step's own work before
        # the flush); plus the whole-µs rounding of both times (2 µs and a float's error).
        assert min(b - a for a, b in itertools.pairwise(times_s)) >= STAGGER_S - 0.02 - STEP_WORK_S - 3e-6
        pico.set_rail_powered(False)
        # The outputs stop only when the firmware releases them (neither model follows the rail by itself), and
        # it latches POWER_LOST first: one STATUS asked after that must show it (a reboot would be BoardReset).
        wait_until(lambda: pico.pulses_us == [None] * 5, session)
        status = session.status()
        assert status.boot_id == session.hello.boot_id
        assert "POWER_LOST" in status.faults and status.rail == "off" and status.pulses_us == (0,) * 5
        assert pico.tracebacks == []


def test_a_status_asked_after_the_rail_dies_is_not_an_older_answer_still_on_its_way() -> None:
    """The STATUS a heartbeat asked for just before the rail died, made before the board saw it, is still unread
    when the host asks again: session.status() must not hand that one back (rail on, no POWER_LOST) as the answer
    to a question asked after the rail died. (A loaded host met it at random: it saw the outputs go off and then
    read the heartbeat's answer as its own, which looked like a rebooted board.)"""
    with driven_pca9685() as (session, pico):
        last_line = pico.output_since_boot().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        session.core.ask_status()  # as a heartbeat does; the session reads nothing from here on until status()
        deadline_s = pico.time_s + 5.0
        while True:  # until the board's answer (a STATUS, each with its own seq) is its latest line, unread
            output = pico.output_since_boot()
            line = output.rstrip(b"\n").rsplit(b"\n", 1)[-1]
            if output.endswith(b"\n") and line.startswith(b"STATUS,") and line != last_line:
                break
            assert pico.time_s < deadline_s, "the board did not answer the STATUS request"
            pico.run_until(pico.time_s + 0.005, stop_on_output=True)
        assert b",on," in line  # that answer was made while the rail was still on
        pico.set_rail_powered(False)  # GP22 low before any byte asked after this reaches the board
        status = session.status()
        assert status.rail == "off", f"session.status() gave an answer made before it asked: {status}"
        wait_until(lambda: "POWER_LOST" in session.status().faults, session)
        assert pico.tracebacks == []


@pytest.mark.parametrize("switch", ["press_reset", "power_cycle"])
def test_a_pca9685_keeps_its_pulses_through_a_reset_button_but_not_through_a_power_cycle(switch: str) -> None:
    # The reset button restarts the RP2040 alone (cause hard); switching the board off and on restarts the PCA9685
    # too, and it comes up with every output off (cause power).
    with driven_pca9685() as (_session, pico):
        held = list(pico.pulses_us)
        getattr(pico, switch)()
        run_chip_until(pico, lambda: len(pico.boots) >= 2, 5.0, "a second boot")
        assert pico.boots[-1]["cause"] == ("hard" if switch == "press_reset" else "power")
        pico.run_until(pico.time_s + 0.5)
        assert pico.pulses_us == (held if switch == "press_reset" else [None] * 5)
