"""Tests of hanoibot.arm.ik_parallelogram: the MeArm's servo angles as its own libraries compute them (polar
coordinates, cosine rule), FK∘IK the identity on its workspace, and the pitch its claw is held at."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from arm_checks import workspace
from hanoibot.arm import Actuator, Coupling, ParallelogramIK, Point, load_preset
from hanoibot.errors import ConfigError, UnreachableError
from hypothesis import assume, given

PRESET = load_preset("mearm")
IK = ParallelogramIK(PRESET.chain)
SHOULDER_MM = 55.0

WORKSPACE = workspace("mearm")


def mearm_servos(point: Point) -> tuple[float, float, float]:
    """The MeArm's servo angles (degrees) by its own method, written here as an oracle: polar coordinates, the claw
    length off the radius, then the cosine rule (links 80/80, claw 68 mm; yorkhackspace/meArm, meArmPi)."""
    radius = math.hypot(point.x_mm, point.y_mm) - 68.0
    height = point.z_mm - SHOULDER_MM
    reach = math.hypot(radius, height)
    inner = math.acos((80.0**2 + reach**2 - 80.0**2) / (2 * 80.0 * reach))  # at the shoulder
    elbow = math.acos((80.0**2 + 80.0**2 - reach**2) / (2 * 80.0 * 80.0))  # between the links
    upper = math.atan2(height, radius) + inner
    forearm = elbow + upper - math.pi
    return math.degrees(math.atan2(point.y_mm, point.x_mm)), math.degrees(upper), math.degrees(forearm)


@given(WORKSPACE)
def test_the_servo_angles_are_the_mearms_own(point: Point) -> None:
    try:
        angles = IK.solve(point, 0.0)
    except UnreachableError:
        assume(False)
        raise
    assert IK.chain.actuator_angles(angles) == pytest.approx(mearm_servos(point), abs=1e-9)


@given(WORKSPACE)
def test_fk_of_ik_is_the_identity_on_the_workspace(point: Point) -> None:
    try:
        angles = IK.solve(point, 0.0)
    except UnreachableError:
        assume(False)
        raise
    assert math.dist(IK.chain.grip_point(angles), point) <= 1e-9
    assert IK.chain.tool_pitch_deg(angles) == pytest.approx(0.0, abs=1e-9)


def test_the_claw_is_held_level() -> None:
    assert IK.tool_pitch_deg == 0.0
    with pytest.raises(UnreachableError, match="with the claw at pitch -90 deg: a linkage holds it at 0 deg"):
        IK.solve((180.0, 0.0, 20.0), -90.0)


def test_an_unreachable_point_names_the_distance_or_the_servo() -> None:
    with pytest.raises(UnreachableError, match=r"puts the wrist .* from the shoulder: expected 0\.0 to 160\.0 mm"):
        IK.solve((300.0, 0.0, 20.0), 0.0)
    with pytest.raises(UnreachableError, match="needs servo forearm at"):
        IK.solve((150.0, 0.0, 0.0), 0.0)


def test_a_chain_whose_tool_pitch_follows_the_servos_does_not_fit() -> None:
    chain = PRESET.chain
    # the claw on a servo of its own: three servos for the pitch joints
    loose = replace(chain.joints[3], coupling=None)
    wrist = Actuator("wrist", loose.min_deg, loose.max_deg, 100.0)
    with pytest.raises(ConfigError, match="driven by servos shoulder, forearm, wrist: expected two"):
        ParallelogramIK(replace(chain, joints=(*chain.joints[:3], loose), actuators=(*chain.actuators, wrist)))
    # the claw's link driven by the shoulder alone: its pitch then changes with the forearm servo
    tipping = replace(chain.joints[3], coupling=Coupling((("shoulder", -1.0),)))
    with pytest.raises(ConfigError, match="the tool's pitch changes with the servos"):
        ParallelogramIK(replace(chain, joints=(*chain.joints[:3], tipping)))
