"""Tests of hanoibot.arm.presets: each kit's preset loads, reaches its own board in its grasp mode, and holds its
sources' numbers (the default is robot.toml's arm and board, the SO-101 its URDF's joints); a bad preset file is
one error naming the key and section."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import legacy_arm
import pytest
from hanoibot.arm import PRESET_NAMES, GraspMode, check_reach, load_preset, make_ik, parse_preset, read_urdf
from hanoibot.config import load_config
from hanoibot.errors import ConfigError
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parent / "fixtures" / "so101_new_calib_joints.urdf"


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_reaches_every_pegs_foot_and_full_stack_in_its_grasp_mode(name: str) -> None:
    preset = load_preset(name)
    assert preset.name == name and preset.description
    check_reach(preset.board, make_ik(preset.chain))


def test_the_presets_grasp_modes_and_families() -> None:
    kinds = {name: (load_preset(name).chain.grasp, load_preset(name).chain.ik_family) for name in PRESET_NAMES}
    assert kinds == {
        "default": (GraspMode.TOP_DOWN, "serial_pitch"),
        "mearm": (GraspMode.SIDE, "parallelogram"),
        "so101": (GraspMode.TOP_DOWN, "serial_pitch"),
        "bracket6": (GraspMode.TOP_DOWN, "serial_pitch"),
    }


def test_the_default_preset_is_robot_toml_exactly() -> None:
    config = load_config()
    preset = load_preset("default")
    chain, arm = preset.chain, legacy_arm.default_arm()
    assert [j.origin_xyz_mm for j in chain.joints] == [
        (0.0, 0.0, 0.0),
        (0.0, 0.0, arm.shoulder_height_mm),
        (arm.upper_arm_mm, 0.0, 0.0),
        (arm.forearm_mm, 0.0, 0.0),
    ]
    assert chain.tool.grip_xyz_mm == (arm.tool_length_mm, 0.0, 0.0)
    for servo, joint in zip(chain.actuators, config.servos, strict=True):
        assert (servo.name, servo.min_deg, servo.max_deg, servo.max_speed_deg_s, servo.max_accel_deg_s2) == (
            joint.name,
            joint.min_deg,
            joint.max_deg,
            joint.max_speed_deg_s,
            joint.max_accel_deg_s2,
        )
    board = config.board
    assert [(p.x_mm, p.y_mm, p.height_mm) for p in preset.board.pegs] == [
        (p.x_mm, p.y_mm, p.height_mm) for p in board.pegs
    ]
    assert preset.board.disk_diameters_mm == board.disk_diameters_mm
    assert preset.board.disk_thickness_mm == board.disk_thickness_mm
    assert preset.board.peg_diameter_mm == board.peg_diameter_mm
    assert preset.board.disk_hole_diameter_mm == board.disk_hole_diameter_mm


SO101 = load_preset("so101").chain
PUBLISHED = read_urdf(FIXTURE, held_deg={"wrist_roll": 0.0}, mount_xyz_mm=SO101.mount_xyz_mm).chain


@given(st.tuples(*(st.floats(min_value=j.min_deg, max_value=j.max_deg) for j in SO101.joints[:4])))
def test_the_so101_preset_is_its_urdfs_arm(pose: tuple[float, ...]) -> None:
    # Its numbers are the URDF's in mm and degrees, with the exporter's rounded right angles made exact: the grip
    # point moves by thousandths of a millimetre for that.
    angles = (*pose, 0.0)
    assert math.dist(SO101.grip_point(angles), PUBLISHED.grip_point(angles)) <= 0.01
    assert SO101.tool_pitch_deg(angles) == pytest.approx(PUBLISHED.tool_pitch_deg(angles), abs=0.001)


def test_the_so101_presets_limits_are_its_urdfs() -> None:
    for ours, theirs in zip(SO101.joints[:4], PUBLISHED.joints[:4], strict=True):
        assert ours.name == theirs.name
        assert (ours.min_deg, ours.max_deg) == pytest.approx((theirs.min_deg, theirs.max_deg), abs=0.01)
    assert SO101.joints[4].name == "wrist_roll" and SO101.joints[4].held_deg == 0.0
    assert SO101.tool.actuator is not None and PUBLISHED.tool.actuator is not None
    assert SO101.tool.actuator.max_deg == pytest.approx(PUBLISHED.tool.actuator.max_deg, abs=0.01)
    # the pan axis stands on the arm frame's origin
    assert SO101.frames((0.0,) * 5)[0][3] == pytest.approx(0.0, abs=1e-9)


@given(st.floats(-80, 80), st.floats(10, 170), st.floats(-150, 0), st.floats(-130, 30))
def test_the_bracket_arm_is_the_default_arm_with_a_longer_held_wrist(b: float, s: float, e: float, w: float) -> None:
    bracket, default = load_preset("bracket6").chain, load_preset("default").chain
    longer = default.grip_point((b, s, e, w))
    reach = math.dist(default.joint_points((b, s, e, w))[3], longer)
    stretched = [
        d + (g - d) * 150.0 / reach for d, g in zip(default.joint_points((b, s, e, w))[3], longer, strict=True)
    ]
    assert math.dist(bracket.grip_point((b, s, e, w, 0.0)), stretched) <= 1e-9


def test_the_mearms_board_is_smaller_than_the_default_it_cannot_reach() -> None:
    mearm, default = load_preset("mearm"), load_preset("default")
    assert max(mearm.board.disk_diameters_mm) < max(default.board.disk_diameters_mm)
    with pytest.raises(ConfigError, match="peg A foot is out of the arm's reach"):
        check_reach(default.board, make_ik(mearm.chain))


def test_the_presets_ship_in_the_package() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "arm/presets/*.toml" in pyproject["tool"]["setuptools"]["package-data"]["hanoibot"]
    shipped = sorted(p.stem for p in (ROOT / "host" / "hanoibot" / "arm" / "presets").glob("*.toml"))
    assert shipped == sorted(PRESET_NAMES)


DEFAULT_TEXT = (ROOT / "host" / "hanoibot" / "arm" / "presets" / "default.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('ik = "serial_pitch"', 'ik = "delta"', r"\[arm\] ik = 'delta': expected one of 'serial_pitch'"),
        ("max_speed_deg_s = 180.0", "max_sped_deg_s = 180.0", r"\[arm.joints #1\] max_speed_deg_s is missing"),
        ("min_deg = -80.0", "min_deg = -80.0\nmin_dge = 1", r"\[arm.joints #1\] min_dge is not a known key; did you"),
        ("disk_count = 8", "disk_count = 7", r"\[board\] disk_count = 7: expected 8, the number of disk_diameters"),
        ("axis = [0.0, 0.0, 1.0]", "axis = [0.0, 0.0, 0.0]", r"\[arm.joints #1\] axis = \[0.0, 0.0, 0.0\]: expected a"),
        ("\n[board]\n", "\n[bord]\n", r"\[board\] peg_height_mm is missing: expected a number"),
        ("\n[arm]\n", "\n[arms]\n", r"\[arm\] grasp is missing"),
        ("[preset]", "[about]", r"\[preset\] is missing: expected a \[preset\] table"),
        ('grasp = "top_down"', 'grasp = "sideways"', r"\[arm\] grasp = 'sideways': expected one of 'top_down'"),
        ("[preset]", "[preset", "not TOML"),
    ],
)
def test_a_bad_preset_is_one_error_naming_the_key_and_section(old: str, new: str, message: str) -> None:
    assert old in DEFAULT_TEXT
    with pytest.raises(ConfigError, match=message):
        parse_preset(DEFAULT_TEXT.replace(old, new, 1), "test.toml")


def test_an_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="arm preset 'uarm': expected one of default, mearm, so101, bracket6"):
        load_preset("uarm")
