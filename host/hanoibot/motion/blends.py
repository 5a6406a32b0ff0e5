"""Where the arm really goes through a move's segments, and whether that keeps clear of the board.

The firmware runs each segment along its profile (minimum jerk, or trapezoidal with a ramp) and starts a blending
segment ``min(blend, both ramps)`` before its predecessor ends, adding the two motions (hanoifw/motion.py): so a
blend cuts its corner. The servos then trail their command: a hobby servo is a position loop, modelled here as a
first-order lag with time constant ``settle_ms / 2`` (``settle_ms`` is the time it needs to come to rest, two time
constants), which cuts every corner a little more, stops included. :func:`first_unclear_segment` follows the horns
through the segments and accepts every point that is

- within 1.5 ``[motion] line_tolerance_mm`` of the move's planned grip-point path (the polyline through the
  segments' targets: a straight piece itself may wander the tolerance from it, and the blends and the lag may add
  half as much again) - or, for the empty gripper, within
  ``clearance_mm / 2``: its fingers open ``clearance_mm`` wider than the disk on each side, so they keep half of
  that from the rim (and more from the peg inside the disk) - or
- in free space: the fingertips, and the bottom of a held disk, at least ``clearance_mm / 2`` above the peg tip
  and stack of every peg whose axis is within reach (the open gripper's half width plus ``clearance_mm``, plus
  the largest disk's radius) - so a lift may turn into the travel once the disk is well above the tips; the
  empty fingers need only be that far above the stack if the peg's tip stays ``clearance_mm / 2`` inside
  their open ring.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import NamedTuple

from .kinematics import Point
from .paths import distance_to_line_mm
from .robot import RobotConfig

#: Time step in ms at which the horns are followed.
STEP_MS = 4
#: How far from the planned path a point may be, in units of ``line_tolerance_mm``: a piece itself may wander
#: that far from its line, and the blends and the servos' lag may add half as much again.
NEAR_FACTOR = 1.5


class Surroundings(NamedTuple):
    """The board while a segment runs: disk counts per peg, and whether a disk hangs from the fingers."""

    heights: tuple[int, ...]
    holds_disk: bool


class Timed(NamedTuple):
    """A segment as the firmware times it: target pulses, duration (ms), ramp (ms, None = minimum jerk), blend."""

    pulses_us: tuple[int, ...]
    duration_ms: int
    ramp_ms: int | None
    blend_ms: int


def trapezoid_progress(elapsed_ms: float, duration_ms: float, ramp_ms: float) -> float:
    """Progress 0..1 of the firmware's trapezoidal profile at ``elapsed_ms`` of a ``duration_ms`` piece that
    accelerates for ``ramp_ms`` and decelerates for the last ``ramp_ms`` (hanoifw/motion.py, in floating point)."""
    t = min(max(elapsed_ms, 0.0), duration_ms)
    if ramp_ms <= 0:
        return t / duration_ms
    peak = 1.0 / (duration_ms - ramp_ms)
    accel = peak / ramp_ms
    if t < ramp_ms:
        return accel * t * t / 2
    if t <= duration_ms - ramp_ms:
        return peak * (t - ramp_ms / 2)
    left = duration_ms - t
    return 1.0 - accel * left * left / 2


def progress(elapsed_ms: float, segment: Timed) -> float:
    """Progress 0..1 of ``segment`` at ``elapsed_ms``: its trapezoid, or the minimum-jerk profile."""
    if segment.ramp_ms is not None:
        return trapezoid_progress(elapsed_ms, segment.duration_ms, segment.ramp_ms)
    u = min(max(elapsed_ms / segment.duration_ms, 0.0), 1.0)
    return u * u * u * (10 - 15 * u + 6 * u * u)


def start_times_ms(segments: Sequence[Timed]) -> list[int]:
    """When each segment starts (ms from the first one's start), blends overlapping as the firmware runs them."""
    starts = [0]
    for before, after in itertools.pairwise(segments):
        overlap_ms = 0
        if before.ramp_ms is not None and after.ramp_ms is not None:
            overlap_ms = min(after.blend_ms, before.ramp_ms, after.ramp_ms)
        starts.append(starts[-1] + before.duration_ms - overlap_ms)
    return starts


def first_unclear_segment(
    config: RobotConfig, start_us: Sequence[float], segments: Sequence[Timed], surroundings: Sequence[Surroundings]
) -> int | None:
    """Index of the segment that was last to start when the trailing horns first left the safe space (module
    docstring), or None if they never do. ``surroundings`` gives the board for each segment."""
    starts = start_times_ms(segments)
    targets = [tuple(map(float, start_us))] + [tuple(map(float, s.pulses_us)) for s in segments]
    via = [config.grip_point(t) for t in targets]
    tau_ms = config.motion.settle_ms / 2
    keep = math.exp(-STEP_MS / tau_ms) if tau_ms > 0 else 0.0
    horn = list(targets[0])
    end_ms = starts[-1] + segments[-1].duration_ms + 3 * tau_ms
    finished = 0  # segments before this one have finished: the command is at least at their target
    active = 0  # the segment that started last
    t_ms = 0.0
    while t_ms <= end_ms:
        while finished < len(segments) and starts[finished] + segments[finished].duration_ms <= t_ms:
            finished += 1
        while active + 1 < len(starts) and starts[active + 1] <= t_ms:
            active += 1
        command = list(targets[finished])
        for k in range(finished, active + 1):
            s = progress(t_ms - starts[k], segments[k])
            command = [c + (b - a) * s for c, a, b in zip(command, targets[k], targets[k + 1], strict=True)]
        horn = [c + (h - c) * keep for h, c in zip(horn, command, strict=True)]
        nearby = via[max(0, active - 2) : active + 3]  # the lines of the segments around the running one
        if not _is_clear(config, config.grip_point(horn), horn[4], nearby, surroundings[active]):
            return active
        t_ms += STEP_MS
    return None


def _is_clear(config: RobotConfig, point: Point, gripper_us: float, via: list[Point], around: Surroundings) -> bool:
    """True if ``point`` is in free space or near the planned path ``via`` (module docstring)."""
    motion, board = config.motion, config.board
    margin_mm = motion.clearance_mm / 2
    if around.holds_disk:
        low_z_mm, ring_mm = point.z_mm - board.disk_thickness_mm / 2, 0.0
    else:  # the peg may stand anywhere inside the open fingers' ring while they are above its stack
        low_z_mm = point.z_mm
        ring_mm = config.gripper.width_mm(gripper_us) / 2 - board.peg_diameter_mm / 2 - margin_mm
    reach_mm = config.gripper.open_width_mm / 2 + motion.clearance_mm + max(board.disk_diameters_mm) / 2
    free = True
    for i, peg in enumerate(board.pegs):
        stack_mm = board.stack_top_mm(around.heights[i] if i < len(around.heights) else 0)
        if low_z_mm >= max(stack_mm, peg.height_mm) + margin_mm:
            continue
        off_axis_mm = math.hypot(point.x_mm - peg.x_mm, point.y_mm - peg.y_mm)
        if off_axis_mm > reach_mm or (low_z_mm >= stack_mm + margin_mm and off_axis_mm <= ring_mm):
            continue
        free = False
        break
    if free:
        return True
    near_mm = NEAR_FACTOR * motion.line_tolerance_mm
    if not around.holds_disk:
        near_mm = max(near_mm, margin_mm)
    return any(distance_to_line_mm(point, a, b) <= near_mm for a, b in itertools.pairwise(via))
