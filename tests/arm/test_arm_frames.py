"""Tests of hanoibot.arm.frames: URDF roll-pitch-yaw both ways, the short turns against Rodrigues' matrix."""

from __future__ import annotations

import math

import pytest
from hanoibot.arm import frames
from hypothesis import given
from hypothesis import strategies as st

angles = st.floats(min_value=-179.0, max_value=179.0)
axes = st.sampled_from([(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (-1.0, 0.0, 0.0), (0.0, -1.0, 0.0)])


def close(a: tuple[float, ...], b: tuple[float, ...], tolerance: float = 1e-12) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def test_rpy_is_roll_then_pitch_then_yaw_about_fixed_axes() -> None:
    # URDF: R = Rz(yaw) Ry(pitch) Rx(roll); a quarter roll then a quarter yaw takes y to z and x to y.
    t = frames.from_xyz_rpy((1.0, 2.0, 3.0), (90.0, 0.0, 90.0))
    assert close(frames.turn(t, (0.0, 1.0, 0.0)), (0.0, 0.0, 1.0))
    assert close(frames.turn(t, (1.0, 0.0, 0.0)), (0.0, 1.0, 0.0))
    assert frames.apply(t, (0.0, 0.0, 0.0)) == (1.0, 2.0, 3.0)


@given(angles, st.floats(min_value=-89.0, max_value=89.0), angles)
def test_rpy_read_back_from_a_transform(roll: float, pitch: float, yaw: float) -> None:
    back = frames.rpy_deg_of(frames.from_xyz_rpy((0.0, 0.0, 0.0), (roll, pitch, yaw)))
    assert back == pytest.approx((roll, pitch, yaw), abs=1e-9)


@given(axes, angles, angles, angles)
def test_a_short_turn_equals_the_full_rotation(axis: frames.Vec3, angle: float, roll: float, yaw: float) -> None:
    start = frames.from_xyz_rpy((5.0, -3.0, 2.0), (roll, 30.0, yaw))
    assert close(frames.turned(start, axis, angle), frames.compose(start, frames.rotation_about(axis, angle)))


def test_a_turn_about_a_slanted_axis_keeps_that_axis() -> None:
    axis = frames.unit((1.0, 1.0, 1.0))
    t = frames.turned(frames.IDENTITY, axis, 120.0)
    assert close(frames.turn(t, axis), axis)
    # a third of a turn about the diagonal cycles the coordinate axes
    assert close(frames.turn(t, (1.0, 0.0, 0.0)), (0.0, 1.0, 0.0), 1e-12)


def test_shifted_is_a_move_in_the_frames_own_axes() -> None:
    t = frames.from_xyz_rpy((0.0, 0.0, 10.0), (0.0, 0.0, 90.0))
    assert close(frames.shifted(t, (1.0, 0.0, 0.0)), frames.compose(t, frames.from_xyz_rpy((1.0, 0.0, 0.0), (0, 0, 0))))


def test_a_zero_vector_has_no_direction() -> None:
    with pytest.raises(ValueError, match="no direction"):
        frames.unit((0.0, 0.0, 0.0))
    assert frames.unit((3.0, 0.0, 4.0)) == pytest.approx((0.6, 0.0, 0.8))
    assert math.isclose(frames.dot(frames.cross((1, 0, 0), (0, 1, 0)), (0, 0, 1)), 1.0)
