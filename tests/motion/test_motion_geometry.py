"""Tests of hanoibot.motion.geometry: stack heights, disk sizes and peg labels (a joint's limits are the arm's:
tests/arm/test_arm_chain.py)."""

from __future__ import annotations

import pytest
from hanoibot.config import load_config
from hanoibot.motion.geometry import peg_label
from hypothesis import given
from hypothesis import strategies as st

BOARD = load_config().board


@given(st.integers(min_value=0, max_value=20))
def test_grip_point_sits_half_a_disk_below_the_stack_top(level: int) -> None:
    assert BOARD.grip_z_mm(level) == pytest.approx(BOARD.stack_top_mm(level + 1) - BOARD.disk_thickness_mm / 2)


def test_disks_are_numbered_from_the_smallest() -> None:
    assert BOARD.disk_diameter_mm(1) == min(BOARD.disk_diameters_mm)
    assert BOARD.disk_diameter_mm(BOARD.disk_count) == max(BOARD.disk_diameters_mm)


def test_peg_distance_is_horizontal() -> None:
    assert BOARD.peg(1).distance_mm(BOARD.peg(1).x_mm + 3.0, BOARD.peg(1).y_mm + 4.0) == pytest.approx(5.0)


def test_peg_label_names_peg_and_level() -> None:
    assert peg_label(2) == "peg C"
    assert peg_label(0, 3) == "peg A level 3"
