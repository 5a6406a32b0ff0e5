"""Tests of motion's kinematics on the robot config's chain: the default robot plans exactly as the 4-joint closed
form it had before the arm became data (tests/legacy_arm.py, an independent oracle), IK∘FK round trips through the
servo pulses, limits and unreachable points named."""

from __future__ import annotations

import math

import legacy_arm
import pytest
from hanoibot.config import load_config
from hanoibot.errors import UnreachableError
from hanoibot.motion.kinematics import VERTICAL_DOWN_DEG, Point
from hypothesis import assume, given
from hypothesis import strategies as st

CONFIG = load_config()
LEGACY = legacy_arm.default_arm()


def joint_range(joint_index: int) -> st.SearchStrategy[float]:
    low, high = LEGACY.limits_deg[joint_index]
    return st.floats(min_value=low, max_value=high)


# The workspace over the board: in front of the arm, from the table up to above the peg tips.
workspace_points = st.builds(
    Point,
    st.floats(min_value=40.0, max_value=260.0),
    st.floats(min_value=-220.0, max_value=220.0),
    st.floats(min_value=0.0, max_value=140.0),
)


def test_start_pose_matches_hand_geometry() -> None:
    # Upper arm straight up, forearm level and forward, tool straight down (worked out from the link lengths).
    point = CONFIG.chain.grip_point((0.0, 90.0, -90.0, -90.0))
    assert point.x_mm == pytest.approx(LEGACY.forearm_mm)
    assert point.y_mm == pytest.approx(0.0, abs=1e-9)
    assert point.z_mm == pytest.approx(LEGACY.shoulder_height_mm + LEGACY.upper_arm_mm - LEGACY.tool_length_mm)


@given(joint_range(0), joint_range(1), joint_range(2), joint_range(3))
def test_the_config_arm_is_the_closed_form_of_the_4_joint_arm(
    base: float, shoulder: float, elbow: float, wrist: float
) -> None:
    angles = (base, shoulder, elbow, wrist)
    points = CONFIG.chain.joint_points(angles)
    # the base joint's origin, then the shoulder, elbow and wrist axes and the grip point
    assert points[0] == (0.0, 0.0, 0.0)
    for ours, theirs in zip(points[1:], legacy_arm.arm_points(LEGACY, angles), strict=True):
        assert math.dist(ours, theirs) <= 1e-9
    pulses = CONFIG.pose_pulses_us(angles, CONFIG.gripper.open_us)
    # through whole-µs pulses: within the rounding (half a µs, about 0.05 deg a joint)
    assert math.dist(CONFIG.grip_point(pulses), legacy_arm.forward_kinematics(LEGACY, angles)) <= 1.5


@given(workspace_points)
def test_ik_then_fk_round_trip_and_the_legacy_closed_form_agree(point: Point) -> None:
    legacy = legacy_arm.inverse_kinematics(LEGACY, point)
    try:
        angles = CONFIG.grasp_angles(point)
    except UnreachableError:
        assert legacy is None
        return
    assert legacy is not None
    assert angles == pytest.approx(legacy, abs=1e-9)
    assert math.dist(CONFIG.chain.grip_point(angles), point) <= 1e-6
    assert CONFIG.chain.tool_pitch_deg(angles) == pytest.approx(VERTICAL_DOWN_DEG, abs=1e-6)


@given(joint_range(0), joint_range(1), st.floats(min_value=LEGACY.limits_deg[2][0], max_value=-1.0))
def test_fk_then_ik_recovers_the_elbow_up_pose(base: float, shoulder: float, elbow: float) -> None:
    angles = (base, shoulder, elbow, VERTICAL_DOWN_DEG - shoulder - elbow)
    low, high = LEGACY.limits_deg[3]
    assume(low <= angles[3] <= high)
    point = CONFIG.chain.grip_point(angles)
    # only poses whose grip point lies in front of the base axis (behind it, the same point has yaw + 180)
    signed_radius_mm = LEGACY.upper_arm_mm * math.cos(math.radians(shoulder)) + LEGACY.forearm_mm * math.cos(
        math.radians(shoulder + elbow)
    )
    assume(signed_radius_mm > 10.0)
    # elbow up: the elbow stays above the shoulder-wrist line, the solution IK is asked to return
    assert CONFIG.grasp_angles(point) == pytest.approx(angles, abs=1e-6)


def test_every_peg_and_level_of_the_default_board_is_reachable_through_the_pulses() -> None:
    board = CONFIG.board
    for peg in board.pegs:
        for level in range(board.disk_count):
            target = Point(peg.x_mm, peg.y_mm, board.grip_z_mm(level))
            assert math.dist(CONFIG.grip_point(CONFIG.pulses_at(target, CONFIG.gripper.open_us)), target) <= 0.5


@pytest.mark.parametrize(
    ("point", "pattern"),
    [
        (Point(400.0, 0.0, 10.0), r"puts the wrist .* mm from the shoulder: expected 0.0 to 260.0 mm"),
        (Point(0.0, 0.0, 10.0), r"lies on the base axis"),
        (Point(-150.0, 10.0, 10.0), r"needs base at 176.2 deg: expected -80 to 80 deg"),
        (Point(5.0, 0.0, 200.0), r"needs (shoulder|elbow|wrist) at"),
    ],
)
def test_unreachable_points_raise_naming_the_point_and_the_reason(point: Point, pattern: str) -> None:
    with pytest.raises(UnreachableError, match=pattern) as err:
        CONFIG.grasp_angles(point)
    assert f"x={point.x_mm:.1f}" in str(err.value)


def test_joint_limit_check_names_the_joint_and_its_limits() -> None:
    with pytest.raises(UnreachableError, match=r"needs elbow at 5.0 deg: expected -150 to 0 deg"):
        CONFIG.chain.check_limits((0.0, 90.0, 5.0, -90.0))


def test_a_pose_and_its_pulses_go_both_ways_and_the_gripper_has_its_own_channel() -> None:
    angles = CONFIG.grasp_angles(Point(160.0, 0.0, 30.0))
    pulses = CONFIG.pose_pulses_us(angles, 1234)
    assert len(pulses) == CONFIG.channels == len(CONFIG.servos) + 1
    assert CONFIG.gripper_us(pulses) == 1234 and pulses[CONFIG.gripper_channel] == 1234
    assert CONFIG.joint_angles(pulses) == pytest.approx(angles, abs=0.1)  # whole µs: within a tenth of a degree
    assert CONFIG.with_gripper(pulses, 999)[CONFIG.gripper_channel] == 999
    assert CONFIG.channel_names() == ("base", "shoulder", "elbow", "wrist", "gripper")
