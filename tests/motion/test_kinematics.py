"""Tests of hanoibot.motion.kinematics: FK against hand geometry, IK∘FK round trips, limits, unreachable points."""

from __future__ import annotations

import math

import pytest
from hanoibot.config import load_config
from hanoibot.errors import UnreachableError
from hanoibot.motion.kinematics import (
    VERTICAL_DOWN_DEG,
    JointAngles,
    Point,
    arm_points,
    check_joint_limits,
    forward_kinematics,
    inverse_kinematics,
    tool_pitch_deg,
)
from hypothesis import assume, given
from hypothesis import strategies as st

CONFIG = load_config()
ARM = CONFIG.arm
BASE, SHOULDER, ELBOW, WRIST = ARM.joints


def joint_range(joint_index: int) -> st.SearchStrategy[float]:
    joint = ARM.joints[joint_index]
    return st.floats(min_value=joint.min_deg, max_value=joint.max_deg)


# The workspace over the board: in front of the arm, from the table up to above the peg tips.
workspace_points = st.builds(
    Point,
    st.floats(min_value=40.0, max_value=260.0),
    st.floats(min_value=-220.0, max_value=220.0),
    st.floats(min_value=0.0, max_value=140.0),
)


def test_start_pose_matches_hand_geometry() -> None:
    # Upper arm straight up, forearm level and forward, tool straight down (worked out from the link lengths).
    point = forward_kinematics(ARM, JointAngles(0.0, 90.0, -90.0, -90.0))
    assert point.x_mm == pytest.approx(ARM.forearm_mm)
    assert point.y_mm == pytest.approx(0.0, abs=1e-9)
    assert point.z_mm == pytest.approx(ARM.shoulder_height_mm + ARM.upper_arm_mm - ARM.tool_length_mm)


def test_stretched_level_arm_reaches_the_sum_of_all_links() -> None:
    point = forward_kinematics(ARM, JointAngles(90.0, 0.0, 0.0, 0.0))
    assert point.x_mm == pytest.approx(0.0, abs=1e-9)
    assert point.y_mm == pytest.approx(ARM.upper_arm_mm + ARM.forearm_mm + ARM.tool_length_mm)
    assert point.z_mm == pytest.approx(ARM.shoulder_height_mm)


@given(joint_range(0), joint_range(1), joint_range(2), joint_range(3))
def test_links_keep_their_lengths_and_the_base_yaw_sets_the_direction(
    base: float, shoulder: float, elbow: float, wrist: float
) -> None:
    shoulder_pt, elbow_pt, wrist_pt, grip = arm_points(ARM, JointAngles(base, shoulder, elbow, wrist))
    assert math.dist(shoulder_pt, elbow_pt) == pytest.approx(ARM.upper_arm_mm)
    assert math.dist(elbow_pt, wrist_pt) == pytest.approx(ARM.forearm_mm)
    assert math.dist(wrist_pt, grip) == pytest.approx(ARM.tool_length_mm)
    if math.hypot(grip.x_mm, grip.y_mm) > 1.0:
        # the whole arm lies in the vertical plane at the base yaw (possibly reaching back over the base)
        cross = grip.y_mm * math.cos(math.radians(base)) - grip.x_mm * math.sin(math.radians(base))
        assert cross == pytest.approx(0.0, abs=1e-6)


@given(workspace_points)
def test_ik_then_fk_round_trip_within_a_tenth_of_a_millimetre(point: Point) -> None:
    try:
        angles = inverse_kinematics(ARM, point)
    except UnreachableError:
        assume(False)
        raise
    reached = forward_kinematics(ARM, angles)
    assert math.dist(reached, point) <= 0.1
    assert tool_pitch_deg(angles) == pytest.approx(VERTICAL_DOWN_DEG)
    for joint, angle_deg in zip(ARM.joints, angles, strict=True):
        assert joint.min_deg - 1e-6 <= angle_deg <= joint.max_deg + 1e-6


@given(joint_range(0), joint_range(1), st.floats(min_value=ELBOW.min_deg, max_value=-1.0))
def test_fk_then_ik_recovers_the_elbow_up_pose(base: float, shoulder: float, elbow: float) -> None:
    angles = JointAngles(base, shoulder, elbow, VERTICAL_DOWN_DEG - shoulder - elbow)
    assume(WRIST.contains(angles.wrist_deg))
    point = forward_kinematics(ARM, angles)
    # only poses whose grip point lies in front of the base axis (behind it, the same point has yaw + 180)
    signed_radius_mm = ARM.upper_arm_mm * math.cos(math.radians(shoulder)) + ARM.forearm_mm * math.cos(
        math.radians(shoulder + elbow)
    )
    assume(signed_radius_mm > 10.0)
    # elbow up: the elbow stays above the shoulder-wrist line, the solution IK is asked to return
    solved = inverse_kinematics(ARM, point)
    assert tuple(solved) == pytest.approx(tuple(angles), abs=1e-6)


def test_every_peg_and_level_of_the_default_board_is_reachable() -> None:
    board = CONFIG.board
    for peg in board.pegs:
        for level in range(board.disk_count):
            target = Point(peg.x_mm, peg.y_mm, board.grip_z_mm(level))
            assert math.dist(forward_kinematics(ARM, inverse_kinematics(ARM, target)), target) <= 0.1


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
        inverse_kinematics(ARM, point)
    assert f"x={point.x_mm:.1f}" in str(err.value)


def test_joint_limit_check_names_the_joint_and_its_limits() -> None:
    with pytest.raises(UnreachableError, match=r"needs elbow at 5.0 deg: expected -150 to 0 deg"):
        check_joint_limits(ARM, JointAngles(0.0, 90.0, 5.0, -90.0))
