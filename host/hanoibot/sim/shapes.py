"""Tiny solid-geometry tests for the simulated board, all lengths in mm.

Every body on the board is an upright ring or cylinder: a peg is a solid cylinder, a disk is a ring (a cylinder
with a hole for the peg), the gripper's two fingers are modelled as the ring swept by the fingers around the
gripper axis. Two upright bodies touch when their height ranges overlap *and* their footprints overlap.
"""

from __future__ import annotations

import math


def height_overlap_mm(low_a_mm: float, high_a_mm: float, low_b_mm: float, high_b_mm: float) -> float:
    """How far (mm) the height ranges [low_a, high_a] and [low_b, high_b] overlap; negative when apart."""
    return min(high_a_mm, high_b_mm) - max(low_a_mm, low_b_mm)


def ring_meets_disc(
    distance_mm: float, inner_mm: float, outer_mm: float, disc_radius_mm: float, tolerance_mm: float
) -> bool:
    """True if a ring (radii ``inner_mm`` < ``outer_mm``) and a solid disc overlap by more than ``tolerance_mm``.

    ``distance_mm`` is the horizontal distance between their centres. The two miss each other when the disc
    lies wholly inside the ring's hole (``distance + disc_radius <= inner``) or wholly outside the ring
    (``distance - disc_radius >= outer``); a contact of up to ``tolerance_mm`` counts as a miss.
    """
    inside_hole = distance_mm + disc_radius_mm <= inner_mm + tolerance_mm
    outside_ring = distance_mm - disc_radius_mm >= outer_mm - tolerance_mm
    return not (inside_hole or outside_ring)


def distance_xy_mm(x_a_mm: float, y_a_mm: float, x_b_mm: float, y_b_mm: float) -> float:
    """Horizontal distance (mm) between two points given by their x and y in mm."""
    return math.hypot(x_a_mm - x_b_mm, y_a_mm - y_b_mm)
