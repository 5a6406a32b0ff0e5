"""Tests of hanoibot.motion.timing: durations from the slowest channel, the profile's peak and the settle time."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hanoibot.config import load_config
from hanoibot.errors import ConfigError
from hanoibot.motion.timing import MIN_DURATION_MS, channel_times_s, duration_ms, dwell_ms
from hanoibot.run.robot import Robot
from hanoifw.commands import check_speeds
from hypothesis import given
from hypothesis import strategies as st
from min_jerk import min_jerk_peak_ratio
from robot_configs import edited

CONFIG = load_config()
START = CONFIG.start_pulses_us()
PEAK = 15 / 8  # the profile's peak over its average speed, s'(1/2) of 10u^3 - 15u^4 + 6u^5
SETTLE_MS = CONFIG.motion.settle_ms


def test_base_turn_takes_its_angle_over_its_speed_times_the_peak_ratio() -> None:
    # 555 µs on the base at 11.1 µs/deg is 50 degrees; at 180 deg/s that is 0.2778 s before the profile.
    target = (START[0] + 555, *START[1:])
    expected_ms = math.ceil(50.0 / CONFIG.servos[0].max_speed_deg_s * PEAK * 1000)
    assert duration_ms(CONFIG, START, target, settle=False) == expected_ms
    assert duration_ms(CONFIG, START, target) == expected_ms + SETTLE_MS


def test_gripper_time_uses_its_own_scale_and_speed() -> None:
    target = (*START[:4], START[4] + 333)  # 30 degrees of the gripper servo
    assert channel_times_s(CONFIG, START, target)[4] == pytest.approx(30.0 / CONFIG.gripper.max_speed_deg_s)


@given(st.lists(st.integers(min_value=-300, max_value=300), min_size=5, max_size=5))
def test_the_slowest_channel_sets_the_duration(steps: list[int]) -> None:
    target = tuple(p + d for p, d in zip(START, steps, strict=True))
    slowest_s = max(channel_times_s(CONFIG, START, target))
    got_ms = duration_ms(CONFIG, START, target, settle=False)
    assert got_ms >= MIN_DURATION_MS
    assert got_ms >= slowest_s * PEAK * 1000 - 1e-6
    assert got_ms <= max(MIN_DURATION_MS, slowest_s * PEAK * 1000 + 1)


def test_a_slower_joint_makes_a_longer_segment() -> None:
    target = (START[0], START[1] + 300, *START[2:])
    slow_shoulder = replace(CONFIG.servos[1], max_speed_deg_s=CONFIG.servos[1].max_speed_deg_s / 2)
    slow = replace(CONFIG, servos=(CONFIG.servos[0], slow_shoulder, *CONFIG.servos[2:]))
    fast_ms = duration_ms(CONFIG, START, target, settle=False)
    assert duration_ms(slow, START, target, settle=False) == pytest.approx(2 * fast_ms, abs=1)


def test_no_motion_still_lasts_the_shortest_segment() -> None:
    assert duration_ms(CONFIG, START, START, settle=False) == MIN_DURATION_MS


@pytest.mark.parametrize(("settle_ms", "expected_ms"), [(0, 0), (1, MIN_DURATION_MS), (40, 40), (2000, 2000)])
def test_the_hold_after_a_gripper_move_is_the_settle_time_in_whole_ticks(settle_ms: int, expected_ms: int) -> None:
    config = replace(CONFIG, motion=replace(CONFIG.motion, settle_ms=settle_ms))
    assert dwell_ms(config) == expected_ms


def test_the_peak_ratio_is_the_profiles_own() -> None:
    assert abs(PEAK - min_jerk_peak_ratio()) < 1e-3


@given(st.lists(st.integers(min_value=-400, max_value=400), min_size=5, max_size=5))
def test_the_firmware_accepts_every_plain_move_the_host_times(steps: list[int]) -> None:
    # The board checks each plain MOVE's peak speed against the limits the host sent in CONFIG: a host that timed
    # plain moves with a smaller peak ratio than the firmware's would have them refused as E_TOO_FAST.
    mins, maxs, _start, speeds_us_s, _threshold = Robot("sim://", CONFIG).limits()
    target = [min(max(p + d, lo), hi) for p, d, lo, hi in zip(START, steps, mins, maxs, strict=True)]
    got_ms = duration_ms(CONFIG, START, target, settle=False)
    assert check_speeds(list(START), target, got_ms, list(speeds_us_s)) is None
    # The slowest channel's peak is at its limit: a shorter move would be refused. Where 3 % is less than the
    # rounding up to whole ms and to whole µs/s (a move of a few µs: 14 µs in 21 ms), 3 % shorter may still pass.
    if got_ms >= 100:
        assert check_speeds(list(START), target, int(got_ms * 0.97), list(speeds_us_s)) is not None


def test_a_config_that_sets_another_peak_ratio_is_refused_naming_the_key(tmp_path) -> None:
    def set_ratio(value: float):
        def edit(document) -> None:
            document["motion"]["profile_peak_ratio"] = value

        return edit

    path = tmp_path / "robot.toml"
    path.write_bytes(edited(set_ratio(1.5)))
    with pytest.raises(ConfigError, match=r"profile_peak_ratio = 1\.5 in section \[motion\].*delete the line"):
        load_config(path)
    path.write_bytes(edited(set_ratio(1.875)))  # an older robot file with the firmware's own ratio still loads
    assert load_config(path).motion == CONFIG.motion
