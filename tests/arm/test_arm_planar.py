"""Tests of hanoibot.arm.planar: the plane geometry read off a chain, and its cheap forward kinematics."""

from __future__ import annotations

import math

import pytest
from hanoibot.arm import load_preset
from hanoibot.arm.planar import planar_arm, wrap_deg
from hypothesis import given
from hypothesis import strategies as st

CHAINS = {name: load_preset(name).chain for name in ("default", "so101", "bracket6", "mearm")}


@pytest.mark.parametrize("name", list(CHAINS))
@given(st.lists(st.floats(min_value=-90.0, max_value=90.0), min_size=4, max_size=4))
def test_the_planes_forward_kinematics_is_the_chains(name: str, pose: list[float]) -> None:
    chain = CHAINS[name]
    plane = planar_arm(chain, "test")
    angles = [joint.held_deg if joint.held_deg is not None else 0.0 for joint in chain.joints]
    for j, value in zip((plane.yaw_joint, *plane.pitch_joints), pose, strict=True):
        angles[j] = value
    pitch = (pose[1], pose[2], pose[3])
    assert math.dist(plane.grip_point(pose[0], pitch), chain.grip_point(angles)) <= 1e-9


def test_the_default_arms_plane_is_its_links_straight_out() -> None:
    plane = planar_arm(CHAINS["default"], "test")
    assert plane.links_mm == ((130.0, 0.0), (130.0, 0.0), (110.0, 0.0))
    assert (plane.shoulder_r_mm, plane.shoulder_z_mm, plane.lateral_mm) == (0.0, 95.0, 0.0)
    assert plane.pitch_signs == (1.0, 1.0, 1.0)


def test_wrapping_moves_by_whole_turns_only_when_needed() -> None:
    assert wrap_deg(190.0, 0.0) == -170.0
    assert wrap_deg(-75.0, -75.0) == -75.0
    assert wrap_deg(350.0, 200.0) == 350.0
