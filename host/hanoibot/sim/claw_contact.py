"""The simulated world's contact model for a level claw (a side grasp), all lengths in mm.

A level claw (:mod:`hanoibot.motion.claw`) is three flat bars seen from above: two fingers from the palm to the
grip point, one each side of it, and the palm across their back ends. Each bar is ``finger_width_mm`` tall,
centred on the grip point's height. A bar touches an upright body (a peg, a disk on a peg) when their height
ranges overlap and the bar's footprint cuts into the body's circle, both by more than the contact tolerance. The
claw's fingers do not count the top disk they are closing on when it is centred between them (within the grip
centre tolerance of :mod:`.disks`, as for a top-down gripper): closing fingers push a disk a little off the
claw's middle (a peg or a servo slightly off) to the middle on its peg, and shut on it they press in only by the
grip's give. Anywhere else a finger in a disk is a collision, and the palm always is. The held disk itself is
tested as for a top-down gripper (:mod:`.disks`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from typing import Protocol

from ..motion.claw import bar_distance_mm, claw_bars
from .shapes import height_overlap_mm


class Upright(Protocol):
    """An upright cylinder on the board (a peg, or a disk on a peg)."""

    @property
    def name(self) -> str: ...
    @property
    def x_mm(self) -> float: ...
    @property
    def y_mm(self) -> float: ...
    @property
    def radius_mm(self) -> float: ...
    @property
    def low_z_mm(self) -> float: ...
    @property
    def high_z_mm(self) -> float: ...


class ClawPose(Protocol):
    """Where the claw's grip point is (mm), its finger gap (mm) and the way it points (a horizontal unit vector)."""

    @property
    def x_mm(self) -> float: ...
    @property
    def y_mm(self) -> float: ...
    @property
    def z_mm(self) -> float: ...
    @property
    def width_mm(self) -> float: ...
    @property
    def heading_x(self) -> float: ...
    @property
    def heading_y(self) -> float: ...


def claw_hits(
    pose: ClawPose,
    gap_mm: float,
    bodies: Sequence[Upright],
    *,
    finger_length_mm: float,
    finger_thickness_mm: float,
    finger_width_mm: float,
    tolerance_mm: float,
    centred: Collection[str] = (),
) -> Iterator[str]:
    """Describe every body a bar of the claw at ``pose`` (its fingers' inner faces ``gap_mm`` apart) cuts into by
    more than ``tolerance_mm``, sideways and in height: ``claw finger hits disk 2 on peg A``. The fingers may press
    on the bodies named in ``centred`` (the top disk they close on, which they push to the middle on its peg); the
    palm may not."""
    low_z_mm = pose.z_mm - finger_width_mm / 2
    high_z_mm = pose.z_mm + finger_width_mm / 2
    left, right, palm = claw_bars(
        pose.x_mm, pose.y_mm, (pose.heading_x, pose.heading_y), gap_mm, finger_length_mm, finger_thickness_mm
    )
    for body in bodies:
        if height_overlap_mm(low_z_mm, high_z_mm, body.low_z_mm, body.high_z_mm) <= tolerance_mm:
            continue
        for part, bars in (("finger", () if body.name in centred else (left, right)), ("palm", (palm,))):
            if any(bar_distance_mm(bar, body.x_mm, body.y_mm) < body.radius_mm - tolerance_mm for bar in bars):
                yield f"claw {part} hits {body.name}"
