"""Where the arm really goes through a move's segments, and whether that keeps clear of the board.

The commands are the firmware's own: :func:`horn_trace` replays the segments through ``hanoifw.motion.Motion``
(its profiles and blends: a blending segment starts ``min(blend, both ramps)`` before its predecessor ends and the
two motions add up, so a blend cuts its corner) stepped every :data:`CONTROL_TICK_MS`, as the board's loop steps
it. The servos then measure one pulse per PWM frame and follow it by the one servo model that the simulated world
uses too (:mod:`.servo_model`: a position loop with a top speed, which cuts every corner a little more, stops
included). :func:`first_unclear_segment` follows the horns through the segments and accepts every point that is

- within 1.5 ``[motion] line_tolerance_mm`` of the move's planned grip-point path (the polyline through the
  segments' targets: a straight piece itself may wander the tolerance from it, and the blends and the lag may add
  half as much again) - or, for the empty gripper, within
  ``clearance_mm / 2``: its fingers open ``clearance_mm`` wider than the disk on each side, so they keep half of
  that from the rim (and more from the peg inside the disk) - or
- in free space: the fingertips, and the bottom of a held disk, at least ``clearance_mm / 2`` above the peg tip
  and stack of every peg whose axis is within reach (the open gripper's half width plus ``clearance_mm``, plus
  the largest disk's radius) - so a lift may turn into the travel once the disk is well above the tips; the
  empty fingers need only be that far above the stack if the peg's tip stays ``clearance_mm / 2`` inside
  their open ring. A level claw's (a side grasp's) lowest point is half a finger's width below its grip point.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from hanoifw.motion import Motion

from ..arm import GraspMode
from .kinematics import Point
from .paths import distance_to_line_mm
from .robot import RobotConfig
from .servo_model import PWM_FRAME_S, RESPONSE_S, ServoState, ServoTraits, approach_us, follow

#: Time step in ms at which the horns are checked.
STEP_MS = 4
#: The board's control period in ms: the firmware advances its motion and writes the pulses this often.
CONTROL_TICK_MS = 10
#: Where the servos' PWM frames start (ms) relative to the control tick a move starts at: half a tick later (a
#: board's PWM counter runs apart from its control loop; the simulated board does the same).
FRAME_PHASE_MS = CONTROL_TICK_MS / 2
#: Queue depth of the firmware (hanoifw.controller's default): segments the replay keeps queued.
QUEUE_DEPTH = 8
#: How far from the planned path a point may be, in units of ``line_tolerance_mm``: a piece itself may wander
#: that far from its line, and the blends and the servos' lag may add half as much again.
NEAR_FACTOR = 1.5


class Surroundings(NamedTuple):
    """The board while a segment runs: disk counts per peg, and whether a disk hangs from the fingers."""

    heights: tuple[int, ...]
    holds_disk: bool


class Timed(NamedTuple):
    """A segment as the firmware times it: target pulses, duration (ms), ramp (ms, None = minimum jerk), blend."""

    pulses_us: tuple[int, ...]
    duration_ms: int
    ramp_ms: int | None
    blend_ms: int


def trapezoid_progress(elapsed_ms: float, duration_ms: float, ramp_ms: float) -> float:
    """Progress 0..1 of the firmware's trapezoidal profile at ``elapsed_ms`` of a ``duration_ms`` piece that
    accelerates for ``ramp_ms`` and decelerates for the last ``ramp_ms`` (hanoifw/motion.py, in floating point)."""
    t = min(max(elapsed_ms, 0.0), duration_ms)
    if ramp_ms <= 0:
        return t / duration_ms
    peak = 1.0 / (duration_ms - ramp_ms)
    accel = peak / ramp_ms
    if t < ramp_ms:
        return accel * t * t / 2
    if t <= duration_ms - ramp_ms:
        return peak * (t - ramp_ms / 2)
    left = duration_ms - t
    return 1.0 - accel * left * left / 2


def progress(elapsed_ms: float, segment: Timed) -> float:
    """Progress 0..1 of ``segment`` at ``elapsed_ms``: its trapezoid, or the minimum-jerk profile."""
    if segment.ramp_ms is not None:
        return trapezoid_progress(elapsed_ms, segment.duration_ms, segment.ramp_ms)
    u = min(max(elapsed_ms / segment.duration_ms, 0.0), 1.0)
    return u * u * u * (10 - 15 * u + 6 * u * u)


def start_times_ms(segments: Sequence[Timed]) -> list[int]:
    """When each segment starts (ms from the first one's start), blends overlapping as the firmware runs them."""
    starts = [0]
    for before, after in itertools.pairwise(segments):
        overlap_ms = 0
        if before.ramp_ms is not None and after.ramp_ms is not None:
            overlap_ms = min(after.blend_ms, before.ramp_ms, after.ramp_ms)
        starts.append(starts[-1] + before.duration_ms - overlap_ms)
    return starts


def _is_plain(traits: ServoTraits) -> bool:
    """True for a servo :func:`~.servo_model.follow` moves by the closed form alone, its horn where its motor is."""
    return traits.max_speed_us_s is not None and traits.is_plain


def servo_traits(config: RobotConfig) -> list[ServoTraits]:
    """The servos the checker assumes, one per channel: the config's top speeds (µs/s) and the model's loop."""
    return [ServoTraits(rate, RESPONSE_S) for rate in config.max_speeds_us_s()]


def horn_trace(
    start_us: Sequence[float],
    segments: Sequence[Timed],
    traits: Sequence[ServoTraits],
    *,
    step_ms: float = STEP_MS,
    settle_ms: float = 0.0,
) -> Iterator[tuple[float, int, list[float]]]:
    """(time in ms, index of the segment that started last, horn pulses in µs) every ``step_ms`` from the first
    segment's start until ``settle_ms`` after the last one ends: the firmware's commands (module docstring) as
    servos with ``traits`` follow them, one pulse per PWM frame."""
    starts = start_times_ms(segments)
    motion = Motion(len(start_us), QUEUE_DEPTH)
    command = [round(p) for p in start_us]
    done: list[int] = []
    sent = 0
    plain: list[tuple[float, float]] | None = None
    if all(_is_plain(tr) for tr in traits):
        plain = [(float(tr.max_speed_us_s or 0.0), tr.response_s) for tr in traits]
    horns: list = [float(p) for p in start_us] if plain is not None else [ServoState.at(p) for p in start_us]

    def advance(horns: list, pulses_us: list[int], elapsed_s: float) -> list:
        """The horns ``elapsed_s`` later, each following its pulse: plain servos by the closed form alone
        (:func:`~.servo_model.approach_us`, what :func:`~.servo_model.follow` does for them, without its states)."""
        if plain is None:
            return [follow(tr, h, p, elapsed_s) for tr, h, p in zip(traits, horns, pulses_us, strict=True)]
        if elapsed_s <= 0:
            return horns
        return [
            approach_us(h, p, elapsed_s, top, tau) for (top, tau), h, p in zip(plain, horns, pulses_us, strict=True)
        ]

    latched = list(command)
    end_ms = starts[-1] + segments[-1].duration_ms + settle_ms
    tick_ms = 0.0  # the firmware has advanced to here
    frame_ms = FRAME_PHASE_MS  # the next PWM frame starts here
    state_ms = 0.0  # the horns are known up to here
    active = 0
    t_ms = 0.0
    while t_ms <= end_ms:
        while frame_ms <= t_ms:
            while tick_ms + CONTROL_TICK_MS <= frame_ms:  # the firmware's ticks before this frame starts
                while sent < len(segments) and motion.free_slots:
                    s = segments[sent]
                    ramp_ms = -1 if s.ramp_ms is None else s.ramp_ms
                    motion.push(sent + 1, s.duration_ms, list(s.pulses_us), ramp_ms, s.blend_ms)
                    sent += 1
                motion.advance(CONTROL_TICK_MS, command, done)
                tick_ms += CONTROL_TICK_MS
            horns = advance(horns, latched, (frame_ms - state_ms) / 1000)
            latched = list(command)
            state_ms = frame_ms
            frame_ms += PWM_FRAME_S * 1000
        while active + 1 < len(starts) and starts[active + 1] <= t_ms:
            active += 1
        horns = advance(horns, latched, (t_ms - state_ms) / 1000)
        state_ms = t_ms
        yield t_ms, active, [h.horn_us for h in horns] if plain is None else horns
        t_ms += step_ms


def first_unclear_segment(
    config: RobotConfig,
    start_us: Sequence[float],
    segments: Sequence[Timed],
    surroundings: Sequence[Surroundings],
    traits: Sequence[ServoTraits] | None = None,
) -> int | None:
    """Index of the segment that was last to start when the trailing horns first left the safe space (module
    docstring), or None if they never do. ``surroundings`` gives the board for each segment; ``traits`` the servos
    (default :func:`servo_traits`)."""
    targets = [tuple(map(float, start_us))] + [tuple(map(float, s.pulses_us)) for s in segments]
    via = [config.grip_point(t) for t in targets]
    settle_ms = 3 * RESPONSE_S * 1000
    gripper = config.gripper_channel
    obstacles: dict[Surroundings, list[_Obstacle]] = {}
    for _t_ms, active, horn in horn_trace(start_us, segments, traits or servo_traits(config), settle_ms=settle_ms):
        around = surroundings[active]
        pegs = obstacles.get(around)
        if pegs is None:
            pegs = obstacles[around] = _obstacles(config, around)
        nearby = via[max(0, active - 2) : active + 3]  # the lines of the segments around the running one
        if not _is_clear(config, config.grip_point(horn), horn[gripper], nearby, around, pegs):
            return active
    return None


class _Obstacle(NamedTuple):
    """A peg as :func:`_is_clear` meets it (mm): where its axis stands, the height a point must keep above to be
    clear of its tip and stack, and of its stack alone (both with the margin)."""

    x_mm: float
    y_mm: float
    clear_above_mm: float
    stack_clear_mm: float


def _obstacles(config: RobotConfig, around: Surroundings) -> list[_Obstacle]:
    """The board's pegs with ``around``'s stacks on them, as :func:`_is_clear` checks them."""
    board = config.board
    margin_mm = config.motion.clearance_mm / 2
    pegs = []
    for i, peg in enumerate(board.pegs):
        stack_mm = board.stack_top_mm(around.heights[i] if i < len(around.heights) else 0)
        pegs.append(_Obstacle(peg.x_mm, peg.y_mm, max(stack_mm, peg.height_mm) + margin_mm, stack_mm + margin_mm))
    return pegs


def _is_clear(
    config: RobotConfig,
    point: Point,
    gripper_us: float,
    via: list[Point],
    around: Surroundings,
    pegs: list[_Obstacle],
) -> bool:
    """True if ``point`` is in free space or near the planned path ``via`` (module docstring); ``pegs`` are the
    board's pegs with ``around``'s stacks (:func:`_obstacles`)."""
    motion, board = config.motion, config.board
    margin_mm = motion.clearance_mm / 2
    if around.holds_disk:
        low_z_mm, ring_mm = point.z_mm - board.disk_thickness_mm / 2, 0.0
    elif config.chain.grasp is GraspMode.SIDE:  # a level claw's bottom, half a finger below the grip point
        low_z_mm, ring_mm = point.z_mm - config.gripper.finger_width_mm / 2, 0.0
    else:  # the peg may stand anywhere inside the open fingers' ring while they are above its stack
        low_z_mm = point.z_mm
        ring_mm = config.gripper.width_mm(gripper_us) / 2 - board.peg_diameter_mm / 2 - margin_mm
    reach_mm = config.gripper.open_width_mm / 2 + motion.clearance_mm + max(board.disk_diameters_mm) / 2
    free = True
    for peg in pegs:
        if low_z_mm >= peg.clear_above_mm:
            continue
        off_axis_mm = math.hypot(point.x_mm - peg.x_mm, point.y_mm - peg.y_mm)
        if off_axis_mm > reach_mm or (low_z_mm >= peg.stack_clear_mm and off_axis_mm <= ring_mm):
            continue
        free = False
        break
    if free:
        return True
    near_mm = NEAR_FACTOR * motion.line_tolerance_mm
    if not around.holds_disk:
        near_mm = max(near_mm, margin_mm)
    return any(distance_to_line_mm(point, a, b) <= near_mm for a, b in itertools.pairwise(via))
