"""Tests of hanoibot.arm.ik_numeric against the analytic families as its oracle: on every preset it reaches what
they reach (within 0.01 mm), and warm-started near their answer it finds that answer."""

from __future__ import annotations

import math

import pytest
from arm_checks import workspace
from hanoibot.arm import NumericIK, Point, check_reach, load_preset, make_ik
from hanoibot.errors import UnreachableError
from hypothesis import assume, given, settings
from hypothesis import strategies as st

PRESETS = ("default", "mearm", "so101", "bracket6")
CHAINS = {name: load_preset(name).chain for name in PRESETS}
ANALYTIC = {name: make_ik(chain) for name, chain in CHAINS.items()}
NUMERIC = {name: NumericIK(chain) for name, chain in CHAINS.items()}

nudge = st.tuples(*(st.floats(min_value=-10.0, max_value=10.0) for _ in range(3)))


def analytic(name: str, point: Point) -> tuple[float, ...]:
    """The analytic family's answer at ``point`` in the preset's grasp mode (the example is dropped if none)."""
    try:
        return ANALYTIC[name].solve(point, CHAINS[name].grasp.pitch_deg)
    except UnreachableError:
        assume(False)
        raise


def well_inside(name: str, angles: tuple[float, ...]) -> bool:
    """True if the shoulder-wrist distance stays 2 % away from the links' shortest and longest spans (near them a
    seed a few degrees off may lie on the other elbow's side)."""
    chain = CHAINS[name]
    plane = ANALYTIC[name].plane  # type: ignore[attr-defined]
    points = chain.joint_points(angles)
    span = math.dist(points[plane.pitch_joints[0]], points[plane.pitch_joints[2]])
    return abs(plane.upper_mm - plane.fore_mm) * 1.02 + 2.0 < span < (plane.upper_mm + plane.fore_mm) * 0.98


@pytest.mark.parametrize("name", PRESETS)
@settings(max_examples=60)
@given(data=st.data(), step=nudge)
def test_warm_started_from_a_nearby_pose_it_reaches_what_the_analytic_family_reaches(
    name: str, data: st.DataObject, step: tuple[float, float, float]
) -> None:
    point = data.draw(workspace(name))
    # As planning does: the seed is the pose for a point up to 17 mm away.
    target = analytic(name, point)
    seed = analytic(name, Point(*(p + d for p, d in zip(point, step, strict=True))))
    angles = NUMERIC[name].solve(point, CHAINS[name].grasp.pitch_deg, seed)
    chain = CHAINS[name]
    assert math.dist(chain.grip_point(angles), chain.grip_point(target)) <= 0.01
    assert chain.tool_pitch_deg(angles) == pytest.approx(chain.grasp.pitch_deg, abs=0.01)
    chain.check_limits(angles)


@pytest.mark.parametrize("name", PRESETS)
@settings(max_examples=60)
@given(data=st.data(), offsets=st.lists(st.floats(min_value=-2.0, max_value=2.0), min_size=6, max_size=6))
def test_seeded_near_the_analytic_answer_it_finds_that_answer(
    name: str, data: st.DataObject, offsets: list[float]
) -> None:
    point = data.draw(workspace(name))
    target = analytic(name, point)
    assume(well_inside(name, target))
    chain = CHAINS[name]
    servos = [a + d for a, d in zip(chain.actuator_angles(target), offsets, strict=False)]
    angles = NUMERIC[name].solve(point, chain.grasp.pitch_deg, chain.joint_angles(servos))
    assert angles == pytest.approx(target, abs=1e-3)


@pytest.mark.parametrize("name", PRESETS)
def test_from_the_middle_of_the_servos_travel_it_serves_the_presets_board(name: str) -> None:
    check_reach(load_preset(name).board, NUMERIC[name])


def test_an_unreachable_point_names_how_near_it_came() -> None:
    with pytest.raises(UnreachableError, match=r"point \(x=600.0, y=0.0, z=50.0\) mm: the numeric IK came no nearer"):
        NUMERIC["default"].solve((600.0, 0.0, 50.0), -90.0)
    # a level claw asked to point down: the pitch cannot follow
    with pytest.raises(UnreachableError, match="deg off pitch -90"):
        NUMERIC["mearm"].solve((180.0, 0.0, 30.0), -90.0)


def test_a_point_reachable_only_beyond_a_limit_is_refused_by_both() -> None:
    # The MeArm would fold its elbow to -176 deg here (its linkage stops at -160); the numeric solve keeps the
    # servos within their travel and so comes no nearer than a few mm.
    with pytest.raises(UnreachableError, match=r"needs elbow at -176\.1 deg: expected -160 to -20 deg"):
        ANALYTIC["mearm"].solve((70.0, 0.0, 50.0), 0.0)
    with pytest.raises(UnreachableError, match="came no nearer than"):
        NUMERIC["mearm"].solve((70.0, 0.0, 50.0), 0.0)
