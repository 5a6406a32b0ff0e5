"""Tests of hanoibot.arm.chain: the default preset's forward kinematics is the 4-joint closed form's
(tests/legacy_arm.py) to 1e-9 mm, couplings map servos to joints and back, limits name the joint, a malformed chain
names what is wrong."""

from __future__ import annotations

import math
from dataclasses import replace

import legacy_arm
import pytest
from hanoibot.arm import Actuator, Chain, Coupling, GraspMode, Joint, Tool, load_preset
from hanoibot.arm.chain import DEFAULT_MAX_ACCEL_DEG_S2
from hanoibot.errors import ConfigError, UnreachableError
from hanoibot.motion import geometry
from hypothesis import given
from hypothesis import strategies as st

ARM = legacy_arm.default_arm()
DEFAULT = load_preset("default").chain
MEARM = load_preset("mearm").chain


def joint_range(index: int) -> st.SearchStrategy[float]:
    low, high = ARM.limits_deg[index]
    return st.floats(min_value=low, max_value=high)


@given(joint_range(0), joint_range(1), joint_range(2), joint_range(3))
def test_the_default_chain_puts_the_grip_point_where_the_closed_form_does(
    base: float, shoulder: float, elbow: float, wrist: float
) -> None:
    angles = (base, shoulder, elbow, wrist)
    today = legacy_arm.forward_kinematics(ARM, angles)
    assert math.dist(DEFAULT.grip_point(angles), today) <= 1e-9
    # the drawing's points too: shoulder, elbow and wrist axes, grip point (the base joint's origin comes first)
    points = DEFAULT.joint_points(angles)
    for ours, theirs in zip(points[1:], legacy_arm.arm_points(ARM, angles), strict=True):
        assert math.dist(ours, theirs) <= 1e-9
    # the fingers point along the tool's pitch sum in the base's heading (an elevation: past -90 it tilts back)
    pitch, heading = math.radians(legacy_arm.tool_pitch_deg(angles)), math.radians(base)
    expected = (math.cos(pitch) * math.cos(heading), math.cos(pitch) * math.sin(heading), math.sin(pitch))
    assert DEFAULT.approach(angles) == pytest.approx(expected, abs=1e-12)
    if abs(legacy_arm.tool_pitch_deg(angles)) <= 90.0:
        assert DEFAULT.tool_pitch_deg(angles) == pytest.approx(legacy_arm.tool_pitch_deg(angles), abs=1e-9)


def test_a_servo_without_an_acceleration_gets_motions_default() -> None:
    assert DEFAULT_MAX_ACCEL_DEG_S2 == geometry.DEFAULT_MAX_ACCEL_DEG_S2


def test_couplings_map_the_mearm_servos_to_its_joints_and_back() -> None:
    servos = (10.0, 70.0, -20.0)  # base, shoulder (upper arm from horizontal), forearm (from horizontal)
    joints = MEARM.joint_angles(servos)
    assert joints == (10.0, 70.0, -90.0, 20.0)  # elbow = forearm - shoulder, wrist = -forearm
    assert MEARM.actuator_angles(joints) == pytest.approx(servos, abs=1e-12)
    assert MEARM.tool_pitch_deg(joints) == pytest.approx(0.0, abs=1e-12)  # the claw stays level
    assert [s.name for s in MEARM.actuators] == ["base", "shoulder", "forearm"]


def test_a_held_joint_stays_at_its_angle_whatever_is_passed() -> None:
    so101 = load_preset("so101").chain
    pose = (10.0, 20.0, 30.0, 40.0, 0.0)
    assert so101.grip_point(pose) == so101.grip_point((*pose[:4], 77.0))
    assert so101.joint_angles(so101.actuator_angles(pose)) == pose
    assert len(so101.actuators) == 4  # the wrist roll has no servo of its own here


def test_limits_name_the_joint_and_the_servo() -> None:
    with pytest.raises(UnreachableError, match=r"somewhere needs elbow at 5\.0 deg: expected -150 to 0 deg"):
        DEFAULT.check_limits((0.0, 90.0, 5.0, -90.0), "somewhere")
    # the MeArm's forearm servo drives couplings only: its own travel is checked too
    with pytest.raises(UnreachableError, match=r"needs servo forearm at -80\.0 deg: expected -75 to 75 deg"):
        MEARM.check_limits(MEARM.joint_angles((0.0, 20.0, -80.0)))


def test_the_middle_pose_has_every_servo_mid_travel() -> None:
    assert DEFAULT.middle_pose() == (0.0, 90.0, -75.0, -50.0)


def joint(name: str, **changes: object) -> Joint:
    made = Joint(name, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), -90.0, 90.0)
    return replace(made, **changes)


def servo(name: str) -> Actuator:
    return Actuator(name, -90.0, 90.0, 100.0)


TOOL = Tool("gripper", (10.0, 0.0, 0.0), (1.0, 0.0, 0.0))


@pytest.mark.parametrize(
    ("joints", "servos", "message"),
    [
        ((), (), "has no joints"),
        ((joint("a"), joint("a")), (servo("a"),), "joint 'a' is named twice"),
        ((joint("a"),), (), "joint 'a' is driven by servo 'a', which the arm lacks"),
        ((joint("a"),), (servo("a"), servo("b")), "servo 'b' drives no joint"),
        ((joint("a", coupling=Coupling((("x", 1.0),))),), (servo("a"),), "driven by servo 'x'"),
        ((joint("a", axis=(0.0, 0.0, 2.0)),), (servo("a"),), r"axis = \[0.0, 0.0, 2.0\]: expected a unit vector"),
        ((joint("a", min_deg=-10.0),), (servo("a"),), "servo 'a' travels -90 to 90 deg: expected its joint's"),
        (
            (joint("a", coupling=Coupling((("s", 1.0),))), joint("b", coupling=Coupling((("s", 2.0), ("t", 4.0))))),
            (servo("s"), servo("t")),
            "",  # two couplings fix both servos: fine
        ),
        (
            (joint("a", coupling=Coupling((("s", 1.0), ("t", 1.0)))),),
            (servo("s"), servo("t")),
            "the couplings do not fix every servo's angle",
        ),
    ],
)
def test_a_malformed_chain_is_refused_naming_what_is_wrong(
    joints: tuple[Joint, ...], servos: tuple[Actuator, ...], message: str
) -> None:
    if not message:
        Chain("test", joints, servos, TOOL)
        return
    with pytest.raises(ConfigError, match=message):
        Chain("test", joints, servos, TOOL)


def test_an_unknown_ik_family_is_refused() -> None:
    with pytest.raises(ConfigError, match="ik = 'delta': expected one of serial_pitch, parallelogram, numeric"):
        Chain("test", (joint("a"),), (servo("a"),), TOOL, ik_family="delta")


def test_grasp_modes_ask_for_their_tool_pitch() -> None:
    assert GraspMode.TOP_DOWN.pitch_deg == -90.0
    assert GraspMode.SIDE.pitch_deg == 0.0


def test_a_joint_contains_its_limits_and_nothing_beyond() -> None:
    joint = Joint("elbow", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, -1.0, 0.0), -150.0, 0.0)
    assert joint.contains(-150.0) and joint.contains(0.0)
    assert not joint.contains(0.1) and not joint.contains(-150.1)
