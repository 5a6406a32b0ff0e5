"""The builder of one move's segments: chains of pieces the arm runs without stopping, holds between them, and the
timing that blends a chain's pieces, stops at a via point where a blend would not clear the board, and starts a
chain while the one before it decelerates (:mod:`.handover`).

:mod:`.segments` says which pieces a pick-and-place move is made of; this module times them.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

from .blends import Surroundings, first_unclear_segment
from .geometry import Peg
from .handover import hand_over
from .kinematics import Point
from .margins import on_peg_speed_ratio
from .paths import Pulses, level_move, straight_line
from .phases import MotionPhase
from .profile import chain_timing
from .robot import RobotConfig
from .segment import Segment, as_timed, retimed
from .timing import MIN_DURATION_MS, dwell_ms, grip_hold_ms


class Chain:
    """Pieces the arm runs without stopping, from rest at ``start_us`` to rest at the last one's target."""

    def __init__(self, start_us: Pulses, around: Surroundings) -> None:
        self.start_us = start_us
        self.around = around
        self.targets: list[Pulses] = []
        self.phases: list[MotionPhase] = []


class Still(NamedTuple):
    """A segment that moves no joint (a hold), with the board around it."""

    segment: Segment
    around: Surroundings


#: Phases whose first segment never starts before the arm is at rest: a held disk goes down its peg only once the
#: trailing servos have brought it over the peg's axis, and the fingers let go of it only once it sits on its stack.
STARTS_AT_REST = frozenset({MotionPhase.LOWER, MotionPhase.RELEASE})
#: Phases whose last segment ends at rest before anything else starts: the fingers are shut on the disk before the
#: arm lifts it (with a settle time, the hold after the grip is no trapezoid and is never overlapped anyway).
ENDS_AT_REST = frozenset({MotionPhase.GRIP})

#: How often a move's plan is made more careful (a stop, then a hold, at a via point) before it is given as is.
MAX_FIXES = 24


class Builder:
    """Collects the segments of one move: chains of pieces that blend into each other, and holds between them.

    ``heights`` (disk counts per peg) and ``holds_disk`` describe the board for what is added next; the caller
    updates them between the phases that change them.
    """

    def __init__(self, config: RobotConfig, from_us: Pulses, heights: list[int]) -> None:
        self.config = config
        self.start_us = from_us
        self.pose_us = from_us
        self.heights = heights
        self.holds_disk = False
        self.blocks: list[Chain | Still] = []
        self._chain: Chain | None = None

    @property
    def around(self) -> Surroundings:
        """The board as it is now, for the segments added next."""
        return Surroundings(tuple(self.heights), self.holds_disk)

    def add(self, phase: MotionPhase, pieces: list[Pulses]) -> None:
        """Append ``pieces`` (end pulses) to the running chain as ``phase``; a phase that moves nothing gets a
        short hold, so that every phase has a segment."""
        moving = False
        for target in pieces:
            if target == self.pose_us:
                continue
            if self._chain is None:
                self._chain = Chain(self.pose_us, self.around)
                self.blocks.append(self._chain)
            self._chain.targets.append(target)
            self._chain.phases.append(phase)
            self.pose_us = target
            moving = True
        if not moving:
            self.rest()
            self.blocks.append(Still(Segment(self.pose_us, MIN_DURATION_MS, phase), self.around))

    def rest(self) -> None:
        """End the running chain: the arm comes to rest at its last target."""
        self._chain = None

    def gripper(self, phase: MotionPhase, gripper_us: int, *, hold: bool) -> None:
        """Append ``phase``: from rest, move only the gripper to ``gripper_us``, and come to rest; with ``hold``,
        then hold that pose for the settle time (:meth:`hold`), so the fingers are shut on the disk before the
        arm moves on."""
        self.rest()
        self.add(phase, [self.config.with_gripper(self.pose_us, gripper_us)])
        self.rest()
        if hold:
            self.hold(phase)

    def hold(self, phase: MotionPhase) -> None:
        """Append a segment of ``phase`` that holds the current pose for the settle time and one PWM frame (none
        if the settle time is 0): the grip sensor is read when it is DONE (:func:`~.timing.grip_hold_ms`)."""
        hold_ms = grip_hold_ms(self.config)
        if hold_ms > 0:
            self.rest()
            self.blocks.append(Still(Segment(self.pose_us, hold_ms, phase), self.around))

    def vertical(self, phase: MotionPhase, peg: Peg, z_mm: float, gripper_us: int) -> None:
        """Append ``phase``: straight up or down along ``peg``'s axis to grip-point height ``z_mm``."""
        self.add(phase, straight_line(self.config, self.pose_us, Point(peg.x_mm, peg.y_mm, z_mm), gripper_us))

    def level(self, phase: MotionPhase, peg: Peg, z_mm: float, gripper_us: int, *, rise_first: bool = False) -> None:
        """Append ``phase``: to above ``peg`` at height ``z_mm`` without sagging; ``rise_first`` if we are lower."""
        pieces: list[Pulses] = []
        here = self.point
        if rise_first and here.z_mm < z_mm - self.config.motion.line_tolerance_mm:
            pieces = straight_line(self.config, self.pose_us, Point(here.x_mm, here.y_mm, z_mm), gripper_us)
        end = Point(peg.x_mm, peg.y_mm, z_mm)
        pieces += level_move(self.config, pieces[-1] if pieces else self.pose_us, end, gripper_us)
        self.add(phase, pieces)

    @property
    def point(self) -> Point:
        """Where the grip point is now (mm)."""
        return self.config.grip_point(self.pose_us)

    def segments(self) -> list[Segment]:
        """The timed segments: blending wherever the trailing servos stay clear of the board
        (:func:`~.blends.first_unclear_segment`); where they would not, the arm stops at that via point first, and
        if that is not enough it also holds there for the settle time."""
        stops: set[tuple[int, int]] = set()  # (block, piece) that starts from rest
        holds: set[tuple[int, int]] = set()  # (block, piece) that starts after a settle hold
        out, owners, arounds = self._timed(stops, holds)
        for _ in range(MAX_FIXES):
            timed = [as_timed(s) for s in out]
            bad = first_unclear_segment(self.config, self.start_us, timed, arounds)
            while bad is not None and bad > 0 and owners[bad] is None:
                bad -= 1  # a hold cannot go wrong by itself: the motion before it did
            owner = owners[bad] if bad is not None else None
            if owner is None:
                break
            if owner[1] > 0 and owner not in stops:
                stops.add(owner)
            elif owner not in holds and dwell_ms(self.config) > 0:
                holds.add(owner)
            else:
                break
            out, owners, arounds = self._timed(stops, holds)
        return self._start_early(out, arounds)

    def _start_early(self, out: list[Segment], arounds: list[Surroundings]) -> list[Segment]:
        """``out`` with every chain that would start from rest after a moving segment started earlier, overlapping
        it where the accelerations and the board allow (:func:`~.handover.hand_over`), except where the arm must
        be at rest (:data:`STARTS_AT_REST`, :data:`ENDS_AT_REST`). Each overlap is checked on the two chains
        around it, then the whole move once more; if that fails (the servos' lag carried over from further back),
        ``out`` is kept as is."""
        timed = [as_timed(s) for s in out]
        starts = [i for i, s in enumerate(out) if s.blend_ms == 0] + [len(out)]  # chains, holds and stills
        for before, (i, end) in zip(starts, itertools.pairwise(starts[1:]), strict=False):
            if out[i].phase in STARTS_AT_REST or out[i - 1].phase in ENDS_AT_REST:
                continue
            if timed[i].ramp_ms is None or timed[i - 1].ramp_ms is None:
                continue
            tail_start_us = timed[before - 1].pulses_us if before else self.start_us
            timed[i:end] = hand_over(self.config, tail_start_us, timed[before:i], timed[i:end], arounds[before:end])
        if timed == [as_timed(s) for s in out]:
            return out
        if first_unclear_segment(self.config, self.start_us, timed, arounds) is not None:
            return out
        return [retimed(s, t) for s, t in zip(out, timed, strict=True)]

    def _timed(
        self, stops: set[tuple[int, int]], holds: set[tuple[int, int]]
    ) -> tuple[list[Segment], list[tuple[int, int] | None], list[Surroundings]]:
        """Every block's segments in order, with the (block, piece) each comes from (None for holds) and the
        board around it."""
        out: list[Segment] = []
        owners: list[tuple[int, int] | None] = []
        arounds: list[Surroundings] = []
        for b, block in enumerate(self.blocks):
            if isinstance(block, Still):
                out.append(block.segment)
                owners.append(None)
                arounds.append(block.around)
                continue
            breaks = {0} | {i for (c, i) in stops | holds if c == b}
            for i, segment in enumerate(timed_chain(self.config, block, breaks)):
                if (b, i) in holds:
                    pose_us = out[-1].pulses_us if out else self.start_us
                    out.append(Segment(pose_us, dwell_ms(self.config), out[-1].phase if out else segment.phase))
                    owners.append(None)
                    arounds.append(block.around)
                out.append(segment)
                owners.append((b, i))
                arounds.append(block.around)
        return out, owners, arounds


def timed_chain(config: RobotConfig, chain: Chain, breaks: set[int]) -> list[Segment]:
    """The segments of ``chain``, trapezoidal, each blending into the one before except the pieces in ``breaks``
    (and the first), which start from rest: every run between breaks is timed as one chain (:mod:`.profile`)."""
    targets = chain.targets
    poses = [chain.start_us, *targets]
    bounds = [*sorted(breaks | {0}), len(targets)]
    segments: list[Segment] = []
    for lo, hi in itertools.pairwise(bounds):
        ratios = [on_peg_speed_ratio(config) if p.slides_on_peg else 1.0 for p in chain.phases[lo:hi]]
        timing = chain_timing(config, poses[lo], targets[lo:hi], ratios)
        if timing is None:  # no blend fits the acceleration limits: stop at every via point
            return timed_chain(config, chain, set(range(len(targets))))
        for j in range(lo, hi):
            blend_ms = timing.ramp_ms if j > lo else 0
            segments.append(Segment(targets[j], timing.durations_ms[j - lo], chain.phases[j], timing.ramp_ms, blend_ms))
    return segments
