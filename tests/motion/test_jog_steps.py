"""``motion/jog_steps.py``: Cartesian jog steps through the kinematics, shortened at limits, and the way to a peg."""

from __future__ import annotations

import math

import legacy_arm
import pytest
from hanoibot.config import load_config
from hanoibot.errors import UnreachableError
from hanoibot.motion.jog_steps import (
    cartesian_target,
    clear_until,
    obstacle_at,
    peg_waypoints,
    tool_pose,
)
from hanoibot.motion.kinematics import Point

CONFIG = load_config()


@pytest.mark.parametrize("pitch_deg", [-90.0, -70.0, -45.0])
@pytest.mark.parametrize("point", [Point(160, -90, 20), Point(140, 30, 60), Point(190, 60, 10)])
def test_pitched_inverse_kinematics_is_undone_by_forward_kinematics(point: Point, pitch_deg: float) -> None:
    angles = CONFIG.grasp_angles(point, pitch_deg)
    assert math.dist(CONFIG.chain.grip_point(angles), point) < 1e-6
    assert CONFIG.chain.tool_pitch_deg(angles) == pytest.approx(pitch_deg)


def test_straight_down_it_agrees_with_the_grasp_modes_inverse_kinematics() -> None:
    point = Point(160, 0, 30)
    assert CONFIG.grasp_angles(point, -90.0) == pytest.approx(CONFIG.grasp_angles(point))


@pytest.mark.parametrize(("axis", "index"), [("x", 0), ("y", 1), ("z", 2)])
def test_a_step_moves_the_grip_point_along_its_axis_only(axis: str, index: int) -> None:
    start = CONFIG.start_pulses_us()
    before, pitch_deg = tool_pose(CONFIG, start)
    target, note = cartesian_target(CONFIG, start, axis, 5.0)
    after, new_pitch_deg = tool_pose(CONFIG, target)
    assert note is None
    moved = [a - b for a, b in zip(after, before, strict=True)]
    assert moved[index] == pytest.approx(5.0, abs=0.3)  # whole-µs pulses: a fraction of a mm
    assert all(abs(m) < 0.3 for i, m in enumerate(moved) if i != index)
    assert new_pitch_deg == pytest.approx(pitch_deg, abs=0.3)


def test_a_step_past_the_reach_is_shortened_and_says_why() -> None:
    start = CONFIG.start_pulses_us()
    target, note = cartesian_target(CONFIG, start, "x", 1000.0)
    assert note is not None and "puts the wrist" in note and "from the shoulder" in note
    arm = legacy_arm.default_arm()
    reach_mm = arm.upper_arm_mm + arm.forearm_mm + arm.tool_length_mm
    assert tool_pose(CONFIG, start)[0].x_mm + 50 < tool_pose(CONFIG, target)[0].x_mm < reach_mm
    with pytest.raises(UnreachableError):
        CONFIG.grasp_angles(Point(1000, 0, 0), -90.0)


def test_a_step_down_into_the_board_stops_above_it() -> None:
    start = CONFIG.start_pulses_us()
    target, _ = cartesian_target(CONFIG, start, "z", -400.0)
    stop, hit = clear_until(CONFIG, start, target)
    assert hit is not None and obstacle_at(CONFIG, stop) is None
    assert tool_pose(CONFIG, stop)[0].z_mm >= 0


@pytest.mark.parametrize("at_foot", [False, True])
@pytest.mark.parametrize("peg", range(3))
def test_the_way_to_a_peg_ends_there_and_touches_nothing(peg: int, at_foot: bool) -> None:
    pose = CONFIG.start_pulses_us()
    poses = peg_waypoints(CONFIG, pose, CONFIG.board.pegs[peg], at_foot=at_foot)
    for target in poses:
        assert clear_until(CONFIG, pose, target)[1] is None
        pose = target
    end, pitch_deg = tool_pose(CONFIG, pose)
    spot = CONFIG.board.pegs[peg]
    assert math.hypot(end.x_mm - spot.x_mm, end.y_mm - spot.y_mm) < 0.5 and pitch_deg == pytest.approx(-90, abs=0.3)
    if at_foot:
        assert end.z_mm == pytest.approx(CONFIG.board.grip_z_mm(0), abs=0.5)
    else:
        assert end.z_mm > spot.height_mm
