"""Fitting a bus servo's offset and direction to measured poses, and its limits to a swept range.

Oracles: synthetic servos with a known offset and direction (the pulses each pose must read are computed here from
the linear map, not by the module), and the one-turn-is-2000-µs scale of hanoifw.busservos written out."""

from __future__ import annotations

import pytest
from hanoibot.config import load_config
from hanoibot.motion.calibration import LinearCalibration
from hanoibot.motion.joint_fit import (
    BUS_US_PER_DEG,
    MIN_SPREAD_DEG,
    RANGE_MARGIN_DEG,
    PoseKey,
    expected_servo_angles,
    fit_joint,
    swept_limits,
)

US_PER_DEG = 2000 / 360


def reading_us(angle_deg: float, offset_deg: float, direction: int, center_us: float = 1500.0) -> float:
    """The pulse a servo with ``offset_deg`` and ``direction`` reads at ``angle_deg``."""
    return center_us + direction * US_PER_DEG * (angle_deg - offset_deg)


@pytest.mark.parametrize("direction", [1, -1])
def test_the_fit_finds_the_offset_and_the_direction_whatever_the_config_said(direction: int) -> None:
    angles = [22.9, 6.2, 36.1, 19.1, 22.9, 6.2]
    pulses = [reading_us(a, 4.0, direction) for a in angles]
    for assumed in (1, -1):
        fit = fit_joint("elbow", angles, pulses, [True, False] * 3, center_us=1500.0, direction=assumed)
        assert (fit.direction, fit.direction_judged) == (direction, True)
        assert fit.offset_deg == pytest.approx(4.0, abs=0.01) and fit.error_deg < 0.01


def test_the_offset_comes_from_the_precise_poses_only() -> None:
    angles = [10.0, 40.0, 20.0, 50.0]
    pulses = [reading_us(a, 0.0, 1) for a in angles]
    pulses[1] += 3 * US_PER_DEG  # a pose above a peg, 3 degrees off: it helps tell the direction, no more
    fit = fit_joint("lift", angles, pulses, [True, False, True, False], center_us=1500.0, direction=1)
    assert fit.offset_deg == pytest.approx(0.0, abs=0.01) and fit.error_deg == pytest.approx(3.0, abs=0.01)


def test_a_servo_the_poses_barely_turn_keeps_the_configs_direction() -> None:
    angles = [0.0, 0.0, MIN_SPREAD_DEG / 2]
    pulses = [reading_us(a, -5.0, -1) for a in angles]
    fit = fit_joint("roll", angles, pulses, [True] * 3, center_us=1500.0, direction=1)
    assert (fit.direction, fit.direction_judged) == (1, False)


def test_the_swept_range_is_the_pulse_limits_and_the_joint_stays_a_margin_inside() -> None:
    calibration = LinearCalibration(1500.0, 0.0, -1, BUS_US_PER_DEG)
    limits = swept_limits(900.0, 2100.0, calibration, [1500.0], [0.0])
    assert limits is not None and (limits.min_us, limits.max_us) == (900, 2100)
    ends_deg = (600 / US_PER_DEG, -600 / US_PER_DEG)  # 2100 µs is the low end of a reversed servo
    assert limits.min_deg == pytest.approx(ends_deg[1] + RANGE_MARGIN_DEG, abs=0.01)
    assert limits.max_deg == pytest.approx(ends_deg[0] - RANGE_MARGIN_DEG, abs=0.01)


def test_a_pose_outside_the_sweep_widens_the_limits_and_a_joint_left_alone_is_not_swept() -> None:
    calibration = LinearCalibration(1500.0, 0.0, 1, BUS_US_PER_DEG)
    limits = swept_limits(1400.0, 1600.0, calibration, [1650.0], [0.0])
    assert limits is not None and limits.max_us == 1650 and limits.max_deg >= 150 / US_PER_DEG
    assert swept_limits(1500.0, 1500.0 + 5 * US_PER_DEG, calibration, [], []) is None


def test_the_expected_angles_at_a_peg_put_the_grip_point_on_it() -> None:
    config = load_config()
    peg = config.board.pegs[1]
    angles = expected_servo_angles(config, PoseKey(1, "foot"))
    pulses = [*(round(s.pulse_us(a)) for s, a in zip(config.servos, angles, strict=True)), config.gripper.open_us]
    point = config.grip_point(pulses)
    assert abs(point.x_mm - peg.x_mm) < 1.0 and abs(point.y_mm - peg.y_mm) < 1.0
    assert abs(point.z_mm - config.board.grip_z_mm(0)) < 1.0
