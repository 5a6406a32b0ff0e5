"""Pictures of the board: an ASCII view for terminals and SVG (still or animated) for people to look at."""

from .ascii_board import render_board_ascii
from .svg import Frame, render_run_svg, render_state_svg

__all__ = ["Frame", "render_board_ascii", "render_run_svg", "render_state_svg"]
