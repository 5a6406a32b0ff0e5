"""Move -> Segments: the servo pulses, durations and speed profiles that pick a disk up and put it down elsewhere.

One move is eight phases (:class:`~.phases.MotionPhase`); a phase is one piece, or a few where a straight vertical
line or a level move is split so that the firmware's joint-space interpolation keeps the grip point on its path
(see :mod:`hanoibot.motion.paths`). Heights come from the actual stacks and peg tips:

- approach: from the current pose to above the source peg, the empty gripper clear of every peg tip on the way,
  opening to the disk's diameter plus ``clearance_mm`` on each side;
- descend: straight down to the top disk's mid-plane;
- grip: close to the disk's diameter minus ``squeeze_mm``, then hold still for ``settle_ms`` (a second segment to
  the same pose) so the fingers are shut on the disk before the lift, and the grip sensor can tell;
- lift: straight up until the disk's bottom clears, by ``clearance_mm``, the tip (or stack) of every peg the
  travel will pass over;
- travel: level, to above the destination peg;
- lower: straight down to the destination stack's top;
- release: open again;
- retreat: straight up until the open fingertips clear the destination peg's tip.

Only grip and release need the arm at rest. The pieces in between form chains (approach + descend, lift + travel +
lower, retreat) that the firmware runs without stopping: each piece has a trapezoidal profile timed from the
servos' speed and acceleration limits, and blends into the next (:mod:`.profile`). A blend cuts its corner, so it
is kept only where the cut is clear of the board (:mod:`.blends`); elsewhere the arm stops at that via point.

Where the arm would still come to rest between two moving chains, the second starts while the first decelerates
if the accelerations and the board allow (:mod:`.handover`): the fingers start to close while the descent ends and
the retreat starts while they finish opening (they touch the disk only at the narrow end of their travel), the
travel may start before the lift has stopped, and a move's approach during the retreat of the move before
(``previous``). The lower and the release start from rest (:data:`STARTS_AT_REST`), and the lift waits for the
fingers to shut (:data:`ENDS_AT_REST`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from ..errors import ConfigError, IllegalMove
from ..puzzle import Move, State, peg_letter
from .blends import Surroundings, Timed, first_unclear_segment
from .geometry import Peg
from .handover import hand_over
from .kinematics import Point
from .paths import Pulses, clear_height_mm, level_move, pegs_near_path, pulses_at, straight_line
from .phases import MotionPhase
from .profile import chain_timing
from .robot import RobotConfig
from .timing import MIN_DURATION_MS, duration_ms, dwell_ms, grip_hold_ms


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


class _Chain:
    """Pieces the arm runs without stopping, from rest at ``start_us`` to rest at the last one's target."""

    def __init__(self, start_us: Pulses, around: Surroundings) -> None:
        self.start_us = start_us
        self.around = around
        self.targets: list[Pulses] = []
        self.phases: list[MotionPhase] = []


class _Still(NamedTuple):
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


class _Builder:
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
        self.blocks: list[_Chain | _Still] = []
        self._chain: _Chain | None = None

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
                self._chain = _Chain(self.pose_us, self.around)
                self.blocks.append(self._chain)
            self._chain.targets.append(target)
            self._chain.phases.append(phase)
            self.pose_us = target
            moving = True
        if not moving:
            self.rest()
            self.blocks.append(_Still(Segment(self.pose_us, MIN_DURATION_MS, phase), self.around))

    def rest(self) -> None:
        """End the running chain: the arm comes to rest at its last target."""
        self._chain = None

    def gripper(self, phase: MotionPhase, gripper_us: int, *, hold: bool) -> None:
        """Append ``phase``: from rest, move only the gripper to ``gripper_us``, and come to rest; with ``hold``,
        then hold that pose for the settle time (:meth:`hold`), so the fingers are shut on the disk before the
        arm moves on."""
        self.rest()
        self.add(phase, [(*self.pose_us[:4], gripper_us)])
        self.rest()
        if hold:
            self.hold(phase)

    def hold(self, phase: MotionPhase) -> None:
        """Append a segment of ``phase`` that holds the current pose for the settle time and one PWM frame (none
        if the settle time is 0): the grip sensor is read when it is DONE (:func:`~.timing.grip_hold_ms`)."""
        hold_ms = grip_hold_ms(self.config)
        if hold_ms > 0:
            self.rest()
            self.blocks.append(_Still(Segment(self.pose_us, hold_ms, phase), self.around))

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
            timed = [_timed(s) for s in out]
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
        timed = [_timed(s) for s in out]
        starts = [i for i, s in enumerate(out) if s.blend_ms == 0] + [len(out)]  # chains, holds and stills
        for before, (i, end) in zip(starts, itertools.pairwise(starts[1:]), strict=False):
            if out[i].phase in STARTS_AT_REST or out[i - 1].phase in ENDS_AT_REST:
                continue
            if timed[i].ramp_ms is None or timed[i - 1].ramp_ms is None:
                continue
            tail_start_us = timed[before - 1].pulses_us if before else self.start_us
            timed[i:end] = hand_over(self.config, tail_start_us, timed[before:i], timed[i:end], arounds[before:end])
        if timed == [_timed(s) for s in out]:
            return out
        if first_unclear_segment(self.config, self.start_us, timed, arounds) is not None:
            return out
        return [_retimed(s, t) for s, t in zip(out, timed, strict=True)]

    def _timed(
        self, stops: set[tuple[int, int]], holds: set[tuple[int, int]]
    ) -> tuple[list[Segment], list[tuple[int, int] | None], list[Surroundings]]:
        """Every block's segments in order, with the (block, piece) each comes from (None for holds) and the
        board around it."""
        out: list[Segment] = []
        owners: list[tuple[int, int] | None] = []
        arounds: list[Surroundings] = []
        for b, block in enumerate(self.blocks):
            if isinstance(block, _Still):
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


def _timed(segment: Segment) -> Timed:
    """``segment`` as the firmware times it."""
    return Timed(segment.pulses_us, segment.duration_ms, segment.ramp_ms, segment.blend_ms)


def _retimed(segment: Segment, timed: Timed) -> Segment:
    """``segment`` with the duration and profile of ``timed``."""
    return segment._replace(duration_ms=timed.duration_ms, ramp_ms=timed.ramp_ms, blend_ms=timed.blend_ms)


def timed_chain(config: RobotConfig, chain: _Chain, breaks: set[int]) -> list[Segment]:
    """The segments of ``chain``, trapezoidal, each blending into the one before except the pieces in ``breaks``
    (and the first), which start from rest: every run between breaks is timed as one chain (:mod:`.profile`)."""
    targets = chain.targets
    poses = [chain.start_us, *targets]
    bounds = [*sorted(breaks | {0}), len(targets)]
    segments: list[Segment] = []
    for lo, hi in itertools.pairwise(bounds):
        ratios = [config.motion.on_peg_speed_ratio if p.slides_on_peg else 1.0 for p in chain.phases[lo:hi]]
        timing = chain_timing(config, poses[lo], targets[lo:hi], ratios)
        if timing is None:  # no blend fits the acceleration limits: stop at every via point
            return timed_chain(config, chain, set(range(len(targets))))
        for j in range(lo, hi):
            blend_ms = timing.ramp_ms if j > lo else 0
            segments.append(Segment(targets[j], timing.durations_ms[j - lo], chain.phases[j], timing.ramp_ms, blend_ms))
    return segments


def _check_move(config: RobotConfig, state: State, move: Move) -> None:
    """The board must have the state's pegs and disks, and ``move.disk`` must be on top of ``move.src``."""
    if state.pegs > len(config.board.pegs):
        raise ConfigError(
            f"[[board.pegs]]: the board has {len(config.board.pegs)} pegs but the state has {state.pegs}; "
            f"expected at least {state.pegs} [[board.pegs]] tables"
        )
    if state.n_disks > config.board.disk_count:
        raise ConfigError(
            f"[board] disk_count = {config.board.disk_count}: the state has {state.n_disks} disks; "
            "expected at least as many disks on the board"
        )
    if not (0 <= move.src < state.pegs and 0 <= move.dst < state.pegs) or move.src == move.dst:
        raise IllegalMove(f"move {move} needs two different pegs of the {state.pegs} on the board")
    if state.top(move.src) != move.disk:
        raise IllegalMove(f"disk {move.disk} is not on top of peg {peg_letter(move.src)} in state {state}")


def segments_for_move(
    config: RobotConfig,
    state_before: State,
    move: Move,
    *,
    from_pulses_us: Sequence[int] | None = None,
    previous: Sequence[Segment] = (),
) -> list[Segment]:
    """The segments, in :class:`~.phases.MotionPhase` order, that carry out ``move`` from ``state_before``.

    ``from_pulses_us`` is where the arm is now (channel order, µs; default the start pose): the approach
    starts there. The last segment's pulses are where the next move starts. ``previous``: the segments of the
    move just before, if the arm runs straight on from them (they end at ``from_pulses_us``); the approach may then
    blend into their retreat (:mod:`.handover`).
    """
    _check_move(config, state_before, move)
    board, motion = config.board, config.motion
    src, dst = board.peg(move.src), board.peg(move.dst)
    diameter_mm = board.disk_diameter_mm(move.disk)
    open_us = round(config.gripper.pulse_for_width_us(diameter_mm + 2 * motion.clearance_mm))
    grip_us = _grip_us(config, diameter_mm)
    heights = [state_before.height(i) for i in range(state_before.pegs)]
    build = _Builder(config, tuple(from_pulses_us) if from_pulses_us is not None else config.start_pulses_us(), heights)

    # The empty open fingers clear every peg between here and the source; rise first if we are lower.
    above_src = pulses_at(config, Point(src.x_mm, src.y_mm, src.height_mm), open_us)
    half_width_mm = config.gripper.open_width_mm / 2
    hover_z_mm = _clear_z_mm(config, heights, build.pose_us, above_src, half_width_mm, {move.src})
    build.level(MotionPhase.APPROACH, src, hover_z_mm, open_us, rise_first=True)
    build.vertical(MotionPhase.DESCEND, src, board.grip_z_mm(heights[move.src] - 1), open_us)
    build.gripper(MotionPhase.GRIP, grip_us, hold=True)

    # The held disk's bottom clears every peg (or stack) its path passes near, source and destination included.
    heights[move.src] -= 1
    build.heights, build.holds_disk = heights, True
    lifted = pulses_at(config, Point(src.x_mm, src.y_mm, dst.height_mm), grip_us)
    above_dst = pulses_at(config, Point(dst.x_mm, dst.y_mm, dst.height_mm), grip_us)
    carry_z_mm = _clear_z_mm(config, heights, lifted, above_dst, diameter_mm / 2, {move.src, move.dst})
    carry_z_mm += board.disk_thickness_mm / 2
    build.vertical(MotionPhase.LIFT, src, carry_z_mm, grip_us)
    _place(build, move.dst, carry_z_mm, board.grip_z_mm(heights[move.dst]), grip_us, open_us, rise_first=False)
    segments = build.segments()
    if previous:
        segments = _handed_over(config, state_before, previous, segments)
    return segments


def _handed_over(
    config: RobotConfig, state: State, previous: Sequence[Segment], segments: list[Segment]
) -> list[Segment]:
    """``segments`` (a move from ``state``) as they run right after ``previous``, the move before it: the first
    chain overlapping its retreat where that saves time (:func:`~.handover.hand_over`), else unchanged."""
    phases = [s.phase for s in previous]
    if MotionPhase.RELEASE not in phases or phases[-1] is not MotionPhase.RETREAT:
        return segments
    release = len(phases) - 1 - phases[::-1].index(MotionPhase.RELEASE)
    if release == 0:
        return segments
    tail = [_timed(s) for s in previous[release:]]
    head = [_timed(s) for s in itertools.takewhile(lambda s: s.phase in _HEAD_PHASES, segments)]
    around = Surroundings(tuple(state.height(i) for i in range(state.pegs)), holds_disk=False)
    timed = hand_over(config, previous[release - 1].pulses_us, tail, head, [around] * (len(tail) + len(head)))
    return [*(_retimed(s, t) for s, t in zip(segments, timed, strict=False)), *segments[len(timed) :]]


#: The phases of a move's first chain, which may overlap the move before it.
_HEAD_PHASES = (MotionPhase.APPROACH, MotionPhase.DESCEND)


def _place(
    build: _Builder, dst: int, carry_z_mm: float, grip_z_mm: float, grip_us: int, open_us: int, *, rise_first: bool
) -> None:
    """Append travel (level at ``carry_z_mm``), lower to ``grip_z_mm``, release and retreat at peg ``dst``.

    ``build`` holds the disk, with the board's disk counts (the disk not counted on any peg)."""
    peg = build.config.board.peg(dst)
    build.holds_disk = True
    build.level(MotionPhase.TRAVEL, peg, carry_z_mm, grip_us, rise_first=rise_first)
    build.rest()  # the lower starts from rest (STARTS_AT_REST): the trailing servos first bring the disk over the axis
    build.vertical(MotionPhase.LOWER, peg, grip_z_mm, grip_us)
    build.gripper(MotionPhase.RELEASE, open_us, hold=False)
    heights = [*build.heights]
    while len(heights) <= dst:
        heights.append(0)
    heights[dst] += 1
    build.heights, build.holds_disk = heights, False
    build.vertical(MotionPhase.RETREAT, peg, peg.height_mm + build.config.motion.clearance_mm, open_us)


def _grip_us(config: RobotConfig, diameter_mm: float) -> int:
    """Gripper pulse (µs) that closes the fingers on a disk of ``diameter_mm``, squeezing it."""
    return round(config.gripper.pulse_for_width_us(diameter_mm - config.gripper.squeeze_mm))


def regrip_segments(config: RobotConfig, disk: int, from_pulses_us: Sequence[int]) -> list[Segment]:
    """Segments that close the fingers firmly on ``disk`` (as a pick does) where the arm is, then settle."""
    build = _Builder(config, tuple(from_pulses_us), [])
    build.holds_disk = True
    build.gripper(MotionPhase.GRIP, _grip_us(config, config.board.disk_diameter_mm(disk)), hold=True)
    return build.segments()


def put_down_segments(
    config: RobotConfig, state: State, disk: int, src: int, dst: int, *, from_pulses_us: Sequence[int]
) -> list[Segment]:
    """Segments that put down ``disk``, held in the fingers since it was taken off ``src``, on top of ``dst``.

    ``state`` is the board with the disk still counted on ``src`` (``dst`` may be ``src``: it goes back).
    ``from_pulses_us`` (µs) is where the arm holds it now, fingers shut on it (see :func:`regrip_segments`) and
    lifted clear of every peg (see :func:`hanoibot.run.release.lift_clear`). The disk travels level at a height
    that clears every peg and stack on the way (rising straight up first if it is lower), is lowered onto the
    stack and released, and the open fingers rise clear of the peg's tip.
    """
    if state.top(src) != disk:
        raise IllegalMove(f"disk {disk} did not come off the top of peg {peg_letter(src)} in state {state}")
    board = config.board
    diameter_mm = board.disk_diameter_mm(disk)
    open_us = round(config.gripper.pulse_for_width_us(diameter_mm + 2 * config.motion.clearance_mm))
    grip_us = _grip_us(config, diameter_mm)
    heights = [state.height(i) for i in range(state.pegs)]
    heights[src] -= 1
    build = _Builder(config, (*from_pulses_us[:-1], grip_us), heights)
    build.holds_disk = True
    peg = board.peg(dst)
    above_dst = pulses_at(config, Point(peg.x_mm, peg.y_mm, peg.height_mm), grip_us)
    clear_z_mm = _clear_z_mm(config, heights, build.pose_us, above_dst, diameter_mm / 2, {dst})
    carry_z_mm = max(clear_z_mm + board.disk_thickness_mm / 2, build.point.z_mm)
    _place(build, dst, carry_z_mm, board.grip_z_mm(heights[dst]), grip_us, open_us, rise_first=True)
    return build.segments()


def _clear_z_mm(
    config: RobotConfig,
    heights: list[int],
    from_us: Sequence[float],
    to_us: Sequence[float],
    half_width_mm: float,
    always: set[int],
) -> float:
    """Height in mm that clears, by ``clearance_mm``, the pegs and stacks near the path and the ``always`` pegs.

    ``heights`` are the disk counts per peg of the puzzle (pegs of the board beyond them are empty).
    """
    near = set(pegs_near_path(config, from_us, to_us, half_width_mm + config.motion.clearance_mm)) | always
    thickness_mm = config.board.disk_thickness_mm
    tops_mm = [clear_height_mm(config.board.peg(i), heights[i] if i < len(heights) else 0, thickness_mm) for i in near]
    return max(tops_mm) + config.motion.clearance_mm


def segments_for_moves(
    config: RobotConfig, state: State, moves: Iterable[Move], *, from_pulses_us: Sequence[int] | None = None
) -> Iterator[tuple[Move, list[Segment]]]:
    """Segments of each move in turn, each approach starting where the previous move's retreat ended (and
    blending into it where it can, :mod:`.handover`).

    ``state`` is the board before the first move; moves are applied without rule checks (the planner's job),
    only checking that each moved disk is on top of its source peg.
    """
    pose_us = from_pulses_us
    previous: list[Segment] = []
    for move in moves:
        segments = segments_for_move(config, state, move, from_pulses_us=pose_us, previous=previous)
        yield move, segments
        pose_us, previous = segments[-1].pulses_us, segments
        stacks = [list(stack) for stack in state.stacks]
        stacks[move.dst].append(stacks[move.src].pop())
        state = State(stacks)
