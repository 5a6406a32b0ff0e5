"""Tests of hanoibot.motion.profile: chain timings within every speed and acceleration limit, and faster than stops.

The oracle is the firmware's own interpolator (tests/motion_replay.py): the commanded pulses, every millisecond,
of a random chain of pieces timed by chain_timing.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hanoibot.config import load_config
from hanoibot.motion.profile import chain_timing, travel_deg
from hanoibot.motion.segment import Segment
from motion_replay import firmware_trace

CONFIG = load_config()
STEP_MS = 10


def random_chain(seed: int) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    """A start pose and 1-6 pieces that move a few channels by up to 150 µs each, inside the pulse limits."""
    rng = random.Random(seed)
    pose = list(CONFIG.start_pulses_us())
    start = tuple(pose)
    targets = []
    for _ in range(rng.randint(1, 6)):
        for ch in rng.sample(range(5), rng.randint(1, 3)):
            low, high = CONFIG.min_pulses_us()[ch], CONFIG.max_pulses_us()[ch]
            pose[ch] = min(max(pose[ch] + rng.randint(-150, 150), low + 50), high - 50)
        targets.append(tuple(pose))
    return start, [t for i, t in enumerate(targets) if t != ([start, *targets][i])]


def speeds_deg_s(start: tuple[int, ...], segments: list[Segment]) -> list[list[float]]:
    """Every channel's commanded speed (deg/s) over each firmware tick."""
    trace = firmware_trace(start, segments, step_ms=STEP_MS)
    out = []
    for (_, p0, _), (_, p1, _) in itertools.pairwise(trace):
        out.append([d / (STEP_MS / 1000) for d in travel_deg(CONFIG, p0, p1)])
    return out


@pytest.mark.parametrize("seed", range(12))
def test_a_timed_chain_keeps_every_speed_and_acceleration_limit(seed: int) -> None:
    start, targets = random_chain(seed)
    if not targets:
        return
    timing = chain_timing(CONFIG, start, targets)
    assert timing is not None
    ramp_ms = timing.ramp_ms
    assert all(d >= 2 * ramp_ms for d in timing.durations_ms), "each ramp fits, and at most two pieces overlap"
    segments = [
        Segment(t, d, None, ramp_ms, ramp_ms if i else 0)
        for i, (t, d) in enumerate(zip(targets, timing.durations_ms, strict=True))
    ]
    speeds = speeds_deg_s(start, segments)
    limits = [output.max_speed_deg_s for output in CONFIG.outputs]
    accels = [output.max_accel_deg_s2 for output in CONFIG.outputs]
    rounding_deg_s = 1.2 / 11.0 / (STEP_MS / 1000)  # a whole-µs output: up to 1 µs (~0.1 deg) per tick
    for row in speeds:
        for speed, limit in zip(row, limits, strict=True):
            assert abs(speed) <= limit + rounding_deg_s
    for before, after in itertools.pairwise(speeds):
        for v0, v1, a in zip(before, after, accels, strict=True):
            assert abs(v1 - v0) / (STEP_MS / 1000) <= a * 1.05 + 2 * rounding_deg_s / (STEP_MS / 1000)
    total_ms = len(speeds) * STEP_MS
    assert abs(total_ms - timing.total_ms) <= STEP_MS  # the firmware ran the chain in the time it was given


def test_blending_is_faster_than_stopping_at_every_via_point() -> None:
    start = CONFIG.start_pulses_us()
    targets = [(start[0] + 100 * (i + 1), *start[1:]) for i in range(4)]  # one straight line, four pieces
    blended = chain_timing(CONFIG, start, targets)
    stopping = [chain_timing(CONFIG, a, [b]) for a, b in zip([start, *targets], targets, strict=False)]
    assert blended is not None and all(t is not None for t in stopping)
    assert blended.total_ms < 0.8 * sum(t.total_ms for t in stopping if t is not None)


@pytest.mark.parametrize("ratio", [0.5, 0.85])
def test_a_piece_with_a_speed_ratio_cruises_at_that_share_of_the_top_speeds(ratio: float) -> None:
    start = CONFIG.start_pulses_us()
    up = (start[0], start[1] + 150, start[2] - 150, start[3] - 200, start[4])  # shoulder, elbow and wrist
    across = (start[0] + 300, *up[1:])
    full = chain_timing(CONFIG, start, [up, across])
    slowed = chain_timing(CONFIG, start, [up, across], [ratio, 1.0])
    assert full is not None and slowed is not None
    limits = [output.max_speed_deg_s for output in CONFIG.outputs]
    segments = [
        Segment(t, d, None, slowed.ramp_ms, slowed.ramp_ms if i else 0)
        for i, (t, d) in enumerate(zip([up, across], slowed.durations_ms, strict=True))
    ]
    speeds = speeds_deg_s(start, segments)
    rounding_deg_s = 1.2 / 11.0 / (STEP_MS / 1000)
    cruise = speeds[len(speeds) // 4]  # well inside the first piece, before the blend into the second
    assert all(abs(v) <= ratio * limit + rounding_deg_s for v, limit in zip(cruise, limits, strict=True))
    assert max(abs(v) / limit for v, limit in zip(cruise, limits, strict=True)) >= ratio * 0.9  # not slower still
    assert slowed.total_ms > full.total_ms
