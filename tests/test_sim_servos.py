"""VirtualServos: the pulse history it records and the speed limit of the simulated horn."""

from __future__ import annotations

import pytest
from hanoibot.clock import VirtualClock
from hanoibot.errors import ConfigError
from hanoibot.sim.servos import VirtualServos
from hypothesis import given
from hypothesis import strategies as st


def make(channels: int = 2, speeds: list[float | None] | None = None) -> tuple[VirtualServos, VirtualClock]:
    clock = VirtualClock()
    return VirtualServos(channels, now_s=clock.now_s, max_speed_us_per_s=speeds), clock


def test_history_records_each_change_with_its_time() -> None:
    servos, clock = make()
    servos.set_pulse_us(0, 1500)
    clock.advance(0.25)
    servos.set_pulse_us(1, 1200)
    servos.set_pulse_us(0, 1500)  # unchanged output: the PWM does not change, nothing to record
    clock.advance(0.5)
    servos.release(0)
    servos.release(0)  # already limp
    assert servos.history == [(0.0, 0, 1500), (0.25, 1, 1200), (0.75, 0, None)]
    assert servos.pulses_us() == [None, 1200]
    assert servos.pulses_of(0) == [1500, None]


def test_release_all_releases_only_driven_channels() -> None:
    servos, _clock = make(channels=3)
    servos.set_pulse_us(2, 1000)
    servos.release_all()
    assert servos.history == [(0.0, 2, 1000), (0.0, 2, None)]
    assert servos.positions_us() == [None, None, None]


def test_unlimited_servo_is_where_it_was_told() -> None:
    servos, clock = make()
    servos.set_pulse_us(0, 1000)
    servos.set_pulse_us(0, 2000)
    assert servos.position_us(0) == 2000
    clock.advance(1.0)
    assert servos.position_us(0) == 2000


@given(
    start_us=st.integers(500, 2500),
    commands=st.lists(st.tuples(st.floats(0.0, 0.5), st.integers(500, 2500)), min_size=1, max_size=20),
    speed_us_per_s=st.floats(10.0, 5000.0),
)
def test_limited_servo_follows_at_most_at_its_speed(
    start_us: int, commands: list[tuple[float, int]], speed_us_per_s: float
) -> None:
    servos, clock = make(channels=1, speeds=[speed_us_per_s])
    servos.set_pulse_us(0, start_us)
    expected_us = float(start_us)  # independent model: step toward the target at the speed
    target_us = start_us
    for wait_s, new_target_us in commands:
        clock.advance(wait_s)
        step_us = speed_us_per_s * wait_s
        expected_us = (
            target_us
            if abs(target_us - expected_us) <= step_us
            else (expected_us + step_us * (1 if target_us > expected_us else -1))
        )
        position = servos.position_us(0)
        assert position == pytest.approx(expected_us, abs=1e-6)
        servos.set_pulse_us(0, new_target_us)
        target_us = new_target_us
    clock.advance(2000.0 / speed_us_per_s + 1.0)
    assert servos.position_us(0) == pytest.approx(target_us)


def test_first_pulse_after_release_snaps() -> None:
    servos, clock = make(channels=1, speeds=[100.0])
    servos.set_pulse_us(0, 1000)
    servos.release(0)
    clock.advance(1.0)
    servos.set_pulse_us(0, 2000)
    assert servos.position_us(0) == 2000


@pytest.mark.parametrize(
    ("channels", "speeds", "word"),
    [(0, None, "channel count 0"), (2, [1.0], "1 entries"), (1, [0.0], "speed 0.0")],
)
def test_bad_settings_name_the_value(channels: int, speeds: list[float | None] | None, word: str) -> None:
    clock = VirtualClock()
    with pytest.raises(ConfigError, match=word):
        VirtualServos(channels, now_s=clock.now_s, max_speed_us_per_s=speeds)
