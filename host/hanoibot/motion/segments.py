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
- lower: straight down to just above the destination stack's top (:func:`~.margins.place_gap_mm`: the height
  errors of the arm and the disks never press the disk into the stack), where the disk is let go;
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
(``previous``). The lower and the release start from rest (:data:`.segment_builder.STARTS_AT_REST`), and the lift
waits for the fingers to shut (:data:`.segment_builder.ENDS_AT_REST`).

A level claw (a side grasp, :attr:`hanoibot.arm.GraspMode.SIDE`) cannot come down over a disk: its fingers lie
flat, pointing away from the base, and close on the disk across its middle with their tips at the peg's axis. Its
approach ends at the **standoff** (:func:`~.claw.standoff_xy_mm`), one disk radius plus ``clearance_mm`` nearer the
base than the peg's axis, the claw's bottom ``clearance_mm`` above every peg tip; the descent goes straight down
there to the disk's mid-plane and then radially in to the axis, the open fingers passing either side of the disk
and above the wider disk below it (a finger is no taller than a disk: :mod:`.workspace`). Lift, travel and lower are
the top-down ones (up and down the peg's axis, the claw beside the peg); the retreat goes radially out to the
placed disk's standoff, then up until the claw's bottom clears the peg's tip. Every height it clears is the claw's
bottom (half a finger's width below the grip point), over every peg of the board (the claw reaches back from the
grip point).

This module says which pieces make a move; :mod:`.segment_builder` times them, :mod:`.segment` is one segment.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence

from ..arm import GraspMode
from ..errors import ConfigError, IllegalMove
from ..puzzle import Move, State, peg_letter
from .blends import Surroundings
from .claw import standoff_xy_mm
from .geometry import Peg
from .handover import hand_over
from .kinematics import Point
from .margins import place_gap_mm
from .paths import clear_height_mm, pegs_near_path, pulses_at
from .phases import MotionPhase
from .robot import RobotConfig
from .segment import Segment, as_timed, retimed
from .segment_builder import Builder


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
    build = Builder(config, tuple(from_pulses_us) if from_pulses_us is not None else config.start_pulses_us(), heights)

    # The empty open fingers clear every peg between here and the source; rise first if we are lower.
    side = _is_side(config)
    over = _standoff(config, src, diameter_mm) if side else src
    above_src = pulses_at(config, Point(over.x_mm, over.y_mm, src.height_mm), open_us)
    half_width_mm = config.gripper.open_width_mm / 2
    hover_z_mm = _claw_z_mm(config, _clear_z_mm(config, heights, build.pose_us, above_src, half_width_mm, {move.src}))
    build.level(MotionPhase.APPROACH, over, hover_z_mm, open_us, rise_first=True)
    build.vertical(MotionPhase.DESCEND, over, board.grip_z_mm(heights[move.src] - 1), open_us)
    if side:  # radially in, the open claw either side of the disk
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
    tail = [as_timed(s) for s in previous[release:]]
    head = [as_timed(s) for s in itertools.takewhile(lambda s: s.phase in _HEAD_PHASES, segments)]
    around = Surroundings(tuple(state.height(i) for i in range(state.pegs)), holds_disk=False)
    timed = hand_over(config, previous[release - 1].pulses_us, tail, head, [around] * (len(tail) + len(head)))
    return [*(retimed(s, t) for s, t in zip(segments, timed, strict=False)), *segments[len(timed) :]]


#: The phases of a move's first chain, which may overlap the move before it.
_HEAD_PHASES = (MotionPhase.APPROACH, MotionPhase.DESCEND)


def _place(
    build: Builder, dst: int, carry_z_mm: float, grip_z_mm: float, grip_us: int, open_us: int, *, rise_first: bool
) -> None:
    """Append travel (level at ``carry_z_mm``), lower to ``grip_z_mm``, release and retreat at peg ``dst``.

    ``build`` holds the disk, with the board's disk counts (the disk not counted on any peg)."""
    peg = build.config.board.peg(dst)
    build.holds_disk = True
    build.level(MotionPhase.TRAVEL, peg, carry_z_mm, grip_us, rise_first=rise_first)
    build.rest()  # the lower starts from rest (STARTS_AT_REST): the trailing servos first bring the disk over the axis
    # It ends a little above the stack, so height errors never press the disk into it: the disk drops the rest.
    build.vertical(MotionPhase.LOWER, peg, grip_z_mm + place_gap_mm(build.config), grip_us)
    build.gripper(MotionPhase.RELEASE, open_us, hold=False)
    heights = [*build.heights]
    while len(heights) <= dst:
        heights.append(0)
    heights[dst] += 1
    build.heights, build.holds_disk = heights, False
    config = build.config
    if _is_side(config):  # radially out to the placed disk's standoff, then up beside the peg
        width_mm = config.gripper.width_mm(grip_us) + config.gripper.squeeze_mm
        out = _standoff(config, peg, width_mm)
        build.vertical(MotionPhase.RETREAT, out, build.point.z_mm, open_us)
        build.vertical(
            MotionPhase.RETREAT, out, _claw_z_mm(config, peg.height_mm + config.motion.clearance_mm), open_us
        )
        return
    build.vertical(MotionPhase.RETREAT, peg, peg.height_mm + config.motion.clearance_mm, open_us)


def _grip_us(config: RobotConfig, diameter_mm: float) -> int:
    """Gripper pulse (µs) that closes the fingers on a disk of ``diameter_mm``, squeezing it."""
    return round(config.gripper.pulse_for_width_us(diameter_mm - config.gripper.squeeze_mm))


def regrip_segments(config: RobotConfig, disk: int, from_pulses_us: Sequence[int]) -> list[Segment]:
    """Segments that close the fingers firmly on ``disk`` (as a pick does) where the arm is, then settle."""
    build = Builder(config, tuple(from_pulses_us), [])
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
    build = Builder(config, config.with_gripper(from_pulses_us, grip_us), heights)
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
    """Height in mm that clears, by ``clearance_mm``, the pegs and stacks near the path and the ``always`` pegs
    (every peg for a level claw).

    ``heights`` are the disk counts per peg of the puzzle (pegs of the board beyond them are empty).
    """
    near = set(pegs_near_path(config, from_us, to_us, half_width_mm + config.motion.clearance_mm)) | always
    if _is_side(config):  # the claw reaches back from the grip point: it clears every peg
        near = set(range(len(config.board.pegs)))
    thickness_mm = config.board.disk_thickness_mm
    tops_mm = [clear_height_mm(config.board.peg(i), heights[i] if i < len(heights) else 0, thickness_mm) for i in near]
    return max(tops_mm) + config.motion.clearance_mm


def _is_side(config: RobotConfig) -> bool:
    """True for an arm that takes disks from the side with a level claw."""
    return config.chain.grasp is GraspMode.SIDE


def _claw_z_mm(config: RobotConfig, bottom_z_mm: float) -> float:
    """Grip-point height (mm) that puts the tool's lowest point at ``bottom_z_mm``: the fingertips' for a gripper
    pointing down, half a finger's width lower for a level claw (its fingers are centred on the grip point)."""
    return bottom_z_mm + (config.gripper.finger_width_mm / 2 if _is_side(config) else 0.0)


def _standoff(config: RobotConfig, peg: Peg, diameter_mm: float) -> Peg:
    """Where a level claw's radial approach to a disk of ``diameter_mm`` on ``peg`` starts (and its retreat ends):
    one disk radius plus ``clearance_mm`` nearer the base, as a peg spot of ``peg``'s height (mm)."""
    x_mm, y_mm = standoff_xy_mm(peg.x_mm, peg.y_mm, diameter_mm / 2 + config.motion.clearance_mm)
    return Peg(f"{peg.name} standoff", x_mm, y_mm, peg.height_mm)


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
