"""Solid-geometry tests of the simulated board against brute force along the line through both centres."""

from __future__ import annotations

import math

from hanoibot.sim.shapes import distance_xy_mm, height_overlap_mm, ring_meets_disc
from hypothesis import assume, given
from hypothesis import strategies as st

lengths = st.floats(0.0, 100.0)
STEP_MM = 0.01


def overlap_on_centre_line(distance: float, inner: float, outer: float, radius: float, margin: float) -> bool:
    """Brute force: is some sampled point on the centre line inside both shapes by at least ``margin``?

    Both shapes are round about their own centres, so if they overlap at all they overlap on that line.
    """
    count = int((outer + distance + radius + 1) / STEP_MM)
    for i in range(-count, count + 1):
        x = i * STEP_MM
        in_ring = inner + margin < abs(x) < outer - margin
        in_disc = abs(x - distance) < radius - margin
        if in_ring and in_disc:
            return True
    return False


@given(lengths, st.floats(0.0, 40.0), st.floats(0.5, 20.0), st.floats(0.5, 40.0))
def test_a_ring_meets_a_disc_exactly_when_some_point_lies_in_both(
    distance: float, inner: float, wall: float, radius: float
) -> None:
    outer = inner + wall
    clearly = overlap_on_centre_line(distance, inner, outer, radius, margin=0.05)
    barely = overlap_on_centre_line(distance, inner, outer, radius, margin=-0.05)
    assume(clearly == barely)  # leave out grazing contacts that the sampling cannot settle
    assert ring_meets_disc(distance, inner, outer, radius, tolerance_mm=0.0) is clearly


@given(lengths, st.floats(0.0, 40.0), st.floats(0.5, 20.0), st.floats(0.5, 40.0), st.floats(0.1, 3.0))
def test_a_tolerance_only_forgives_overlaps_no_deeper_than_itself(
    distance: float, inner: float, wall: float, radius: float, tolerance: float
) -> None:
    outer = inner + wall
    if ring_meets_disc(distance, inner, outer, radius, tolerance):
        assert ring_meets_disc(distance, inner, outer, radius, 0.0)
    # Pushed apart by more than the tolerance, they never touch.
    assert not ring_meets_disc(outer + radius + tolerance + 0.01, inner, outer, radius, tolerance)


@given(st.floats(-50, 50), st.floats(0, 30), st.floats(-50, 50), st.floats(0, 30))
def test_height_overlap_is_the_length_of_the_common_range(
    low_a: float, span_a: float, low_b: float, span_b: float
) -> None:
    high_a, high_b = low_a + span_a, low_b + span_b
    samples = [low_a + span_a * i / 1000 for i in range(1001)]
    inside = [z for z in samples if low_b <= z <= high_b]
    overlap = height_overlap_mm(low_a, high_a, low_b, high_b)
    assert overlap == height_overlap_mm(low_b, high_b, low_a, high_a)
    if inside:
        assert overlap >= max(inside) - min(inside) - 1e-9
        assert overlap <= max(inside) - min(inside) + 2 * span_a / 1000 + 1e-9  # a sample step lost at each end
    else:
        assert overlap <= span_a / 1000 + 1e-9


@given(st.floats(-500, 500), st.floats(-500, 500), st.floats(-500, 500), st.floats(-500, 500))
def test_distance_is_pythagoras(xa: float, ya: float, xb: float, yb: float) -> None:
    assert math.isclose(
        distance_xy_mm(xa, ya, xb, yb) ** 2, (xa - xb) ** 2 + (ya - yb) ** 2, abs_tol=1e-6, rel_tol=1e-9
    )
