"""Tests of hanoibot.arm.urdf: a 5-joint arm written here and the SO-101's published joints import into chains whose
forward kinematics is the URDF's own (computed here from the XML by plain matrix products), and everything the
importer cannot map is named in one line each, never a traceback."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hanoibot.arm import NumericIK, parse_urdf, read_urdf
from hanoibot.errors import ConfigError
from hypothesis import given, settings
from hypothesis import strategies as st

FIXTURE = Path(__file__).parent / "fixtures" / "so101_new_calib_joints.urdf"

Matrix = list[list[float]]


# --- the oracle: the URDF's transforms, straight from the spec ------------------------------------------------
def matmul(a: Matrix, b: Matrix) -> Matrix:
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def translation(x: float, y: float, z: float) -> Matrix:
    return [[1, 0, 0, x], [0, 1, 0, y], [0, 0, 1, z], [0, 0, 0, 1]]


def about(axis: str, angle: float) -> Matrix:
    c, s = math.cos(angle), math.sin(angle)
    return {
        "x": [[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]],
        "y": [[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]],
        "z": [[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
    }[axis]


def quaternion_turn(axis: list[float], angle: float) -> Matrix:
    n = math.sqrt(sum(a * a for a in axis))
    x, y, z = (a / n * math.sin(angle / 2) for a in axis)
    w = math.cos(angle / 2)
    return [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 0],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 0],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), 0],
        [0, 0, 0, 1],
    ]


def urdf_point(text: str, tool_link: str, angles_rad: dict[str, float]) -> tuple[float, float, float]:
    """The tool link's origin (mm) in the root link's frame for joint values ``angles_rad`` (0 if absent)."""
    joints = {j.find("child").get("link"): j for j in ET.fromstring(text).findall("joint")}  # type: ignore[union-attr]
    chain = []
    link = tool_link
    while link in joints:
        chain.append(joints[link])
        link = joints[link].find("parent").get("link")  # type: ignore[union-attr]
    t: Matrix = translation(0, 0, 0)
    for joint in reversed(chain):
        origin = joint.find("origin")
        xyz = [float(v) for v in (origin.get("xyz", "0 0 0") if origin is not None else "0 0 0").split()]
        r, p, y = (float(v) for v in (origin.get("rpy", "0 0 0") if origin is not None else "0 0 0").split())
        t = matmul(t, translation(*xyz))
        t = matmul(t, matmul(about("z", y), matmul(about("y", p), about("x", r))))
        if joint.get("type") in ("revolute", "continuous"):
            axis_element = joint.find("axis")
            axis = [float(v) for v in (axis_element.get("xyz") if axis_element is not None else "1 0 0").split()]
            t = matmul(t, quaternion_turn(axis, angles_rad.get(joint.get("name", ""), 0.0)))
    return (t[0][3] * 1000.0, t[1][3] * 1000.0, t[2][3] * 1000.0)


# --- a 5-joint arm written here --------------------------------------------------------------------------------
FIVE_JOINTS = """<?xml version="1.0"?>
<robot name="five">
  <link name="world"/><link name="base"/><link name="l1"/><link name="l2"/><link name="l3"/><link name="l4"/>
  <link name="l5"/><link name="tool"/><link name="finger"/>
  <joint name="mount" type="fixed">
    <origin xyz="0 0 0.02" rpy="0 0 0.1"/><parent link="world"/><child link="base"/>
  </joint>
  <joint name="j1" type="revolute">
    <origin xyz="0.01 0 0.05"/><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" velocity="3" effort="1"/>
  </joint>
  <joint name="j2" type="revolute">
    <origin xyz="0 0.005 0.03" rpy="1.5707963267948966 0 0"/><parent link="l1"/><child link="l2"/>
    <axis xyz="0 0 1"/><limit lower="-1.5" upper="1.5" velocity="2" effort="1"/>
  </joint>
  <joint name="j3" type="revolute">
    <origin xyz="0.12 0 0" rpy="0 0 0.3"/><parent link="l2"/><child link="l3"/><axis xyz="0 0 -1"/>
    <limit lower="-2.5" upper="2.5" velocity="2" effort="1"/>
  </joint>
  <joint name="j4" type="revolute">
    <origin xyz="0.1 0.01 0"/><parent link="l3"/><child link="l4"/><axis xyz="0.6 0 0.8"/>
    <limit lower="-2" upper="2" velocity="2" effort="1"/>
  </joint>
  <joint name="j5" type="revolute">
    <origin xyz="0.02 0 0.01" rpy="0.2 -0.4 0.5"/><parent link="l4"/><child link="l5"/><axis xyz="1 0 0"/>
    <limit lower="-3" upper="3" velocity="4" effort="1"/>
  </joint>
  <joint name="tcp" type="fixed">
    <origin xyz="0.05 0 0" rpy="0 1.5707963267948966 0"/><parent link="l5"/><child link="tool"/>
  </joint>
  <joint name="gripper_joint" type="revolute">
    <origin xyz="0.03 0 0"/><parent link="l5"/><child link="finger"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="1.2" velocity="5" effort="1"/>
  </joint>
</robot>
"""
FIVE = parse_urdf(FIVE_JOINTS)
limits = [(-2.0, 2.0), (-1.5, 1.5), (-2.5, 2.5), (-2.0, 2.0), (-3.0, 3.0)]
five_poses = st.tuples(*(st.floats(min_value=low, max_value=high) for low, high in limits))


def test_the_five_joint_arm_imports_its_joints_tool_and_gripper() -> None:
    chain = FIVE.chain
    assert FIVE.notes == ()
    assert [j.name for j in chain.joints] == ["j1", "j2", "j3", "j4", "j5"]
    assert [a.name for a in chain.actuators] == ["j1", "j2", "j3", "j4", "j5"]
    assert chain.joints[1].max_deg == pytest.approx(math.degrees(1.5))
    assert chain.actuators[0].max_speed_deg_s == pytest.approx(math.degrees(3.0))
    assert chain.tool.name == "gripper_joint"
    assert chain.tool.actuator is not None and chain.tool.actuator.max_deg == pytest.approx(math.degrees(1.2))
    assert chain.ik_family == "numeric"  # no yaw + three parallel pitch joints here


@given(five_poses)
def test_the_five_joint_arms_fk_is_the_urdfs_own(pose: tuple[float, ...]) -> None:
    names = ["j1", "j2", "j3", "j4", "j5"]
    expected = urdf_point(FIVE_JOINTS, "tool", dict(zip(names, pose, strict=True)))
    got = FIVE.chain.grip_point([math.degrees(a) for a in pose])
    assert math.dist(got, expected) <= 1e-9


@settings(max_examples=40)
@given(five_poses, st.tuples(*(st.floats(min_value=-2.0, max_value=2.0) for _ in range(5))))
def test_the_numeric_ik_solves_the_five_joint_arm(pose: tuple[float, ...], offsets: tuple[float, ...]) -> None:
    # FK∘IK on a chain no analytic family fits: a pose's own grip point and pitch, from a seed a few degrees off.
    chain = FIVE.chain
    angles = [math.degrees(a) for a in pose]
    point, pitch = chain.grip_point(angles), chain.tool_pitch_deg(angles)
    seed = [a + d for a, d in zip(angles, offsets, strict=True)]
    solved = NumericIK(chain).solve(point, pitch, seed)
    assert math.dist(chain.grip_point(solved), point) <= 1e-4
    assert chain.tool_pitch_deg(solved) == pytest.approx(pitch, abs=0.01)


# --- the SO-101's published joints -------------------------------------------------------------------------------
SO101_TEXT = FIXTURE.read_text(encoding="utf-8")
SO101 = read_urdf(FIXTURE, held_deg={"wrist_roll": 0.0})
SO101_NAMES = ["shoulder_pan", "shoulder_lift", "elbow_flex", "wrist_flex"]
so101_poses = st.tuples(*(st.floats(min_value=-1.6, max_value=1.6) for _ in range(4)), st.floats(-2.7, 2.8))


def test_the_so101_imports_as_published() -> None:
    chain = SO101.chain
    assert SO101.notes == ()
    assert [j.name for j in chain.joints] == [*SO101_NAMES, "wrist_roll"]
    assert chain.joints[-1].held_deg == 0.0
    assert [round(j.max_deg, 2) for j in chain.joints[:4]] == [110.0, 100.0, 96.83, 95.0]
    assert chain.tool.name == "gripper"  # the jaw's joint, off the path to gripper_frame_link
    assert chain.tool.actuator is not None
    assert (chain.tool.actuator.min_deg, chain.tool.actuator.max_deg) == pytest.approx((-10.0, 100.0), abs=1e-3)
    assert chain.ik_family == "serial_pitch"  # its pitch axes are parallel to the exporter's rounding


@given(so101_poses)
def test_the_so101s_fk_is_its_urdfs_own(pose: tuple[float, ...]) -> None:
    held = read_urdf(FIXTURE)  # every joint moving, the wrist roll too
    names = [*SO101_NAMES, "wrist_roll"]
    expected = urdf_point(SO101_TEXT, "gripper_frame_link", dict(zip(names, pose, strict=True)))
    assert math.dist(held.chain.grip_point([math.degrees(a) for a in pose]), expected) <= 1e-9
    rolled = urdf_point(SO101_TEXT, "gripper_frame_link", dict(zip(SO101_NAMES, pose, strict=False)))
    assert math.dist(SO101.chain.grip_point([*(math.degrees(a) for a in pose[:4]), 0.0]), rolled) <= 1e-9


# --- what cannot be mapped ----------------------------------------------------------------------------------------
def arm_with(*joints: str) -> str:
    """A URDF: base -> a -> (the given joints, each to the next link) -> tool, with a revolute shoulder first."""
    links = ["base", "a"] + [f"l{i}" for i in range(len(joints))]
    body = [
        '<joint name="shoulder" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>'
        '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint>'
    ]
    for i, joint in enumerate(joints):
        parent = "a" if i == 0 else f"l{i - 1}"
        body.append(joint.format(parent=parent, child=f"l{i}"))
    tags = "".join(f'<link name="{name}"/>' for name in links)
    return f'<robot name="t">{tags}{"".join(body)}</robot>'


PRISMATIC = (
    '<joint name="slide" type="prismatic"><origin xyz="0.1 0 0"/><parent link="{parent}"/><child link="{child}"/>'
    '<axis xyz="1 0 0"/><limit lower="0" upper="0.1" velocity="1" effort="1"/></joint>'
)
LIMITLESS = (
    '<joint name="elbow" type="revolute"><origin xyz="0.1 0 0"/><parent link="{parent}"/><child link="{child}"/>'
    '<axis xyz="0 1 0"/></joint>'
)
CONTINUOUS = (
    '<joint name="spin" type="continuous"><parent link="{parent}"/><child link="{child}"/><axis xyz="1 0 0"/></joint>'
)


def test_a_prismatic_and_a_limitless_joint_are_named_one_line_each() -> None:
    imported = parse_urdf(arm_with(PRISMATIC, LIMITLESS))
    assert imported.notes == (
        "prismatic joint 'slide' slides: held at 0 (hanoibot maps revolute joints only)",
        "revolute joint 'elbow' has no limits (lower < upper): held at 0 deg",
        "no gripper joint found (a joint named like gripper/jaw/finger/claw): the tool has no servo",
    )
    assert all("\n" not in note for note in imported.notes)
    # what is held stays as geometry: the tool sits 200 mm out along the two held joints' origins
    assert [j.name for j in imported.chain.joints] == ["shoulder"]
    assert imported.chain.grip_point([0.0]) == pytest.approx((200.0, 0.0, 0.0))


def test_a_continuous_joint_a_stray_joint_and_mimic_joints_are_named_or_coupled() -> None:
    mimic_ok = (
        '<joint name="follower" type="revolute"><parent link="{parent}"/><child link="{child}"/><axis xyz="0 1 0"/>'
        '<limit lower="-2" upper="2" velocity="1" effort="1"/><mimic joint="shoulder" multiplier="-0.5" offset="0.1"/>'
        "</joint>"
    )
    mimic_lost = mimic_ok.replace('name="follower"', 'name="lost"').replace('joint="shoulder"', 'joint="nowhere"')
    text = arm_with(CONTINUOUS, mimic_ok, mimic_lost).replace(
        "</robot>",
        '<link name="cam"/><joint name="camera_tilt" type="revolute"><parent link="base"/><child link="cam"/>'
        '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint></robot>',
    )
    imported = parse_urdf(text, tool_link="l2")
    assert imported.notes == (
        "continuous joint 'spin' turns without limits: held at 0 (hanoibot maps revolute joints only)",
        "mimic joint 'lost' follows 'nowhere', no servo of the arm: held at 0 deg",
        "revolute joint 'camera_tilt' is not between base and l2: ignored",
        "no gripper joint found (a joint named like gripper/jaw/finger/claw): the tool has no servo",
    )
    follower = imported.chain.joints[1]
    assert follower.coupling is not None
    assert follower.coupling.gains == (("shoulder", -0.5),)
    assert follower.coupling.offset_deg == pytest.approx(math.degrees(0.1))
    assert [a.name for a in imported.chain.actuators] == ["shoulder"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<robot><joint", "not a URDF: unclosed token: line 1"),
        ("<sdf/>", "the root element is <sdf>: expected <robot>"),
        ('<robot name="r"><link name="a"/><link name="b"/></robot>', "2 root links"),
        (arm_with(PRISMATIC).replace('xyz="0.1 0 0"', 'xyz="0.1 zero 0"'), "joint 'slide' origin xyz = '0.1 zero 0'"),
        ('<robot name="r"><link name="a"/></robot>', "no revolute joint between a and a"),
    ],
)
def test_a_file_that_cannot_be_read_is_one_config_error(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_urdf(text, source="arm.urdf")
    assert str(caught.value).startswith("arm.urdf: ")
    assert "\n" not in str(caught.value)


def test_holding_a_joint_that_is_not_on_the_arm_is_refused() -> None:
    with pytest.raises(ConfigError, match="joint 'gripper' to hold is not between base_link and gripper_frame_link"):
        read_urdf(FIXTURE, held_deg={"gripper": 0.0})
    with pytest.raises(ConfigError, match="cannot read the URDF"):
        read_urdf(FIXTURE.with_name("missing.urdf"))
