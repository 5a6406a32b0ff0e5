"""Tests of hanoibot.motion.hardware: the gripper's gap <-> pulse map and the servo's angle <-> pulse map."""

from __future__ import annotations

import math

import pytest
from hanoibot.config import load_config
from hypothesis import given
from hypothesis import strategies as st

CONFIG = load_config()
GRIPPER = CONFIG.gripper


def test_gripper_gap_at_the_open_and_closed_pulses() -> None:
    assert GRIPPER.width_mm(GRIPPER.open_us) == GRIPPER.open_width_mm
    assert GRIPPER.width_mm(GRIPPER.closed_us) == GRIPPER.closed_width_mm
    halfway_us = (GRIPPER.open_us + GRIPPER.closed_us) / 2
    assert GRIPPER.width_mm(halfway_us) == pytest.approx((GRIPPER.open_width_mm + GRIPPER.closed_width_mm) / 2)


@given(st.floats(min_value=0.0, max_value=72.0))
def test_gripper_width_and_pulse_are_inverse(width_mm: float) -> None:
    assert math.isclose(GRIPPER.width_mm(GRIPPER.pulse_for_width_us(width_mm)), width_mm, abs_tol=1e-9)


def test_gripper_pulse_is_clamped_to_the_open_closed_range() -> None:
    assert GRIPPER.pulse_for_width_us(500.0) == GRIPPER.open_us
    assert GRIPPER.pulse_for_width_us(-5.0) == GRIPPER.closed_us


@given(st.integers(min_value=0, max_value=3), st.floats(min_value=-90.0, max_value=90.0))
def test_servo_angle_and_pulse_are_inverse(index: int, angle_deg: float) -> None:
    servo = CONFIG.servos[index]
    assert servo.angle_deg(servo.pulse_us(angle_deg)) == pytest.approx(angle_deg, abs=1e-6)
