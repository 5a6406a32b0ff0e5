"""Move -> Segments: the servo pulses and durations that pick a disk up and put it down on another peg.

One move is eight phases (:class:`~.phases.MotionPhase`); a phase is one segment, or a few where a straight vertical
line or a level move is split so that the firmware's joint-space interpolation keeps the grip point on its path
(see :mod:`hanoibot.motion.paths`). Heights come from the actual stacks and peg tips:

- approach: from the current pose to above the source peg, the empty gripper clear of every peg tip on the way,
  opening to the disk's diameter plus ``clearance_mm`` on each side;
- descend: straight down to the top disk's mid-plane;
- grip: close to the disk's diameter minus ``squeeze_mm``, then hold still for ``settle_ms`` (a second segment to
  the same pose) so the fingers are shut on the disk before the lift;
- lift: straight up until the disk's bottom clears, by ``clearance_mm``, the tip (or stack) of every peg the
  travel will pass over;
- travel: level, to above the destination peg, then hold still for ``settle_ms`` so the lagging base and arm
  joints are over the peg's axis before the held disk is lowered over its tip;
- lower: straight down to the destination stack's top;
- release: open again, then hold for ``settle_ms`` so the fingers are clear of the disk before the retreat;
- retreat: straight up until the open fingertips clear the destination peg's tip.

Durations come from the servo speed limits and the measured settle time (:mod:`hanoibot.motion.timing`), never
from fixed delays.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from ..errors import ConfigError, IllegalMove
from ..puzzle import Move, State, peg_letter
from .geometry import Peg
from .kinematics import Point
from .paths import Pulses, clear_height_mm, level_move, pegs_near_path, pulses_at, straight_line
from .phases import MotionPhase
from .robot import RobotConfig
from .timing import duration_ms, dwell_ms


class Segment(NamedTuple):
    """One firmware MOVE: every channel's target pulse (µs, channel order), the time to get there (ms), the phase
    (None for the move home, which belongs to no pick-and-place)."""

    pulses_us: tuple[int, ...]
    duration_ms: int
    phase: MotionPhase | None


def home_segment(config: RobotConfig, from_pulses_us: Sequence[int] | None = None) -> Segment:
    """A segment to the start pose from ``from_pulses_us`` (default: the start pose itself: a short hold).

    Safe from any pose whose gripper is above the peg tips, as every move's retreat leaves it.
    """
    target = config.start_pulses_us()
    start = tuple(from_pulses_us) if from_pulses_us is not None else target
    return Segment(target, duration_ms(config, start, target), None)


class _Builder:
    """Collects the segments of one move, tracking the pose each piece starts from."""

    def __init__(self, config: RobotConfig, from_us: Pulses) -> None:
        self.config = config
        self.pose_us = from_us
        self.segments: list[Segment] = []

    def add(self, phase: MotionPhase, pieces: list[Pulses]) -> None:
        """Append ``pieces`` (end pulses) as segments of ``phase``; only the last one waits for the servos to settle."""
        for i, target in enumerate(pieces):
            settle = i == len(pieces) - 1
            self.segments.append(Segment(target, duration_ms(self.config, self.pose_us, target, settle=settle), phase))
            self.pose_us = target

    def gripper(self, phase: MotionPhase, gripper_us: int) -> None:
        """Append ``phase``: move only the gripper to ``gripper_us``, then hold that pose for the settle time.

        The move is timed like the last piece of any phase (settle time spread over it, so the trailing servo
        can follow its command); the hold (:meth:`hold`) is a real pause in which the fingers finish shutting
        on the disk (or opening) before the arm moves on.
        """
        self.add(phase, [(*self.pose_us[:4], gripper_us)])
        self.hold(phase)

    def hold(self, phase: MotionPhase) -> None:
        """Append a segment of ``phase`` that holds the current pose for the settle time (none if it is 0)."""
        hold_ms = dwell_ms(self.config)
        if hold_ms > 0:
            self.segments.append(Segment(self.pose_us, hold_ms, phase))

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
    config: RobotConfig, state_before: State, move: Move, *, from_pulses_us: Sequence[int] | None = None
) -> list[Segment]:
    """The segments, in :class:`~.phases.MotionPhase` order, that carry out ``move`` from ``state_before``.

    ``from_pulses_us`` is where the arm is now (channel order, µs; default the start pose): the approach
    starts there. The last segment's pulses are where the next move starts.
    """
    _check_move(config, state_before, move)
    board, motion = config.board, config.motion
    src, dst = board.peg(move.src), board.peg(move.dst)
    diameter_mm = board.disk_diameter_mm(move.disk)
    open_us = round(config.gripper.pulse_for_width_us(diameter_mm + 2 * motion.clearance_mm))
    grip_us = _grip_us(config, diameter_mm)
    build = _Builder(config, tuple(from_pulses_us) if from_pulses_us is not None else config.start_pulses_us())
    heights = [state_before.height(i) for i in range(state_before.pegs)]

    # The empty open fingers clear every peg between here and the source; rise first if we are lower.
    above_src = pulses_at(config, Point(src.x_mm, src.y_mm, src.height_mm), open_us)
    half_width_mm = config.gripper.open_width_mm / 2
    hover_z_mm = _clear_z_mm(config, heights, build.pose_us, above_src, half_width_mm, {move.src})
    build.level(MotionPhase.APPROACH, src, hover_z_mm, open_us, rise_first=True)
    build.vertical(MotionPhase.DESCEND, src, board.grip_z_mm(heights[move.src] - 1), open_us)
    build.gripper(MotionPhase.GRIP, grip_us)

    # The held disk's bottom clears every peg (or stack) its path passes near, source and destination included.
    heights[move.src] -= 1
    lifted = pulses_at(config, Point(src.x_mm, src.y_mm, dst.height_mm), grip_us)
    above_dst = pulses_at(config, Point(dst.x_mm, dst.y_mm, dst.height_mm), grip_us)
    carry_z_mm = _clear_z_mm(config, heights, lifted, above_dst, diameter_mm / 2, {move.src, move.dst})
    carry_z_mm += board.disk_thickness_mm / 2
    build.vertical(MotionPhase.LIFT, src, carry_z_mm, grip_us)
    _place(build, dst, carry_z_mm, board.grip_z_mm(heights[move.dst]), grip_us, open_us, rise_first=False)
    return build.segments


def _place(
    build: _Builder, dst: Peg, carry_z_mm: float, grip_z_mm: float, grip_us: int, open_us: int, *, rise_first: bool
) -> None:
    """Append travel (level at ``carry_z_mm``, then a settle hold), lower to ``grip_z_mm``, release, retreat."""
    build.level(MotionPhase.TRAVEL, dst, carry_z_mm, grip_us, rise_first=rise_first)
    build.hold(MotionPhase.TRAVEL)  # the trailing joints reach the peg axis before the disk goes down over the tip
    build.vertical(MotionPhase.LOWER, dst, grip_z_mm, grip_us)
    build.gripper(MotionPhase.RELEASE, open_us)
    build.vertical(MotionPhase.RETREAT, dst, dst.height_mm + build.config.motion.clearance_mm, open_us)


def _grip_us(config: RobotConfig, diameter_mm: float) -> int:
    """Gripper pulse (µs) that closes the fingers on a disk of ``diameter_mm``, squeezing it."""
    return round(config.gripper.pulse_for_width_us(diameter_mm - config.gripper.squeeze_mm))


def regrip_segments(config: RobotConfig, disk: int, from_pulses_us: Sequence[int]) -> list[Segment]:
    """Segments that close the fingers firmly on ``disk`` (as a pick does) where the arm is, then settle."""
    build = _Builder(config, tuple(from_pulses_us))
    build.gripper(MotionPhase.GRIP, _grip_us(config, config.board.disk_diameter_mm(disk)))
    return build.segments


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
    build = _Builder(config, (*from_pulses_us[:-1], grip_us))
    heights = [state.height(i) for i in range(state.pegs)]
    heights[src] -= 1
    peg = board.peg(dst)
    above_dst = pulses_at(config, Point(peg.x_mm, peg.y_mm, peg.height_mm), grip_us)
    clear_z_mm = _clear_z_mm(config, heights, build.pose_us, above_dst, diameter_mm / 2, {dst})
    carry_z_mm = max(clear_z_mm + board.disk_thickness_mm / 2, build.point.z_mm)
    _place(build, peg, carry_z_mm, board.grip_z_mm(heights[dst]), grip_us, open_us, rise_first=True)
    return build.segments


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
    """Segments of each move in turn, each approach starting where the previous move's retreat ended.

    ``state`` is the board before the first move; moves are applied without rule checks (the planner's job),
    only checking that each moved disk is on top of its source peg.
    """
    pose_us = from_pulses_us
    for move in moves:
        segments = segments_for_move(config, state, move, from_pulses_us=pose_us)
        yield move, segments
        pose_us = segments[-1].pulses_us
        stacks = [list(stack) for stack in state.stacks]
        stacks[move.dst].append(stacks[move.src].pop())
        state = State(stacks)
