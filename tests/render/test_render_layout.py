"""The page layout: pegs and arm points in a cabinet projection across the first-to-last peg line."""

from __future__ import annotations

import math

import pytest
from hanoibot.render.layout import (
    DEPTH_U_PER_MM,
    DEPTH_Z_PER_MM,
    BoardLayout,
    layout_from_pegs,
    schematic_layout,
)
from hypothesis import given
from hypothesis import strategies as st

coords = st.floats(-300, 300)


def layout_for(pegs: list[tuple[float, float]]) -> BoardLayout:
    """A layout of ``pegs`` (arm frame, mm) with fixed sizes."""
    return layout_from_pegs(
        pegs, peg_height_mm=80.0, peg_diameter_mm=8.0, disk_diameters_mm=(20.0, 30.0), disk_thickness_mm=10.0
    )


@given(coords, coords, st.floats(0, 2 * math.pi), st.lists(st.floats(30, 150), min_size=2, max_size=6), coords)
def test_pegs_in_a_row_keep_their_spacing_and_depth_recedes_towards_the_arm(
    x0: float, y0: float, heading: float, gaps: list[float], side_mm: float
) -> None:
    direction = (math.cos(heading), math.sin(heading))
    normal = (-direction[1], direction[0])
    along = [sum(gaps[:i]) for i in range(len(gaps) + 1)]
    pegs = [(x0 + a * direction[0], y0 + a * direction[1]) for a in along]
    layout = layout_for(pegs)
    assert layout.peg_u_mm == pytest.approx(along, abs=1e-6)
    assert layout.peg_foot_z_mm == pytest.approx([0.0] * len(pegs), abs=1e-6)
    # The arm base (the origin) lies behind the row: depth counts positive on its side.
    base_side = -(x0 * normal[0] + y0 * normal[1])
    sign = 1.0 if base_side >= 0 else -1.0
    k = len(pegs) // 2
    beside = (pegs[k][0] + side_mm * normal[0], pegs[k][1] + side_mm * normal[1], 42.0)
    depth = sign * side_mm
    assert layout.project(beside) == pytest.approx((along[k] + depth * DEPTH_U_PER_MM, 42.0 + depth * DEPTH_Z_PER_MM))
    base_along = -(x0 * direction[0] + y0 * direction[1])
    assert layout.base_mm == pytest.approx(
        (base_along + abs(base_side) * DEPTH_U_PER_MM, abs(base_side) * DEPTH_Z_PER_MM), abs=1e-6
    )


@given(st.floats(120, 250), st.lists(st.floats(-80, 80), min_size=3, max_size=6, unique=True), st.floats(0, 200))
def test_a_point_right_above_a_peg_is_drawn_right_above_its_foot(
    radius_mm: float, angles_deg: list[float], z_mm: float
) -> None:
    pegs = [(radius_mm * math.cos(math.radians(a)), radius_mm * math.sin(math.radians(a))) for a in sorted(angles_deg)]
    layout = layout_for(pegs)
    for k, (x, y) in enumerate(pegs):
        assert layout.project((x, y, z_mm)) == pytest.approx((layout.peg_u_mm[k], layout.foot_z_mm(k) + z_mm))


@given(st.integers(3, 8), st.integers(1, 12))
def test_the_schematic_board_spaces_pegs_wider_than_the_widest_disk_and_taller_than_the_stack(
    pegs: int, n_disks: int
) -> None:
    layout = schematic_layout(pegs, n_disks)
    assert len(layout.peg_u_mm) == pegs and layout.base_mm is None
    gaps = [b - a for a, b in zip(layout.peg_u_mm, layout.peg_u_mm[1:], strict=False)]
    assert min(gaps) > max(layout.disk_diameters_mm)
    assert layout.peg_height_mm > n_disks * layout.disk_thickness_mm
    assert list(layout.disk_diameters_mm) == sorted(set(layout.disk_diameters_mm))


def test_disks_past_the_configured_set_keep_growing() -> None:
    layout = schematic_layout(3, 2)
    sizes = [layout.disk_diameter_mm(d) for d in range(1, 6)]
    assert sizes == sorted(set(sizes))
