"""Tests of hanoibot.arm.board: the grip points that prove a board is reachable, top-down and side-on."""

from __future__ import annotations

import pytest
from hanoibot.arm import BoardLayout, GraspMode, PegSpot, Point, check_reach, grasp_targets, load_preset, make_ik
from hanoibot.errors import UnreachableError

BOARD = BoardLayout(
    pegs=(PegSpot(100.0, 0.0, 40.0), PegSpot(0.0, 150.0, 50.0)),
    peg_diameter_mm=8.0,
    disk_diameters_mm=(20.0, 30.0, 40.0),
    disk_thickness_mm=10.0,
    disk_hole_diameter_mm=10.0,
)


def test_top_down_grips_on_the_pegs_axis_at_the_foot_the_full_stacks_top_and_above_the_tip() -> None:
    assert grasp_targets(BOARD, GraspMode.TOP_DOWN)[:3] == (
        ("peg A foot", Point(100.0, 0.0, 5.0)),
        ("peg A top of 3 disks", Point(100.0, 0.0, 25.0)),
        ("peg A above its tip", Point(100.0, 0.0, 45.0)),
    )


def test_side_on_grips_the_rim_that_faces_the_arm() -> None:
    targets = dict(grasp_targets(BOARD, GraspMode.SIDE))
    assert targets["peg A foot"] == pytest.approx((80.0, 0.0, 5.0))  # the largest disk's rim, 20 mm nearer
    assert targets["peg A top of 3 disks"] == pytest.approx((90.0, 0.0, 25.0))  # the smallest's, 10 mm nearer
    assert targets["peg B above its tip"] == pytest.approx((0.0, 130.0, 55.0))


def test_a_board_out_of_reach_names_the_peg_and_the_place() -> None:
    far = BoardLayout((PegSpot(400.0, 0.0, 55.0),), 8.0, (20.0,), 6.0, 10.0)
    with pytest.raises(UnreachableError, match=r"peg A foot is out of the arm's reach: point \(x=400.0"):
        check_reach(far, make_ik(load_preset("default").chain))
