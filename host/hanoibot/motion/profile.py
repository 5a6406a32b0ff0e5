"""Time scaling: trapezoidal speed profiles for a chain of segments the arm runs without stopping.

A chain is a list of pieces (target pulses, channel order) that starts and ends at rest. Every piece is sent as a
trapezoidal MOVE (hanoifw/motion.py) with one ramp time ``ramp_ms`` for the whole chain, and every piece after
the first blends ``ramp_ms`` into the one before: the firmware starts it while its predecessor decelerates, so
each channel's velocity passes linearly from one piece's cruise velocity to the next one's. Piece k cruises for
``D_k`` ms (its duration is ``D_k + ramp_ms``); the chain lasts ``sum(D_k) + ramp_ms``. The cruise times are
the shortest that keep, for every channel j with top speed v_j and acceleration limit a_j (deg/s, deg/s²):

- cruise speed ``|Δ_kj| / D_k <= r_k v_j``, where ``r_k`` is the piece's share of the top speeds (1, or
  :func:`~hanoibot.motion.margins.on_peg_speed_ratio` where a held disk slides along its peg); a blend's speed
  lies between two cruise speeds, so it is bounded too;
- start and stop: ``|Δ_kj| / D_k / ramp <= a_j`` for the first and last piece;
- blends: ``|Δ_(k+1)j / D_(k+1) - Δ_kj / D_k| / ramp <= a_j`` (the change of velocity over the ramp);
- ``D_k >= ramp``, so that at most two pieces overlap and each ramp fits in its piece.

A longer ramp allows larger changes of velocity but adds to the chain; :func:`chain_timing` tries ramps from
:data:`MIN_RAMP_MS` up and keeps the fastest. Travel in degrees is taken at the calibration's steepest piece the
pulses cross (as in :mod:`.timing`), signed, so opposite motions in two pieces count as a change of velocity.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import NamedTuple

from .robot import RobotConfig

#: Shortest ramp in ms: one firmware control tick is 10 ms; a piece lasts at least two ramps.
MIN_RAMP_MS = 10
#: Longest ramp tried, in ms.
MAX_RAMP_MS = 400
#: Each ramp tried is this much longer than the one before (then the best is refined).
RAMP_STEP = 1.25
#: Corners are relaxed at most this many times over the chain (each pass only slows pieces down).
MAX_PASSES = 60


class ChainTiming(NamedTuple):
    """The profile of a chain: the common ramp and blend in ms, and each piece's duration in ms."""

    ramp_ms: int
    durations_ms: tuple[int, ...]

    @property
    def total_ms(self) -> int:
        """How long the chain takes from rest to rest, in ms (the blends overlap)."""
        return sum(self.durations_ms) - self.ramp_ms * (len(self.durations_ms) - 1)


def travel_deg(config: RobotConfig, from_us: Sequence[float], to_us: Sequence[float]) -> list[float]:
    """Signed travel of every channel in degrees of its servo (the gripper's from its ``us_per_deg``)."""
    return [output.travel_deg(a_us, b_us) for output, a_us, b_us in zip(config.outputs, from_us, to_us, strict=True)]


def channel_limits(config: RobotConfig) -> tuple[list[float], list[float]]:
    """Top speed (deg/s) and acceleration (deg/s²) of every channel's servo, in channel order."""
    outputs = config.outputs
    return [o.max_speed_deg_s for o in outputs], [o.max_accel_deg_s2 for o in outputs]


def _cruise_ms(
    travels: list[list[float]], speeds: list[list[float]], accels: list[float], ramp_ms: int
) -> list[int] | None:
    """Shortest whole-ms cruise time of every piece for the ramp ``ramp_ms`` (see the module's docstring), or
    None if the blends could not all be brought within the acceleration limits. ``speeds[k]`` are piece k's
    top speeds per channel (deg/s)."""
    ramp_s = ramp_ms / 1000.0
    room = [a * ramp_s for a in accels]  # the largest change of speed (deg/s) one ramp allows, per channel
    cruise = []
    for travel, piece_speeds in zip(travels, speeds, strict=True):
        fastest_s = max(abs(d) / v for d, v in zip(travel, piece_speeds, strict=True))
        cruise.append(max(ramp_ms, math.ceil(fastest_s * 1000.0 - 1e-9)))
    for k in (0, -1):  # from and to rest
        needed_s = max(abs(d) / r for d, r in zip(travels[k], room, strict=True))
        cruise[k] = max(cruise[k], math.ceil(needed_s * 1000.0 - 1e-9))
    for _ in range(MAX_PASSES):
        relaxed = False
        for k in range(len(travels) - 1):
            t0_ms, t1_ms = cruise[k], cruise[k + 1]
            ratio = 0.0
            for d0, d1, r in zip(travels[k], travels[k + 1], room, strict=True):
                ratio = max(ratio, abs(d1 / t1_ms - d0 / t0_ms) * 1000.0 / r)
            if ratio > 1.0 + 1e-9:
                cruise[k] = math.ceil(t0_ms * ratio)
                cruise[k + 1] = math.ceil(t1_ms * ratio)
                relaxed = True
        if not relaxed:
            return cruise
    return None


def _timing(
    travels: list[list[float]], speeds: list[list[float]], accels: list[float], ramp_ms: int
) -> ChainTiming | None:
    cruise = _cruise_ms(travels, speeds, accels, ramp_ms)
    return None if cruise is None else ChainTiming(ramp_ms, tuple(c + ramp_ms for c in cruise))


def _chain_inputs(
    config: RobotConfig,
    start_us: Sequence[float],
    targets_us: Sequence[Sequence[float]],
    speed_ratios: Sequence[float] | None,
) -> tuple[list[list[float]], list[list[float]], list[float]]:
    """Every piece's travel (deg) and top speeds (deg/s) per channel, and every channel's acceleration limit."""
    poses = [start_us, *targets_us]
    travels = [travel_deg(config, a, b) for a, b in itertools.pairwise(poses)]
    top_speeds, accels = channel_limits(config)
    ratios = speed_ratios if speed_ratios is not None else [1.0] * len(travels)
    return travels, [[v * ratio for v in top_speeds] for ratio in ratios], accels


def chain_timing_for_ramp(
    config: RobotConfig,
    start_us: Sequence[float],
    targets_us: Sequence[Sequence[float]],
    ramp_ms: int,
    speed_ratios: Sequence[float] | None = None,
) -> ChainTiming | None:
    """The fastest :class:`ChainTiming` with the given ramp (ms), as :func:`chain_timing` times a chain; None if
    that ramp cannot bring every blend within the acceleration limits."""
    return _timing(*_chain_inputs(config, start_us, targets_us, speed_ratios), ramp_ms)


def chain_timing(
    config: RobotConfig,
    start_us: Sequence[float],
    targets_us: Sequence[Sequence[float]],
    speed_ratios: Sequence[float] | None = None,
) -> ChainTiming | None:
    """The fastest :class:`ChainTiming` for running from ``start_us`` through ``targets_us`` without stopping;
    None if no ramp brings every blend within the acceleration limits (then the arm must stop at the via points).
    ``speed_ratios`` (one per piece, default 1) scales every channel's top speed for that piece.

    Ramps from :data:`MIN_RAMP_MS` to :data:`MAX_RAMP_MS` are tried in steps of :data:`RAMP_STEP`, then every
    whole ms around the best of them. A piece that moves no channel cannot be part of a chain (it would stop the
    arm); callers send holds apart.
    """
    travels, speeds, accels = _chain_inputs(config, start_us, targets_us, speed_ratios)
    candidates: list[ChainTiming] = []
    ramp = float(MIN_RAMP_MS)
    while ramp <= MAX_RAMP_MS:
        timing = _timing(travels, speeds, accels, round(ramp))
        if timing is not None:
            candidates.append(timing)
        ramp *= RAMP_STEP
    if not candidates:
        return None
    best = min(candidates, key=lambda t: t.total_ms)
    step_ms = max(1, round(best.ramp_ms * (RAMP_STEP - 1)))
    for ramp_ms in range(max(MIN_RAMP_MS, best.ramp_ms - step_ms), best.ramp_ms + step_ms + 1, max(1, step_ms // 4)):
        timing = _timing(travels, speeds, accels, ramp_ms)
        if timing is not None and timing.total_ms < best.total_ms:
            best = timing
    return best
