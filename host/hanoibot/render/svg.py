"""SVG pictures of the board: one state, or a whole run as an animated SVG (SMIL, plays in any browser).

Drawing units are millimetres (the board's own size) with z pointing up on the page. Elements carry data
attributes so tools and tests can read the picture back: every peg is ``<rect class="peg" data-peg="A">``,
every disk ``<rect class="disk" data-disk="3" data-peg="A" data-level="0">`` (level 0 = bottom; a disk in
the gripper has ``data-peg="held"``; a coloured disk also has ``data-colour="red"`` and is filled in its
colour), the arm is ``<polyline class="arm">``. In a run, each frame is a ``<g class="frame" data-index="k">``
shown for ``frame_s`` seconds in turn, looping; viewers without animation show the first frame.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple
from xml.sax.saxutils import escape, quoteattr

from ..errors import RenderError
from ..puzzle import State, peg_letter
from .layout import DEPTH_U_PER_MM, DEPTH_Z_PER_MM, BoardLayout, Point3, layout_from_config, schematic_layout

if TYPE_CHECKING:
    from ..config import RobotConfig

#: Space (mm) around the drawing, and below the board for the peg letters.
MARGIN_MM = 15.0
LABEL_SPACE_MM = 14.0
#: Thickness (mm) of the board's front edge as drawn.
BOARD_EDGE_MM = 4.0
#: Size of the drawn arm base (mm).
ARM_BASE_WIDTH_MM = 30.0
ARM_BASE_HEIGHT_MM = 12.0
#: Pixels per millimetre of the picture's default size.
PX_PER_MM = 2.0
#: Default time each frame of a run stays on screen, in seconds.
DEFAULT_FRAME_S = 0.5

STYLE = (
    ".table{fill:#efe4d2}.board{fill:#8b6b4a}.peg{fill:#c8a27a}"
    ".label{font:10px sans-serif;text-anchor:middle;fill:#333}"
    ".disk{stroke:#333;stroke-width:0.5}.arm{fill:none;stroke:#555;stroke-width:4;stroke-linejoin:round}"
    ".joint{fill:#222}.arm-base{fill:#444;opacity:0.5}.caption{font:8px monospace;fill:#333}"
)


class Frame(NamedTuple):
    """One picture of a run: disks on pegs (bottom first), the arm (shoulder→grip points, mm) and a held disk."""

    stacks: tuple[tuple[int, ...], ...]
    arm_points_mm: tuple[Point3, ...] = ()
    held_disk: int | None = None
    t_s: float = 0.0
    caption: str = ""

    @classmethod
    def of(cls, state: State, caption: str = "") -> Frame:
        """A still frame of ``state`` with no arm drawn."""
        return cls(state.stacks, caption=caption or state.to_string())


#: Fills of the coloured puzzles' disks, by colour name.
COLOUR_FILLS = {"red": "#d62828", "green": "#2a9d4a", "blue": "#1f5fbf"}


def _disk_colour(disk: int, colour: str | None = None) -> str:
    """A fill for ``disk``: its own colour on a coloured set, else a hue that tells neighbouring sizes apart."""
    if colour is not None:
        return COLOUR_FILLS.get(colour, colour)
    return f"hsl({(disk * 47) % 360},70%,55%)"


class _Canvas:
    """Turns page millimetres (u along the view line, z up) into SVG user units."""

    def __init__(self, layout: BoardLayout, frames: Sequence[Frame]) -> None:
        self.layout = layout
        widest_mm = max((layout.disk_diameter_mm(d) for f in frames for s in f.stacks for d in s), default=20.0)
        feet_z = [layout.foot_z_mm(peg) for peg in range(len(layout.peg_u_mm))]
        self.board_left_mm = min(layout.peg_u_mm) - widest_mm / 2
        self.board_right_mm = max(layout.peg_u_mm) + widest_mm / 2
        us = [self.board_left_mm, self.board_right_mm]
        zs = [z + layout.peg_height_mm for z in feet_z]
        if layout.base_mm is not None:
            base_u_mm, base_z_mm = layout.base_mm
            us += [
                base_u_mm - ARM_BASE_WIDTH_MM,
                base_u_mm + ARM_BASE_WIDTH_MM,
                self.board_right_mm + self.table_shift_mm,
            ]
            zs.append(base_z_mm + ARM_BASE_HEIGHT_MM)
        for frame in frames:
            for point in frame.arm_points_mm:
                u_mm, z_mm = layout.project(point)
                us.append(u_mm)
                zs.append(z_mm)
        self.left_mm = min(us) - MARGIN_MM
        self.right_mm = max(us) + MARGIN_MM
        self.top_mm = max(zs) + MARGIN_MM
        self.bottom_mm = min(0.0, *feet_z) - LABEL_SPACE_MM

    @property
    def table_shift_mm(self) -> float:
        """How far right (mm) the back edge of the table, under the arm base, is drawn."""
        if self.layout.base_mm is None:
            return 0.0
        return max(self.layout.base_mm[1], 0.0) * DEPTH_U_PER_MM / DEPTH_Z_PER_MM

    @property
    def size_mm(self) -> tuple[float, float]:
        """Width and height of the drawing in mm."""
        return self.right_mm - self.left_mm, self.top_mm - self.bottom_mm

    def x(self, u_mm: float) -> float:
        """SVG x of the page position ``u_mm`` (mm)."""
        return round(u_mm - self.left_mm, 2)

    def y(self, z_mm: float) -> float:
        """SVG y of the page height ``z_mm`` (mm above the board's front edge; SVG y grows downwards)."""
        return round(self.top_mm - z_mm, 2)

    def rect(
        self, css: str, centre_u_mm: float, low_z_mm: float, width_mm: float, height_mm: float, **data: Any
    ) -> str:
        """A rectangle centred on ``centre_u_mm`` standing on ``low_z_mm``; ``data`` become data-* attributes."""
        attrs = "".join(f" data-{key}={quoteattr(str(value))}" for key, value in data.items())
        if "disk" in data:
            disk = int(data["disk"])
            colour = self.layout.disk_colour(disk)
            if colour is not None:
                attrs += f" data-colour={quoteattr(colour)}"
            fill = f' fill="{_disk_colour(disk, colour)}"'
        else:
            fill = ""
        return (
            f'<rect class="{css}"{attrs}{fill} x="{self.x(centre_u_mm - width_mm / 2)}" '
            f'y="{self.y(low_z_mm + height_mm)}" width="{round(width_mm, 2)}" height="{round(height_mm, 2)}"/>'
        )


def _background(canvas: _Canvas) -> list[str]:
    """The table, the arm base behind the board, the pegs and their letters: the same in every frame."""
    layout = canvas.layout
    parts = []
    if layout.base_mm is not None:
        left, right, shift = (
            canvas.board_left_mm - MARGIN_MM / 2,
            canvas.board_right_mm + MARGIN_MM / 2,
            canvas.table_shift_mm,
        )
        back_z_mm = max(layout.base_mm[1], 0.0)
        corners = [(left, 0.0), (right, 0.0), (right + shift, back_z_mm), (left + shift, back_z_mm)]
        points = " ".join(f"{canvas.x(u)},{canvas.y(z)}" for u, z in corners)
        parts.append(f'<polygon class="table" points="{points}"/>')
        parts.append(
            canvas.rect("arm-base", layout.base_mm[0], layout.base_mm[1], ARM_BASE_WIDTH_MM, ARM_BASE_HEIGHT_MM)
        )
    left_mm, right_mm = canvas.board_left_mm - MARGIN_MM / 2, canvas.board_right_mm + MARGIN_MM / 2
    parts.append(canvas.rect("board", (left_mm + right_mm) / 2, -BOARD_EDGE_MM, right_mm - left_mm, BOARD_EDGE_MM))
    for peg, u_mm in enumerate(layout.peg_u_mm):
        foot_z_mm = layout.foot_z_mm(peg)
        height_mm = layout.peg_height_mm
        parts.append(canvas.rect("peg", u_mm, foot_z_mm, layout.peg_diameter_mm, height_mm, peg=peg_letter(peg)))
        label_y = canvas.y(foot_z_mm - LABEL_SPACE_MM + 2)
        parts.append(f'<text class="label" x="{canvas.x(u_mm)}" y="{label_y}">{peg_letter(peg)}</text>')
    return parts


def _frame_body(canvas: _Canvas, frame: Frame) -> list[str]:
    """Disks on the pegs, the arm and the disk it holds, for one frame."""
    layout = canvas.layout
    t_mm = layout.disk_thickness_mm
    parts = []
    for peg, stack in enumerate(frame.stacks):
        u_mm, foot_z_mm = layout.peg_u_mm[peg], layout.foot_z_mm(peg)
        for level, disk in enumerate(stack):
            low_z_mm = foot_z_mm + level * t_mm
            diameter_mm = layout.disk_diameter_mm(disk)
            parts.append(
                canvas.rect("disk", u_mm, low_z_mm, diameter_mm, t_mm, disk=disk, peg=peg_letter(peg), level=level)
            )
    if frame.arm_points_mm:
        flat = [layout.project(p) for p in frame.arm_points_mm]
        if layout.base_mm is not None:
            flat.insert(0, layout.base_mm)
        points = " ".join(f"{canvas.x(u)},{canvas.y(z)}" for u, z in flat)
        parts.append(f'<polyline class="arm" points="{points}"/>')
        parts.extend(f'<circle class="joint" cx="{canvas.x(u)}" cy="{canvas.y(z)}" r="2.5"/>' for u, z in flat)
        if frame.held_disk is not None:
            grip_u_mm, grip_z_mm = flat[-1]
            diameter_mm = layout.disk_diameter_mm(frame.held_disk)
            low_z_mm = grip_z_mm - t_mm / 2
            parts.append(canvas.rect("disk", grip_u_mm, low_z_mm, diameter_mm, t_mm, disk=frame.held_disk, peg="held"))
    if frame.caption:
        parts.append(f'<text class="caption" x="4" y="10">{escape(frame.caption)}</text>')
    return parts


def _document(canvas: _Canvas, title: str, body: Iterable[str]) -> str:
    """A complete SVG document around ``body``."""
    width_mm, height_mm = canvas.size_mm
    header = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {round(width_mm, 2)} {round(height_mm, 2)}" '
        f'width="{round(width_mm * PX_PER_MM)}" height="{round(height_mm * PX_PER_MM)}">'
    )
    return "\n".join([header, f"<title>{escape(title)}</title>", f"<style>{STYLE}</style>", *body, "</svg>"]) + "\n"


def _resolve_layout(source: BoardLayout | RobotConfig | None, frames: Sequence[Frame]) -> BoardLayout:
    """A BoardLayout as given, made from a robot config, or schematic when ``source`` is None."""
    if isinstance(source, BoardLayout):
        return source
    if source is not None:
        return layout_from_config(source)
    n_disks = max((sum(len(s) for s in f.stacks) + (f.held_disk is not None) for f in frames), default=1)
    return schematic_layout(max(len(f.stacks) for f in frames), n_disks)


def render_state_svg(state: State, layout_or_config: BoardLayout | RobotConfig | None = None) -> str:
    """An SVG picture of ``state`` on the board of ``layout_or_config`` (BoardLayout, robot config or None)."""
    frame = Frame.of(state)
    canvas = _Canvas(_resolve_layout(layout_or_config, [frame]), [frame])
    return _document(canvas, f"hanoibot board {state.to_string()}", [*_background(canvas), *_frame_body(canvas, frame)])


def render_run_svg(
    layout_or_config: BoardLayout | RobotConfig | None,
    frames: Sequence[Frame | State],
    *,
    frame_s: float = DEFAULT_FRAME_S,
) -> str:
    """An animated SVG showing ``frames`` (Frames, or States drawn without the arm) ``frame_s`` seconds each."""
    if not frames:
        raise RenderError("a run picture needs at least one frame: got none")
    if not frame_s > 0:
        raise RenderError(f"frame_s = {frame_s!r}: expected a positive number of seconds")
    shown = [f if isinstance(f, Frame) else Frame.of(f) for f in frames]
    canvas = _Canvas(_resolve_layout(layout_or_config, shown), shown)
    count = len(shown)
    body = _background(canvas)
    for index, frame in enumerate(shown):
        start, end = index / count, (index + 1) / count
        visibility = "visible" if index == 0 else "hidden"
        body.append(f'<g class="frame" data-index="{index}" visibility="{visibility}">')
        body.append(
            f'<animate attributeName="visibility" values="hidden;visible;hidden" keyTimes="0;{start:.6f};{end:.6f}" '
            f'calcMode="discrete" dur="{count * frame_s:g}s" repeatCount="indefinite"/>'
        )
        body.extend(_frame_body(canvas, frame))
        body.append("</g>")
    return _document(canvas, f"hanoibot run of {count} frames", body)
