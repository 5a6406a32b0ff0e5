"""Tests of hanoibot.arm.ik_serial: the 4-joint closed form's IK exactly on the default arm (tests/legacy_arm.py),
FK∘IK the identity on every serial preset's workspace, the reasons a point is unreachable, and the chains the
family does not fit."""

from __future__ import annotations

import math
from dataclasses import replace

import legacy_arm
import pytest
from arm_checks import workspace as board_workspace
from hanoibot.arm import GraspMode, Point, SerialPitchIK, frames, load_preset
from hanoibot.errors import ConfigError, UnreachableError
from hypothesis import assume, given
from hypothesis import strategies as st

ARM = legacy_arm.default_arm()
SERIAL_PRESETS = ("default", "so101", "bracket6")
IK = {name: SerialPitchIK(load_preset(name).chain) for name in SERIAL_PRESETS}

# The workspace over a board: in front of the arm, from the table to above the peg tips.
workspace = st.builds(
    Point,
    st.floats(min_value=40.0, max_value=300.0),
    st.floats(min_value=-250.0, max_value=250.0),
    st.floats(min_value=0.0, max_value=160.0),
)


@given(workspace)
def test_the_default_preset_solves_as_the_4_joint_closed_form_does(point: Point) -> None:
    today = legacy_arm.inverse_kinematics(ARM, point)
    if today is None:
        with pytest.raises(UnreachableError, match=r"point \(x=.*\) mm"):
            IK["default"].solve(point, -90.0)
        return
    assert IK["default"].solve(point, -90.0) == pytest.approx(today, abs=1e-9)


@pytest.mark.parametrize("name", SERIAL_PRESETS)
@given(data=st.data(), level=st.booleans())
def test_fk_of_ik_is_the_identity_on_the_workspace(name: str, data: st.DataObject, level: bool) -> None:
    point = data.draw(board_workspace(name))
    ik = IK[name]
    pitch = 0.0 if level else ik.chain.grasp.pitch_deg
    try:
        angles = ik.solve(point, pitch)
    except UnreachableError:
        assume(False)
        raise
    assert math.dist(ik.chain.grip_point(angles), point) <= 1e-9
    assert ik.chain.tool_pitch_deg(angles) == pytest.approx(pitch, abs=1e-9)
    ik.chain.check_limits(angles)


@pytest.mark.parametrize("name", SERIAL_PRESETS)
def test_most_of_the_workspace_over_the_board_is_reachable(name: str) -> None:
    # The identity above would hold vacuously if nothing were reachable: count a grid over the board.
    ik = IK[name]
    reached = 0
    grid = [(x, y, z) for x in range(100, 221, 20) for y in range(-100, 101, 25) for z in range(0, 81, 20)]
    for point in grid:
        try:
            ik.solve(point, -90.0)
            reached += 1
        except UnreachableError:
            pass
    assert reached >= 0.8 * len(grid)


def test_the_so101s_upper_arm_offset_and_its_pan_axis_sit_where_its_urdf_puts_them() -> None:
    plane = IK["so101"].plane
    assert plane.links_mm[0] == pytest.approx((28.0, 112.57))  # 28 mm across the upper arm, 112.57 along it
    assert plane.upper_mm == pytest.approx(116.0, abs=0.01)
    assert plane.fore_mm == pytest.approx(135.0, abs=0.01)
    assert (plane.axis_x_mm, plane.axis_y_mm) == pytest.approx((0.0, 0.0), abs=1e-9)
    assert abs(plane.lateral_mm) < 0.05  # its joints' sideways offsets nearly cancel at the grip point
    assert plane.yaw_sign == -1.0  # the URDF's pan axis points down


def test_an_unreachable_point_names_the_distance_the_links_cannot_span() -> None:
    where = r"point \(x=500.0, y=0.0, z=10.0\) mm"
    with pytest.raises(
        UnreachableError, match=rf"{where} puts the wrist .* from the shoulder: expected 0.0 to 260.0 mm"
    ):
        IK["default"].solve((500.0, 0.0, 10.0), -90.0)
    with pytest.raises(UnreachableError, match="lies on the base axis"):
        IK["default"].solve((0.0, 0.0, 10.0), -90.0)
    with pytest.raises(UnreachableError, match=r"needs elbow at -161\.1 deg: expected -150 to 0 deg"):
        IK["default"].solve((40.0, 0.0, 0.0), -90.0)
    with pytest.raises(UnreachableError, match="needs shoulder_lift at"):
        IK["so101"].solve((30.0, 0.0, 3.0), -90.0)


def test_a_chain_with_a_coupled_pitch_joint_or_a_tilted_axis_does_not_fit() -> None:
    with pytest.raises(ConfigError, match="joint 'elbow' is coupled"):
        SerialPitchIK(load_preset("mearm").chain)
    default = load_preset("default").chain
    tilted = replace(default.joints[2], axis=frames.unit((0.0, -1.0, 0.1)))
    with pytest.raises(ConfigError, match="joint 'elbow' does not turn about an axis parallel to joint 'shoulder'"):
        SerialPitchIK(replace(default, joints=(*default.joints[:2], tilted, default.joints[3])))
    with pytest.raises(ConfigError, match="it moves 3 joints"):
        held = replace(default.joints[3], held_deg=0.0)
        SerialPitchIK(replace(default, joints=(*default.joints[:3], held), actuators=default.actuators[:3]))


def test_a_side_grasp_preset_asks_for_a_level_tool() -> None:
    assert load_preset("mearm").chain.grasp is GraspMode.SIDE
