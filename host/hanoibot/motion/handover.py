"""Where the arm would stop between two chains, the second may start while the first comes to rest.

A chain (:mod:`.profile`) runs from rest to rest: its first piece accelerates from rest and its last decelerates
to rest within every channel's ``max_accel_deg_s2``, so each chain can run alone (after a pause, a resume, a
re-planned pick). When one chain follows another, the second's first piece may start up to the shorter of the two
ramps before the first chain ends: the firmware then adds the two motions (``hanoifw/motion.py``), as it does
inside a chain. :func:`hand_over` allows the overlap (of a few tried) that saves the most time and for which

- every channel's acceleration during the overlap, the first piece's deceleration plus the second's acceleration,
  stays within its limit (before and after the overlap each piece is alone, within its own limits), and
- the trailing servos stay clear of the board through the segments around it (:mod:`.blends`).

The second chain may also get a longer ramp: a gentler start leaves room in the acceleration limits for the end of
the first, and pays for itself when the overlap saves more than the longer ramp costs. It is used wherever the arm
would otherwise come to rest between two moving segments (:mod:`.segments`): inside a move, and from one move's
retreat into the next move's approach.
"""

from __future__ import annotations

from collections.abc import Sequence

from .blends import Surroundings, Timed, first_unclear_segment
from .profile import chain_timing_for_ramp, channel_limits, travel_deg
from .robot import RobotConfig

#: Overlaps tried, as shares of the shorter ramp, longest first.
OVERLAP_SHARES = (1.0, 0.75, 0.5, 0.25)
#: Longer ramps tried for the chain after a hand-over: this many times its own, at most.
HANDOVER_RAMP_FACTORS = (1.0, 1.15, 1.3, 1.5, 1.75, 2.0, 2.5, 3.0)
#: Clearance checks a hand-over may make (each follows the servos through the segments around it).
HANDOVER_TRIALS = 6


def cruise_speeds_deg_ms(config: RobotConfig, from_us: Sequence[float], piece: Timed) -> list[float]:
    """Signed cruise speed of every channel (deg/ms) over a trapezoidal ``piece`` from ``from_us``."""
    assert piece.ramp_ms is not None
    cruise_ms = piece.duration_ms - piece.ramp_ms
    return [d / cruise_ms for d in travel_deg(config, from_us, piece.pulses_us)]


def corner_within_accels(config: RobotConfig, before_from_us: Sequence[float], before: Timed, after: Timed) -> bool:
    """True if ``after`` (from ``before``'s target) may overlap the end of ``before`` (from ``before_from_us``):
    every channel's summed acceleration during the overlap within its limit. Both must be trapezoidal."""
    assert before.ramp_ms is not None and after.ramp_ms is not None
    v_out = cruise_speeds_deg_ms(config, before_from_us, before)
    v_in = cruise_speeds_deg_ms(config, before.pulses_us, after)
    _, accels = channel_limits(config)
    for v0, v1, limit_deg_s2 in zip(v_out, v_in, accels, strict=True):
        if abs(v1 / after.ramp_ms - v0 / before.ramp_ms) * 1e6 > limit_deg_s2 * (1 + 1e-9):
            return False
    return True


def chain_ms(chain: Sequence[Timed]) -> int:
    """How long a chain of pieces takes in ms, its first from rest (the others overlap their blends)."""
    return chain[0].duration_ms + sum(piece.duration_ms - piece.blend_ms for piece in chain[1:])


def hand_over(
    config: RobotConfig,
    tail_start_us: Sequence[float],
    tail: Sequence[Timed],
    head: Sequence[Timed],
    surroundings: Sequence[Surroundings],
) -> list[Timed]:
    """``head`` as it runs right after ``tail``: its first piece overlapping ``tail``'s last where that saves the
    most time, maybe with a longer ramp for the whole of ``head`` (the module's docstring); else ``head`` as is.

    ``tail`` is a chain from rest at ``tail_start_us`` (or a gripper motion and such a chain); ``head`` is the chain
    that follows from rest at ``tail[-1]``'s target. ``surroundings`` is the board around each of them, in order.
    """
    last = tail[-1] if tail else None
    if last is None or last.ramp_ms is None or not head or head[0].ramp_ms is None:
        return list(head)
    last_from_us = tail[-2].pulses_us if len(tail) > 1 else tail_start_us
    ramp_ms = head[0].ramp_ms
    options: list[tuple[int, int, list[Timed]]] = []  # (saving in ms, overlap in ms, the chain re-timed)
    one_chain = all(piece.ramp_ms == ramp_ms and piece.blend_ms == ramp_ms for piece in head[1:])
    for factor in HANDOVER_RAMP_FACTORS if one_chain else (1.0,):
        chain = list(head) if factor == 1.0 else _retimed(config, last.pulses_us, head, round(ramp_ms * factor))
        if not chain or not corner_within_accels(config, last_from_us, last, chain[0]):
            continue
        assert chain[0].ramp_ms is not None
        extra_ms = chain_ms(chain) - chain_ms(head)
        for share in OVERLAP_SHARES:
            blend_ms = int(min(last.ramp_ms, chain[0].ramp_ms) * share)
            if blend_ms > extra_ms:
                options.append((blend_ms - extra_ms, blend_ms, chain))
    for _, blend_ms, chain in sorted(options, key=lambda option: -option[0])[:HANDOVER_TRIALS]:
        trial = [*tail, chain[0]._replace(blend_ms=blend_ms), *chain[1:]]
        if first_unclear_segment(config, tail_start_us, trial, surroundings) is None:
            return trial[len(tail) :]
    return list(head)


def _retimed(config: RobotConfig, start_us: Sequence[float], chain: Sequence[Timed], ramp_ms: int) -> list[Timed]:
    """``chain`` (one chain of pieces from rest at ``start_us``) timed with ``ramp_ms``; empty if it cannot be."""
    timing = chain_timing_for_ramp(config, start_us, [piece.pulses_us for piece in chain], ramp_ms)
    if timing is None:
        return []
    return [
        Timed(piece.pulses_us, duration_ms, ramp_ms, ramp_ms if i else 0)
        for i, (piece, duration_ms) in enumerate(zip(chain, timing.durations_ms, strict=True))
    ]
