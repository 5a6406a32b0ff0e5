"""Tests of hanoibot.motion.calibration: both calibration forms, their inverses, slopes and bad input."""

from __future__ import annotations

import itertools

import pytest
from hanoibot.errors import ConfigError
from hanoibot.motion.calibration import LinearCalibration, PointsCalibration
from hypothesis import given
from hypothesis import strategies as st

angles = st.floats(min_value=-200.0, max_value=200.0)
pulses = st.floats(min_value=0.0, max_value=4000.0)


@st.composite
def point_sets(draw: st.DrawFn) -> PointsCalibration:
    """Random valid calibrations: 2..7 points, angles rising, pulses all rising or all falling."""
    count = draw(st.integers(min_value=2, max_value=7))
    angle_steps = draw(st.lists(st.floats(min_value=1.0, max_value=60.0), min_size=count - 1, max_size=count - 1))
    pulse_steps = draw(st.lists(st.floats(min_value=5.0, max_value=700.0), min_size=count - 1, max_size=count - 1))
    sign = draw(st.sampled_from([1, -1]))
    angle, pulse = draw(st.floats(min_value=-180.0, max_value=0.0)), 1500.0
    points = [(angle, pulse)]
    for da, dp in zip(angle_steps, pulse_steps, strict=True):
        angle, pulse = angle + da, pulse + sign * dp
        points.append((angle, pulse))
    return PointsCalibration(tuple(points))


# --- offset + direction + scale ----------------------------------------------------------------------------
def test_linear_calibration_sits_at_the_centre_pulse_at_the_offset_angle() -> None:
    calibration = LinearCalibration(center_us=1500.0, offset_deg=-75.0, direction=-1, us_per_deg=11.1)
    assert calibration.pulse_us(-75.0) == 1500.0
    # direction -1: ten degrees more is 111 µs less
    assert calibration.pulse_us(-65.0) == pytest.approx(1389.0)


@given(angles, st.sampled_from([1, -1]), st.floats(min_value=5.0, max_value=20.0), st.floats(-90.0, 90.0))
def test_linear_calibration_inverts(angle_deg: float, direction: int, us_per_deg: float, offset_deg: float) -> None:
    calibration = LinearCalibration(1500.0, offset_deg, direction, us_per_deg)
    assert calibration.angle_deg(calibration.pulse_us(angle_deg)) == pytest.approx(angle_deg, abs=1e-9)


@pytest.mark.parametrize(
    ("direction", "us_per_deg", "pattern"),
    [(0, 11.1, r"direction = 0: expected 1 or -1"), (1, 0.0, r"us_per_deg = 0.0: expected a positive")],
)
def test_linear_calibration_rejects_bad_values(direction: int, us_per_deg: float, pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        LinearCalibration(1500.0, 0.0, direction, us_per_deg)


# --- measured pairs ----------------------------------------------------------------------------------------
def test_points_calibration_passes_through_every_point_and_interpolates_between() -> None:
    calibration = PointsCalibration(((10.0, 620.0), (50.0, 1065.0), (90.0, 1500.0)))
    for angle_deg, pulse_us in calibration.points:
        assert calibration.pulse_us(angle_deg) == pytest.approx(pulse_us)
    assert calibration.pulse_us(30.0) == pytest.approx((620.0 + 1065.0) / 2)
    assert calibration.pulse_us(70.0) == pytest.approx((1065.0 + 1500.0) / 2)


def test_points_calibration_extrapolates_from_the_end_pieces() -> None:
    calibration = PointsCalibration(((0.0, 1000.0), (10.0, 1100.0), (20.0, 1300.0)))
    assert calibration.pulse_us(-10.0) == pytest.approx(900.0)
    assert calibration.pulse_us(30.0) == pytest.approx(1500.0)


@given(point_sets(), angles)
def test_points_calibration_inverts(calibration: PointsCalibration, angle_deg: float) -> None:
    assert calibration.angle_deg(calibration.pulse_us(angle_deg)) == pytest.approx(angle_deg, abs=1e-6)


@given(point_sets(), angles, angles)
def test_points_calibration_is_monotonic(calibration: PointsCalibration, a_deg: float, b_deg: float) -> None:
    rising = calibration.points[-1][1] > calibration.points[0][1]
    low, high = sorted((a_deg, b_deg))
    step = calibration.pulse_us(high) - calibration.pulse_us(low)
    assert step >= -1e-9 if rising else step <= 1e-9


@given(point_sets(), pulses, pulses)
def test_max_slope_bounds_every_step_within_the_interval(
    calibration: PointsCalibration, a_us: float, b_us: float
) -> None:
    # Oracle: the angle change over a fine grid of pulses never exceeds the claimed steepest slope.
    bound = calibration.max_deg_per_us(a_us, b_us)
    grid = [a_us + (b_us - a_us) * i / 64 for i in range(65)]
    for left, right in itertools.pairwise(grid):
        assert abs(calibration.angle_deg(right) - calibration.angle_deg(left)) <= bound * abs(right - left) + 1e-9


def test_max_slope_is_the_steepest_piece_touched() -> None:
    # pieces: 0.1 deg/µs (1000..1100), 0.05 deg/µs (1100..1300)
    calibration = PointsCalibration(((0.0, 1000.0), (10.0, 1100.0), (20.0, 1300.0)))
    assert calibration.max_deg_per_us(1150.0, 1250.0) == pytest.approx(0.05)
    assert calibration.max_deg_per_us(1050.0, 1250.0) == pytest.approx(0.1)
    assert calibration.max_deg_per_us(1400.0, 1500.0) == pytest.approx(0.05)
    assert LinearCalibration(1500.0, 0.0, -1, 10.0).max_deg_per_us(600.0, 2000.0) == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("points", "pattern"),
    [
        (((0.0, 1000.0),), r"1 calibration point\(s\): expected at least 2"),
        (((0.0, 1000.0), (0.0, 1100.0)), r"expected strictly rising angles"),
        (((0.0, 1000.0), (10.0, 1100.0), (20.0, 1050.0)), r"strictly rise or strictly fall"),
        (((0.0, 1000.0), (10.0, 1000.0)), r"strictly rise or strictly fall"),
    ],
)
def test_points_calibration_rejects_points_that_cannot_be_inverted(
    points: tuple[tuple[float, float], ...], pattern: str
) -> None:
    with pytest.raises(ConfigError, match=pattern):
        PointsCalibration(points)
