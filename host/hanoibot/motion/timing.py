"""Durations of plain MOVEs from the servo speed limits: every channel arrives together, the slowest sets the time.

Plain MOVEs (the move home, jogging, calibration, the settle hold after a grip) use the firmware's minimum-jerk
profile, whose peak speed is :data:`MIN_JERK_PEAK_RATIO` times the average (15/8, taken from the firmware's own
speed check, so host and board agree by construction). Such a segment therefore lasts
``MIN_JERK_PEAK_RATIO * max(travel / speed)`` over the channels, rounded up to whole milliseconds, plus
``settle_ms`` when the arm must be at rest after it (the firmware spreads the motion over the whole duration, so
that extra time slows it a little and leaves the servos, which trail their command, time to come to rest). The
pieces of a pick-and-place are timed with trapezoidal, blending profiles instead (:mod:`.profile`).

A hold is a MOVE to the pose the arm is at (:func:`dwell_ms`): the one way to hold still the firmware offers. It
costs one queue slot and one command id, and its DONE tells the host that the settle time is over (the sequencer
reads the grip sensor then).

For a calibration given as measured pairs the travel in degrees is taken at the steepest piece the pulses cross,
so no part of the segment runs faster than the limit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from hanoifw.commands import MIN_JERK_PEAK_DEN, MIN_JERK_PEAK_NUM

from .robot import RobotConfig

#: Peak over average speed of the firmware's minimum-jerk profile: the ratio its speed check applies to a plain MOVE.
MIN_JERK_PEAK_RATIO = MIN_JERK_PEAK_NUM / MIN_JERK_PEAK_DEN

#: Shortest segment in ms: one firmware control tick is 10 ms, so a segment spans at least two.
MIN_DURATION_MS = 20
#: One frame of the 50 Hz servo PWM in ms: a servo measures one pulse per frame, so the last pulse of a segment may
#: reach it up to this much after the firmware gave it.
PWM_FRAME_MS = 20


def channel_times_s(config: RobotConfig, from_us: Sequence[float], to_us: Sequence[float]) -> list[float]:
    """Seconds each channel needs at its top (derated) speed to go from ``from_us`` to ``to_us``, no profile."""
    return [
        abs(output.travel_deg(a_us, b_us)) / output.max_speed_deg_s
        for output, a_us, b_us in zip(config.outputs, from_us, to_us, strict=True)
    ]


def duration_ms(
    config: RobotConfig,
    from_us: Sequence[float],
    to_us: Sequence[float],
    *,
    settle: bool = True,
    speed_ratio: float = 1.0,
) -> int:
    """Duration in ms of a segment from pulses ``from_us`` to ``to_us`` (channel order) within every speed limit.

    ``settle`` adds ``[motion] settle_ms`` for a segment after which the arm must be at rest; ``speed_ratio``
    (0..1] is the share of every channel's top speed its peak may reach.
    """
    moving_s = max(channel_times_s(config, from_us, to_us)) * MIN_JERK_PEAK_RATIO / speed_ratio
    total_ms = math.ceil(moving_s * 1000.0 - 1e-9) + (config.motion.settle_ms if settle else 0)
    return max(total_ms, MIN_DURATION_MS)


def grip_hold_ms(config: RobotConfig) -> int:
    """Duration in ms of the hold after the fingers close, before the grip sensor is read: :func:`dwell_ms` plus
    one PWM frame (:data:`PWM_FRAME_MS`), because the gripper servo may take the closing pulse a frame late."""
    hold_ms = dwell_ms(config)
    return hold_ms + PWM_FRAME_MS if hold_ms > 0 else 0


def dwell_ms(config: RobotConfig) -> int:
    """Duration in ms of the hold after a gripper segment: ``[motion] settle_ms``, 0 when that is 0 (no hold).

    At least :data:`MIN_DURATION_MS`, so the firmware holds the pose for whole control ticks.
    """
    settle_ms = config.motion.settle_ms
    return max(settle_ms, MIN_DURATION_MS) if settle_ms > 0 else 0
