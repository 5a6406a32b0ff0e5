"""``hanoibot calibrate --grip``: measure the grip sensor's current empty and on a disk, and save the threshold.

The grip sensor reads the gripper servo's supply current (hardware/README.md, "Grip sensor"). The gripper closes
twice, once on nothing and once on a disk the user holds between the fingers; after each close it holds still
for the config's settle time, then the board's raw reading (0..65535) is taken. The threshold saved as
``grip_threshold_u16`` is the midpoint of the two readings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ConfigError, RunFault
from ..link.status import Grip

#: The held reading must exceed the empty one by this much (of 65535) for the two to be told apart reliably.
MIN_MARGIN_U16 = 2000

PROMPTS = (
    "take everything out of the gripper, then press Enter",
    "hold a disk between the open fingers, at their tips, then press Enter",
)


def measure_grip_threshold(robot: Any, ask: Callable[[str], object]) -> tuple[int, int, int]:
    """Close the gripper empty and on a disk (``ask`` waits for the user before each); (empty, held, threshold)."""
    status = robot.session.status()
    if status.grip is Grip.NONE:
        raise ConfigError(
            f"[gripper] grip_sensor: the board on {robot.port_url} has no grip sensor (GRIP_SENSOR_PIN in "
            "board_config.py): wire one as hardware/README.md shows"
        )
    gripper = robot.config.gripper
    pose = [int(p) for p in status.pulses_us]
    readings = []
    for prompt in PROMPTS:
        pose = _move_gripper(robot, pose, gripper.open_us, hold_ms=0)
        ask(prompt)
        pose = _move_gripper(robot, pose, gripper.closed_us, hold_ms=robot.config.motion.settle_ms)
        readings.append(int(robot.session.status().grip_raw))
    _move_gripper(robot, pose, gripper.open_us, hold_ms=0)
    empty, held = readings
    if held < empty + MIN_MARGIN_U16:
        raise RunFault(
            f"grip current on a disk ({held}) is not clearly above the empty close ({empty}): check the shunt and "
            "amplifier wiring, and that the disk stopped the fingers"
        )
    return empty, held, (empty + held) // 2


def _move_gripper(robot: Any, pose: list[int], gripper_us: int, *, hold_ms: int) -> list[int]:
    """Move only the gripper to ``gripper_us`` at its speed limit, then hold still ``hold_ms``; the new pose."""
    target = [*pose[:4], gripper_us]
    moves = [(target, max(1, robot.duration_between_ms(tuple(pose), tuple(target))))]
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
    or the board has no grip sensor."""
    if skippable:
        if robot.session.status().grip is Grip.NONE:
            print("grip sensor: none on this board (GRIP_SENSOR_PIN in board_config.py): not measured", flush=True)
            return None
        answer = person.ask(
            "grip sensor: press Enter to measure its threshold now, or type skip to keep the config's: ", _go_or_skip
        )
        if answer != "go":
            return None

    def ask(prompt: str) -> None:
        if not person.confirm(prompt):
            raise _Stopped

    try:
        return measure_grip_threshold(robot, ask)
    except _Stopped:
        return None


def _go_or_skip(answer: str) -> str:
    """``go`` for an empty answer, ``skip`` for skip; ValueError for anything else."""
    if answer.lower() in ("", "y", "yes", "go"):
        return "go"
    if answer.lower() in ("s", "skip", "n", "no"):
        return "skip"
    raise ValueError("expected Enter to measure, or skip")
