"""The simulated arm's body: pulses -> true joint angles -> fingertip position and gap."""

from __future__ import annotations

import math

import pytest
from hanoibot.config import load_config
from hanoibot.errors import ConfigError
from hanoibot.motion.kinematics import Point
from hanoibot.sim.arm import SimArm
from hypothesis import given
from hypothesis import strategies as st

CONFIG = load_config()
GRIPPER = CONFIG.gripper

# Grip points around the default board (pegs at x = 160 mm, y = -90..90 mm, tips at 55 mm).
reachable = st.builds(Point, st.floats(130.0, 190.0), st.floats(-100.0, 100.0), st.floats(5.0, 110.0))


def pulses_for(point: Point, gripper_us: float = GRIPPER.open_us) -> list[float]:
    """Unrounded channel pulses (µs) that the config says put the grip point at ``point``."""
    servo_deg = CONFIG.chain.actuator_angles(CONFIG.grasp_angles(point))
    return [servo.pulse_us(a) for servo, a in zip(CONFIG.servos, servo_deg, strict=True)] + [gripper_us]


@given(reachable)
def test_a_true_arm_puts_the_fingertips_where_the_config_aims_them(point: Point) -> None:
    pose = SimArm(CONFIG).pose(pulses_for(point))
    assert pose is not None
    assert (pose.x_mm, pose.y_mm, pose.z_mm) == pytest.approx(tuple(point), abs=1e-6)


@given(reachable, st.sampled_from([10.0, -10.0, 3.0]))
def test_a_base_servo_mounted_off_turns_the_whole_arm_about_the_vertical_axis(point: Point, offset_deg: float) -> None:
    pose = SimArm(CONFIG, servo_offsets_deg=(offset_deg, 0, 0, 0)).pose(pulses_for(point))
    assert pose is not None
    c, s = math.cos(math.radians(offset_deg)), math.sin(math.radians(offset_deg))
    expected = (point.x_mm * c - point.y_mm * s, point.x_mm * s + point.y_mm * c, point.z_mm)
    assert (pose.x_mm, pose.y_mm, pose.z_mm) == pytest.approx(expected, abs=1e-6)


@given(reachable, st.sampled_from([10.0, -10.0]))
def test_a_shoulder_servo_mounted_off_swings_the_fingertips_about_the_shoulder_axis(
    point: Point, offset_deg: float
) -> None:
    pose = SimArm(CONFIG, servo_offsets_deg=(0, offset_deg, 0, 0)).pose(pulses_for(point))
    assert pose is not None
    shoulder_z = CONFIG.chain.joints[1].origin_xyz_mm[2]  # the shoulder axis above the base joint
    aimed = (math.hypot(point.x_mm, point.y_mm), point.z_mm - shoulder_z)
    got = (math.hypot(pose.x_mm, pose.y_mm), pose.z_mm - shoulder_z)
    assert math.hypot(*got) == pytest.approx(math.hypot(*aimed), abs=1e-6)  # same distance from the shoulder
    swing_deg = math.degrees(math.atan2(got[1], got[0]) - math.atan2(aimed[1], aimed[0]))
    assert swing_deg == pytest.approx(offset_deg, abs=1e-6)


@given(st.floats(0.0, 1.0))
def test_the_finger_gap_follows_the_gripper_pulse_between_open_and_closed(fraction: float) -> None:
    arm = SimArm(CONFIG)
    pulse_us = GRIPPER.open_us + fraction * (GRIPPER.closed_us - GRIPPER.open_us)
    expected = GRIPPER.open_width_mm + fraction * (GRIPPER.closed_width_mm - GRIPPER.open_width_mm)
    assert arm.finger_gap_mm(pulse_us) == pytest.approx(expected)


def test_the_fingers_stop_at_their_mechanical_ends() -> None:
    arm = SimArm(CONFIG)
    beyond_open = GRIPPER.open_us - (GRIPPER.closed_us - GRIPPER.open_us)
    beyond_closed = GRIPPER.closed_us + (GRIPPER.closed_us - GRIPPER.open_us)
    assert arm.finger_gap_mm(beyond_open) == GRIPPER.open_width_mm
    assert arm.finger_gap_mm(beyond_closed) == GRIPPER.closed_width_mm


def test_an_unpowered_channel_leaves_the_pose_unknown() -> None:
    arm = SimArm(CONFIG)
    pulses = [round(p) for p in pulses_for(Point(160.0, 0.0, 60.0))]
    for channel in range(CONFIG.channels):
        partial: list[int | None] = list(pulses)
        partial[channel] = None
        assert arm.pose(partial) is None
    limp: list[int | None] = list(pulses)
    limp[CONFIG.gripper_channel] = None
    assert arm.points_mm(limp) is not None  # the arm's servos alone still place its links


def test_offsets_for_other_than_the_arms_servos_are_refused() -> None:
    with pytest.raises(
        ConfigError, match=r"servo_offsets_deg has 3 entries: expected 4 \(base, shoulder, elbow, wrist\)"
    ):
        SimArm(CONFIG, servo_offsets_deg=(1.0, 2.0, 3.0))
