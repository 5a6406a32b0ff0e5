"""The grip step of a calibration: measure the grip sensor empty and on a disk, and the threshold between.

The grip sensor reads the gripper servo's supply current (hardware/README.md, "Grip sensor"), which comes in 50 Hz
bursts with ADC noise on top. The gripper closes twice, once on nothing and once on a disk the user holds between
the fingers; after each close it holds still for the config's settle time, then :data:`SAMPLES` readings are
taken, one PWM frame or more apart (each is already the board's mean over one frame). :func:`grip_threshold`, a
pure function of the two sets of readings, puts the threshold saved as ``grip_threshold_u16`` in the middle of
the gap between the highest empty reading and the lowest held one, and refuses it when that gap is narrower than
:data:`MIN_MARGIN_U16` or than :data:`NOISE_GAP_SIGMAS` times the readings' spread.

A bus gripper (servos that report where they are: STATUS carries measured positions) has no shunt: its reading is
its load when its fingers stopped short of their goal, 0 when they closed to it, and none while they move
(:meth:`hanoifw.busservos.BusServos.grip_u16`). Its load depends on how far short of the goal the disk stops the
fingers, so it is measured the way a run grips: the fingers close to the pulse a pick of the smallest disk sends
(its diameter less ``squeeze_mm``), empty and then on that disk (:func:`calibration_grip_us`); a reading with no
verdict yet (the fingers still settling, an answer older than the goal) is asked again, a bounded number of times.
A gripper that stops short of that pulse with nothing between its fingers is refused by name: it would read as
holding a disk.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ConfigError, RunFault
from ..link.status import Grip
from ..run.robot import Robot
from .bus_hand import has_measured_pose
from .moves import Moves

#: The lowest held reading must exceed the highest empty one by this much (of 65535) to be told apart reliably.
MIN_MARGIN_U16 = 2000
#: ... and by this many standard deviations of the noisier of the two sets of readings.
NOISE_GAP_SIGMAS = 6.0
#: Readings taken in each state, each after a hold of :data:`SAMPLE_HOLD_MS`.
SAMPLES = 16
#: Time between two readings in ms: a little more than one 50 Hz PWM frame, so each is a fresh frame mean.
SAMPLE_HOLD_MS = 25

#: Extra holds of :data:`SAMPLE_HOLD_MS` in each state that may go to readings with no verdict (-1: a bus gripper
#: still settling, or read before its goal went out) before one is kept as it is.
NO_VERDICT_HOLDS = 16
#: How far (µs) a bus gripper's measured position may stand from its goal and still count as closed on nothing.
CLOSED_TOLERANCE_US = 5

#: What the person is asked before each close (PWM gripper: its shunt's current).
PROMPTS = (
    "take everything out of the gripper, then press Enter",
    "hold a disk between the open fingers, at their tips, then press Enter",
)
#: The bus gripper's prompts: the disk is the smallest, which the fingers close on as a pick of it does.
BUS_PROMPTS = (
    PROMPTS[0],
    "hold the smallest disk between the open fingers, at their tips, then press Enter",
)


def grip_threshold(empty_u16: Sequence[int], held_u16: Sequence[int]) -> int:
    """The threshold (0..65535) between grip readings taken empty and on a disk: the middle of the gap between the
    highest empty reading and the lowest held one. RunFault naming the numbers when a reading gave no verdict
    (-1), or the gap is narrower than :data:`MIN_MARGIN_U16` or :data:`NOISE_GAP_SIGMAS` standard deviations."""
    if not empty_u16 or not held_u16 or min(*empty_u16, *held_u16) < 0:
        raise RunFault(
            "the grip sensor gave no reading with the gripper closed (STATUS grip_raw -1): check that the gripper "
            "servo is powered and the sensor wired (hardware/README.md, Grip sensor)"
        )
    high_empty, low_held = max(empty_u16), min(held_u16)
    spread = max(statistics.pstdev(empty_u16), statistics.pstdev(held_u16))
    needed = max(MIN_MARGIN_U16, NOISE_GAP_SIGMAS * spread)
    if low_held - high_empty < needed:
        raise RunFault(
            f"grip current on a disk (lowest {low_held} of {len(held_u16)} readings) is not clearly above the "
            f"empty close (highest {high_empty} of {len(empty_u16)}): the gap {low_held - high_empty} is under "
            f"{needed:.0f}; check the shunt and amplifier wiring (a bus gripper: its torque limit), and that the "
            "disk stopped the fingers"
        )
    return (high_empty + low_held) // 2


def threshold_of(empty_u16: Sequence[int], held_u16: Sequence[int]) -> tuple[int, int, int]:
    """(mean empty reading, mean held reading, threshold from :func:`grip_threshold`), each 0..65535; RunFault as
    :func:`grip_threshold`."""
    threshold = grip_threshold(empty_u16, held_u16)
    return round(statistics.fmean(empty_u16)), round(statistics.fmean(held_u16)), threshold


def measure_grip_threshold(robot: Robot, ask: Callable[[str], object]) -> tuple[int, int, int]:
    """Close the gripper empty and on a disk (``ask`` waits for the user before each); :func:`threshold_of` the
    readings."""
    return threshold_of(*measure_grip_readings(robot, ask))


def has_grip_sensor(robot: Robot) -> bool:
    """Whether the board reports a grip sensor (a shunt, or a bus gripper's load); nothing moves."""
    return robot.session.status().grip is not Grip.NONE


def measure_grip_readings(robot: Robot, ask: Callable[[str], object]) -> tuple[list[int], list[int]]:
    """Close the gripper empty and on a disk (``ask`` waits for the user before each); the readings (0..65535)
    taken in each state, the gripper left open."""
    status = robot.session.status()
    if status.grip is Grip.NONE:
        raise ConfigError(
            f"[gripper] grip_sensor: the board on {robot.port_url} has no grip sensor (GRIP_SENSOR_PIN in "
            "board_config.py): wire one as hardware/README.md shows"
        )
    gripper = robot.config.gripper
    bus = has_measured_pose(status)  # a bus gripper: its reading is its load, not a shunt's current
    closed_us = calibration_grip_us(robot.config) if bus else gripper.closed_us
    moves = Moves(robot, status=status)
    pose = list(moves.pulses_us)
    readings: list[list[int]] = []
    for prompt in BUS_PROMPTS if bus else PROMPTS:
        pose = _move_gripper(robot, moves, pose, gripper.open_us, hold_ms=0)
        ask(prompt)
        pose = _move_gripper(robot, moves, pose, closed_us, hold_ms=robot.config.motion.settle_ms)
        readings.append(_sample(robot, moves, pose, closed_us))
        if bus and len(readings) == 1:
            _check_closed(robot, closed_us)
    _move_gripper(robot, moves, pose, gripper.open_us, hold_ms=0)
    empty, held = readings
    return empty, held


def calibration_grip_us(config: Any) -> int:
    """The gripper pulse (µs) a pick of the smallest disk sends: its diameter less ``squeeze_mm``."""
    gripper = config.gripper
    return round(gripper.pulse_for_width_us(min(config.board.disk_diameters_mm) - gripper.squeeze_mm))


def _sample(robot: Robot, moves: Moves, pose: list[int], gripper_us: int) -> list[int]:
    """:data:`SAMPLES` readings with the gripper held at ``gripper_us``, one per hold of :data:`SAMPLE_HOLD_MS`;
    a reading with no verdict (-1) is taken again up to :data:`NO_VERDICT_HOLDS` times in all."""
    samples: list[int] = []
    spare = NO_VERDICT_HOLDS
    while len(samples) < SAMPLES:
        _move_gripper(robot, moves, pose, gripper_us, hold_ms=SAMPLE_HOLD_MS)
        raw = int(robot.session.status().grip_raw)
        if raw < 0 and spare > 0:
            spare -= 1
            continue
        samples.append(raw)
    return samples


def _check_closed(robot: Robot, gripper_us: int) -> None:
    """RunFault unless the bus gripper, closed on nothing, stands where it was sent (within
    :data:`CLOSED_TOLERANCE_US`): fingers stopped short with nothing between them read as holding a disk."""
    status = robot.session.status()
    measured = status.measured_us[robot.config.gripper_channel]
    if measured >= 0 and abs(measured - gripper_us) > CLOSED_TOLERANCE_US:
        raise RunFault(
            f"the gripper closed on nothing stopped at {measured} us, short of the {gripper_us} us a pick of the "
            "smallest disk sends: something stops its fingers (a jaw on its end stop, a cable); free them, or check "
            "[gripper] open_us, closed_us and the widths, then measure again"
        )


def _move_gripper(robot: Robot, moves: Moves, pose: list[int], gripper_us: int, *, hold_ms: int) -> list[int]:
    """Move only the gripper to ``gripper_us`` at its speed limit, then hold still ``hold_ms``; the new pose."""
    target = list(robot.config.with_gripper(pose, gripper_us))
    steps = [(target, max(1, robot.duration_between_ms(tuple(pose), tuple(target))))] if target != pose else []
    if hold_ms > 0:
        steps.append((target, hold_ms))
    for pulses_us, duration_ms in steps:
        moves.move(pulses_us, duration_ms)
    return target
