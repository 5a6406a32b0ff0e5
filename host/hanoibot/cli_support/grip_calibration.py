"""The grip step of ``hanoibot calibrate`` (and ``--grip`` alone): asks the person, says what was measured.

How the grip sensor is measured, and the threshold put between the readings, is the operation's
(:mod:`hanoibot.ops.grip_measure`); here the person is asked before each close, may skip the step, and is told
readings that cannot be told apart.
"""

from __future__ import annotations

from typing import Any

from ..errors import RunFault
from ..ops.grip_measure import has_grip_sensor, measure_grip_readings, threshold_of

#: The word that leaves the grip threshold as it is.
SKIP_WORD = "skip"


class _Stopped(Exception):
    """The person did not answer (end of input, or an e-stop from another process)."""


def ask_grip_threshold(robot: Any, person: Any, *, skippable: bool) -> tuple[int, int, int] | None:
    """Measure the grip threshold with ``person`` (a :class:`~hanoibot.ops.person.Person`) answering the prompts;
    (empty, held, threshold), or None when the input ended, a stop came, or (``skippable``) the person skipped it
    or the board has no grip sensor. When skippable, readings that cannot be told apart (nobody held a disk: on a
    simulated board nobody can) are said and the question asked again, so the person may measure again or skip;
    otherwise they are a RunFault."""
    if skippable and not has_grip_sensor(robot):
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
            return threshold_of(empty, held)
        except RunFault as err:
            if not skippable:
                raise
            print(f"grip sensor: not saved: {err}", flush=True)
            question = f"grip sensor: press Enter to measure again, or type {SKIP_WORD} to keep {threshold_now}: "
            continue


def _go_or_skip(answer: str) -> str:
    """``go`` for an empty answer, ``skip`` for skip; ValueError for anything else."""
    if answer.lower() in ("", "y", "yes", "go"):
        return "go"
    if answer.lower() in ("s", SKIP_WORD, "n", "no"):
        return "skip"
    raise ValueError(f"expected Enter to measure, or {SKIP_WORD}")
