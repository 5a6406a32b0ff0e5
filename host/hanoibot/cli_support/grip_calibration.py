"""``hanoibot calibrate --grip``: measure the grip sensor's current empty and on a disk, and save the threshold.

The grip sensor reads the gripper servo's supply current (hardware/README.md, "Grip sensor"), which comes in 50 Hz
bursts with ADC noise on top. The gripper closes twice, once on nothing and once on a disk the user holds between
the fingers; after each close it holds still for the config's settle time, then :data:`SAMPLES` readings are
taken, one PWM frame or more apart (each is already the board's mean over one frame). :func:`grip_threshold`, a
pure function of the two sets of readings, puts the threshold saved as ``grip_threshold_u16`` in the middle of
the gap between the highest empty reading and the lowest held one, and refuses it when that gap is narrower than
:data:`MIN_MARGIN_U16` or than :data:`NOISE_GAP_SIGMAS` times the readings' spread.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ConfigError, RunFault
from ..link.status import Grip

#: The lowest held reading must exceed the highest empty one by this much (of 65535) to be told apart reliably.
MIN_MARGIN_U16 = 2000
#: ... and by this many standard deviations of the noisier of the two sets of readings.
NOISE_GAP_SIGMAS = 6.0
#: Readings taken in each state, each after a hold of :data:`SAMPLE_HOLD_MS`.
SAMPLES = 16
#: Time between two readings in ms: a little more than one 50 Hz PWM frame, so each is a fresh frame mean.
SAMPLE_HOLD_MS = 25

#: The word that leaves the grip threshold as it is.
SKIP_WORD = "skip"
PROMPTS = (
    "take everything out of the gripper, then press Enter",
    "hold a disk between the open fingers, at their tips, then press Enter",
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
            f"{needed:.0f}; check the shunt and amplifier wiring, and that the disk stopped the fingers"
        )
    return (high_empty + low_held) // 2


def measure_grip_threshold(robot: Any, ask: Callable[[str], object]) -> tuple[int, int, int]:
    """Close the gripper empty and on a disk (``ask`` waits for the user before each); (mean empty reading,
    mean held reading, threshold from :func:`grip_threshold`)."""
    empty, held = measure_grip_readings(robot, ask)
    threshold = grip_threshold(empty, held)
    return round(statistics.fmean(empty)), round(statistics.fmean(held)), threshold


def measure_grip_readings(robot: Any, ask: Callable[[str], object]) -> tuple[list[int], list[int]]:
    """Close the gripper empty and on a disk (``ask`` waits for the user before each); the readings (0..65535)
    taken in each state, the gripper left open."""
    status = robot.session.status()
    if status.grip is Grip.NONE:
        raise ConfigError(
            f"[gripper] grip_sensor: the board on {robot.port_url} has no grip sensor (GRIP_SENSOR_PIN in "
            "board_config.py): wire one as hardware/README.md shows"
        )
    gripper = robot.config.gripper
    pose = [int(p) for p in status.pulses_us]
    readings: list[list[int]] = []
    for prompt in PROMPTS:
        pose = _move_gripper(robot, pose, gripper.open_us, hold_ms=0)
        ask(prompt)
        pose = _move_gripper(robot, pose, gripper.closed_us, hold_ms=robot.config.motion.settle_ms)
        samples = []
        for _ in range(SAMPLES):
            _move_gripper(robot, pose, gripper.closed_us, hold_ms=SAMPLE_HOLD_MS)
            samples.append(int(robot.session.status().grip_raw))
        readings.append(samples)
    _move_gripper(robot, pose, gripper.open_us, hold_ms=0)
    empty, held = readings
    return empty, held


def _move_gripper(robot: Any, pose: list[int], gripper_us: int, *, hold_ms: int) -> list[int]:
    """Move only the gripper to ``gripper_us`` at its speed limit, then hold still ``hold_ms``; the new pose."""
    target = list(robot.config.with_gripper(pose, gripper_us))
    moves = [(target, max(1, robot.duration_between_ms(tuple(pose), tuple(target))))] if target != pose else []
    if hold_ms > 0:
        moves.append((target, hold_ms))
    for pulses_us, duration_ms in moves:
        cmd_id = robot.session.last_sent_cmd + 1
        robot.session.send_move(cmd_id, pulses_us, duration_ms)
        robot.session.wait_done(cmd_id, timeout_s=duration_ms / 1000 + 5)
    return target


class _Stopped(Exception):
    """The person did not answer (end of input, or an e-stop from another process)."""


def ask_grip_threshold(robot: Any, person: Any, *, skippable: bool) -> tuple[int, int, int] | None:
    """Measure the grip threshold with ``person`` (a :class:`~hanoibot.ops.person.Person`) answering the prompts;
    (empty, held, threshold), or None when the input ended, a stop came, or (``skippable``) the person skipped it
    or the board has no grip sensor. When skippable, readings that cannot be told apart (nobody held a disk: on a
    simulated board nobody can) are said and the question asked again, so the person may measure again or skip;
    otherwise they are a RunFault."""
    if skippable and robot.session.status().grip is Grip.NONE:
        print("grip sensor: none on this board (GRIP_SENSOR_PIN in board_config.py): not measured", flush=True)
        return None
    threshold_now = robot.config.gripper.grip_threshold_u16
    question = (
        f"grip sensor: type {SKIP_WORD} to keep grip_threshold_u16 = {threshold_now} (always on a simulated board: "
        "no hand can hold a disk in its fingers), or press Enter to measure it with a disk in your hand: "
    )

    def ask(prompt: str) -> None:
        if not person.confirm(prompt):
            raise _Stopped

    while True:
        if skippable and person.ask(question, _go_or_skip) != "go":
            return None
        try:
            empty, held = measure_grip_readings(robot, ask)
        except _Stopped:
            return None
        try:
            threshold = grip_threshold(empty, held)
        except RunFault as err:
            if not skippable:
                raise
            print(f"grip sensor: not saved: {err}", flush=True)
            question = f"grip sensor: press Enter to measure again, or type {SKIP_WORD} to keep {threshold_now}: "
            continue
        return round(statistics.fmean(empty)), round(statistics.fmean(held)), threshold


def _go_or_skip(answer: str) -> str:
    """``go`` for an empty answer, ``skip`` for skip; ValueError for anything else."""
    if answer.lower() in ("", "y", "yes", "go"):
        return "go"
    if answer.lower() in ("s", SKIP_WORD, "n", "no"):
        return "skip"
    raise ValueError(f"expected Enter to measure, or {SKIP_WORD}")
