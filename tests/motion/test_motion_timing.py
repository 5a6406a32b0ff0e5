"""Tests of hanoibot.motion.timing: durations from the slowest channel, the profile's peak and the settle time."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hanoibot.config import load_config
from hanoibot.motion.timing import MIN_DURATION_MS, channel_times_s, duration_ms, dwell_ms
from hypothesis import given
from hypothesis import strategies as st

CONFIG = load_config()
START = CONFIG.start_pulses_us()
PEAK = CONFIG.motion.profile_peak_ratio
SETTLE_MS = CONFIG.motion.settle_ms


def test_base_turn_takes_its_angle_over_its_speed_times_the_peak_ratio() -> None:
    # 555 µs on the base at 11.1 µs/deg is 50 degrees; at 180 deg/s that is 0.2778 s before the profile.
    target = (START[0] + 555, *START[1:])
    expected_ms = math.ceil(50.0 / CONFIG.arm.joints[0].max_speed_deg_s * PEAK * 1000)
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
    slow_shoulder = replace(CONFIG.arm.joints[1], max_speed_deg_s=CONFIG.arm.joints[1].max_speed_deg_s / 2)
    joints = (CONFIG.arm.joints[0], slow_shoulder, CONFIG.arm.joints[2], CONFIG.arm.joints[3])
    slow = replace(CONFIG, arm=replace(CONFIG.arm, joints=joints))
    fast_ms = duration_ms(CONFIG, START, target, settle=False)
    assert duration_ms(slow, START, target, settle=False) == pytest.approx(2 * fast_ms, abs=1)


def test_no_motion_still_lasts_the_shortest_segment() -> None:
    assert duration_ms(CONFIG, START, START, settle=False) == MIN_DURATION_MS


@pytest.mark.parametrize(("settle_ms", "expected_ms"), [(0, 0), (1, MIN_DURATION_MS), (40, 40), (2000, 2000)])
def test_the_hold_after_a_gripper_move_is_the_settle_time_in_whole_ticks(settle_ms: int, expected_ms: int) -> None:
    config = replace(CONFIG, motion=replace(CONFIG.motion, settle_ms=settle_ms))
    assert dwell_ms(config) == expected_ms
