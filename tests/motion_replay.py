"""Segments replayed through the real firmware interpolator (hanoifw.motion.Motion), as a board would run them.

Shared by the motion and sim tests: the oracle for where the commands go is the firmware's own integer code, with
its blends and profiles, not the host's model of it.
"""

from __future__ import annotations

from collections.abc import Sequence

from hanoibot.motion.segment import Segment
from hanoifw.motion import Motion

#: Queue depth of the replaying board (the real one holds 8).
QUEUE_DEPTH = 8


def firmware_trace(
    from_us: Sequence[int], segments: Sequence[Segment], *, step_ms: int = 1
) -> list[tuple[float, list[int], int]]:
    """(time in s, commanded pulses, index of the segment executing) every ``step_ms`` until the last one ends."""
    motion = Motion(len(from_us), QUEUE_DEPTH)
    pose = list(from_us)
    trace = [(0.0, list(pose), 0)]
    done: list[int] = []
    sent = 0
    t_ms = 0
    while sent < len(segments) or motion.is_busy:
        while sent < len(segments) and motion.free_slots:
            segment = segments[sent]
            ramp_ms = -1 if segment.ramp_ms is None else segment.ramp_ms
            motion.push(sent + 1, segment.duration_ms, list(segment.pulses_us), ramp_ms, segment.blend_ms)
            sent += 1
        motion.advance(step_ms, pose, done)
        t_ms += step_ms
        trace.append((t_ms / 1000, list(pose), min(len(done), len(segments) - 1)))
    return trace
