"""One firmware MOVE as the host plans it (:class:`Segment`), the move home, and a segment as the firmware times it.

The segments of a pick-and-place move are built in :mod:`.segment_builder` and :mod:`.segments`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .blends import Timed
from .phases import MotionPhase
from .robot import RobotConfig
from .timing import duration_ms


class Segment(NamedTuple):
    """One firmware MOVE: every channel's target pulse (µs, channel order), the time to get there (ms), the phase
    (None for the move home, which belongs to no pick-and-place), and the speed profile: ``ramp_ms`` None for the
    firmware's minimum-jerk profile, else trapezoidal with that ramp (ms), blending ``blend_ms`` into the segment
    before it (:mod:`.profile`)."""

    pulses_us: tuple[int, ...]
    duration_ms: int
    phase: MotionPhase | None
    ramp_ms: int | None = None
    blend_ms: int = 0


def home_segment(config: RobotConfig, from_pulses_us: Sequence[int] | None = None) -> Segment:
    """A segment to the start pose from ``from_pulses_us`` (default: the start pose itself: a short hold).

    Safe from any pose whose gripper is above the peg tips, as every move's retreat leaves it.
    """
    target = config.start_pulses_us()
    start = tuple(from_pulses_us) if from_pulses_us is not None else target
    return Segment(target, duration_ms(config, start, target), None)


def as_timed(segment: Segment) -> Timed:
    """``segment`` as the firmware times it."""
    return Timed(segment.pulses_us, segment.duration_ms, segment.ramp_ms, segment.blend_ms)


def retimed(segment: Segment, timed: Timed) -> Segment:
    """``segment`` with the duration and profile of ``timed``."""
    return segment._replace(duration_ms=timed.duration_ms, ramp_ms=timed.ramp_ms, blend_ms=timed.blend_ms)
