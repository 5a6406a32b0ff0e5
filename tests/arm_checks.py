"""Helpers shared by the arm room's tests: each preset's workspace over its own board, as a hypothesis strategy."""

from __future__ import annotations

import math

from hanoibot.arm import Point, load_preset
from hypothesis import strategies as st


def workspace(name: str) -> st.SearchStrategy[Point]:
    """Points over preset ``name``'s board, in the arm's polar coordinates: from 50 mm nearer the base than the
    nearest peg to 30 mm beyond the farthest, 15 degrees either side of the outer pegs, from the table to 30 mm
    above the tallest peg's tip."""
    board = load_preset(name).board
    radii = [math.hypot(p.x_mm, p.y_mm) for p in board.pegs]
    headings = [math.degrees(math.atan2(p.y_mm, p.x_mm)) for p in board.pegs]
    top = max(p.height_mm for p in board.pegs) + 30.0

    def point(radius: float, heading_deg: float, z_mm: float) -> Point:
        heading = math.radians(heading_deg)
        return Point(radius * math.cos(heading), radius * math.sin(heading), z_mm)

    return st.builds(
        point,
        st.floats(min_value=min(radii) - 50.0, max_value=max(radii) + 30.0),
        st.floats(min_value=min(headings) - 15.0, max_value=max(headings) + 15.0),
        st.floats(min_value=0.0, max_value=top),
    )
