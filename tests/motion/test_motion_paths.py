"""Tests of hanoibot.motion.paths: straight vertical lines and level moves built from joint-space pieces."""

from __future__ import annotations

import math

import pytest
from hanoibot.config import load_config
from hanoibot.motion.kinematics import Point
from hanoibot.motion.paths import (
    clear_height_mm,
    distance_to_line_mm,
    level_move,
    path_points,
    pegs_near_path,
    pulses_at,
    straight_line,
)
from hypothesis import given
from hypothesis import strategies as st

CONFIG = load_config()
OPEN_US = CONFIG.gripper.open_us
ROUNDING_MM = 0.6


def test_distance_to_line_against_hand_cases() -> None:
    start, end = Point(0.0, 0.0, 0.0), Point(0.0, 0.0, 10.0)
    assert distance_to_line_mm(Point(3.0, 4.0, 5.0), start, end) == pytest.approx(5.0)
    assert distance_to_line_mm(Point(0.0, 0.0, 13.0), start, end) == pytest.approx(3.0)  # beyond the end
    assert distance_to_line_mm(Point(1.0, 0.0, 0.0), start, start) == pytest.approx(1.0)


def test_path_points_run_from_start_to_end() -> None:
    a = pulses_at(CONFIG, Point(160.0, 0.0, 60.0), OPEN_US)
    b = pulses_at(CONFIG, Point(160.0, 90.0, 60.0), OPEN_US)
    path = path_points(CONFIG, a, b)
    assert math.dist(path[0], (160.0, 0.0, 60.0)) <= ROUNDING_MM
    assert math.dist(path[-1], (160.0, 90.0, 60.0)) <= ROUNDING_MM


@given(
    st.floats(min_value=140.0, max_value=200.0),
    st.floats(min_value=-120.0, max_value=120.0),
    st.floats(min_value=3.0, max_value=40.0),
    st.floats(min_value=60.0, max_value=80.0),
)
def test_straight_line_pieces_stay_within_the_tolerance(
    x_mm: float, y_mm: float, low_mm: float, high_mm: float
) -> None:
    top_us = pulses_at(CONFIG, Point(x_mm, y_mm, high_mm), OPEN_US)
    pieces = straight_line(CONFIG, top_us, Point(x_mm, y_mm, low_mm), OPEN_US)
    pose = top_us
    for piece in pieces:
        for point in path_points(CONFIG, pose, piece):
            assert math.hypot(point.x_mm - x_mm, point.y_mm - y_mm) <= CONFIG.motion.line_tolerance_mm + ROUNDING_MM
        pose = piece
    assert CONFIG.grip_point(pieces[-1]).z_mm == pytest.approx(low_mm, abs=ROUNDING_MM)


def test_level_move_does_not_sag_below_its_ends() -> None:
    a = pulses_at(CONFIG, Point(130.0, -150.0, 70.0), OPEN_US)
    pieces = level_move(CONFIG, a, Point(220.0, 60.0, 70.0), OPEN_US)
    pose = a
    for piece in pieces:
        lowest = min(p.z_mm for p in path_points(CONFIG, pose, piece))
        assert lowest >= 70.0 - CONFIG.motion.line_tolerance_mm - ROUNDING_MM
        pose = piece


def test_pegs_near_path_finds_the_peg_passed_over_but_not_the_one_passed_by() -> None:
    a = pulses_at(CONFIG, Point(160.0, -90.0, 80.0), OPEN_US)
    b = pulses_at(CONFIG, Point(160.0, 90.0, 80.0), OPEN_US)
    # the base swings the grip point round an arc about 24 mm beyond peg B's axis
    assert pegs_near_path(CONFIG, a, b, 40.0) == [0, 1, 2]
    assert pegs_near_path(CONFIG, a, b, 10.0) == [0, 2]


def test_clear_height_is_the_peg_tip_or_a_taller_stack() -> None:
    peg = CONFIG.board.peg(0)
    assert clear_height_mm(peg, 3, 6.0) == peg.height_mm
    assert clear_height_mm(peg, 20, 6.0) == 120.0
