"""The one servo model: top speed, loop, acceleration, deadband, backlash and speed sag."""

from __future__ import annotations

import pytest
from hanoibot.motion.servo_model import RESPONSE_S, ServoState, ServoTraits, approach_us, follow


def settle(traits: ServoTraits, state: ServoState, pulse_us: float, seconds: float = 2.0) -> ServoState:
    """Follow ``pulse_us`` for ``seconds`` in 1 ms steps."""
    for _ in range(round(seconds * 1000)):
        state = follow(traits, state, pulse_us, 0.001)
    return state


def test_an_ideal_servo_is_at_its_pulse_at_once() -> None:
    assert follow(ServoTraits(None), ServoState.at(1500), 1700, 0.001).horn_us == 1700


def test_a_servo_turns_no_faster_than_its_top_speed_sag_included() -> None:
    traits = ServoTraits(1000.0, speed_factor_up=0.5, speed_factor_down=0.8)
    up = follow(traits, ServoState.at(1000), 2000, 0.1)
    down = follow(traits, ServoState.at(2000), 1000, 0.1)
    assert up.horn_us == pytest.approx(1000 + 1000 * 0.5 * 0.1)
    assert down.horn_us == pytest.approx(2000 - 1000 * 0.8 * 0.1)


def test_stepping_a_servo_without_acceleration_limit_is_exact() -> None:
    traits = ServoTraits(1000.0)
    whole = follow(traits, ServoState.at(1000), 1100, 0.2).horn_us
    assert settle(traits, ServoState.at(1000), 1100, 0.2).horn_us == pytest.approx(whole)
    assert whole == pytest.approx(approach_us(1000, 1100, 0.2, 1000.0, RESPONSE_S))


def test_an_acceleration_limit_slows_the_start() -> None:
    free = follow(ServoTraits(1000.0), ServoState.at(1000), 2000, 0.01).horn_us
    slow = settle(ServoTraits(1000.0, max_accel_us_s2=20000.0), ServoState.at(1000), 2000, 0.01).horn_us
    assert slow == pytest.approx(1000 + 20000 * 0.01**2 / 2, abs=0.2)  # v = a t: half the distance at full speed
    assert slow < free
    assert settle(ServoTraits(1000.0, max_accel_us_s2=20000.0), ServoState.at(1000), 1200).horn_us == pytest.approx(
        1200, abs=0.5
    )


def test_a_deadband_stops_the_horn_short_of_its_pulse() -> None:
    traits = ServoTraits(1000.0, deadband_us=6.0)
    assert settle(traits, ServoState.at(1000), 1100).horn_us == pytest.approx(1097, abs=0.01)
    assert settle(traits, ServoState.at(1000), 1002).horn_us == 1000  # inside the band: nothing moves


def test_backlash_makes_the_horn_trail_a_reversal() -> None:
    traits = ServoTraits(1000.0, backlash_us=8.0)
    there = settle(traits, ServoState.at(1000), 1100)
    assert there.horn_us == pytest.approx(1096, abs=0.01)  # pushed from below: the play trails by half
    back = settle(traits, there, 1050)
    assert back.horn_us == pytest.approx(1054, abs=0.01)  # the motor reverses: the horn lags it from above
