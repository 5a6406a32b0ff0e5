"""The tolerances the robot is built to, and whether the board's tightest fit leaves room for them.

The tightest fit on the board is a held disk on its peg (lift and lower): the disk's hole is only a little wider
than the peg. How far the disk's hole may stand off the peg's axis before it presses on the peg (the **budget**,
mm) is half the hole's play, less half the hole's own tolerance, plus :data:`LEAD_IN_MM` (the chamfer and the
compliance of fingers and disk: the simulated world lets bodies overlap that much, hanoibot.sim.disks'
``CONTACT_TOLERANCE_MM``). What takes the disk off the axis (each bound in mm at the grip point):

- the peg stands up to ``peg_position_mm`` from where the config says;
- the planned path may wander ``line_tolerance_mm`` from the straight line, and the checker (:mod:`.blends`)
  lets the trailing servos add half as much again (``NEAR_FACTOR``);
- every joint's calibration may be off by ``calibration_deg``, and every servo stops up to half its deadband
  plus half its backlash short (``servo_deadband_us``, ``servo_backlash_us``, in degrees by the joint's
  ``us_per_deg``): each joint's error moves the grip point by its lever arm times the angle
  (:func:`lever_arms_mm`, from the kinematics over every peg).

The errors are independent, so they add as a root sum of squares (statistical tolerancing); the worst case (their
plain sum) is reported beside it. :func:`check_margins` refuses a config whose root sum exceeds the budget, naming
the largest contributor. docs/margins.md works the default robot's figures through.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..errors import ConfigError
from .blends import NEAR_FACTOR
from .kinematics import JointAngles, Point, forward_kinematics, inverse_kinematics
from .robot import RobotConfig
from .tolerances import Tolerances

#: How far (mm) a disk may press into a peg before it jams: its hole's chamfer and the fingers' give.
LEAD_IN_MM = 1.0
#: Angle step (deg) for the numeric lever arms.
_STEP_DEG = 0.01


class Stack(NamedTuple):
    """The on-peg error stack (mm): the budget, each source's bound, their root sum of squares and plain sum."""

    budget_mm: float
    sources_mm: dict[str, float]
    rss_mm: float
    worst_mm: float


def lever_arms_mm(config: RobotConfig) -> list[float]:
    """For each joint (base, shoulder, elbow, wrist): the largest sideways shift (mm, in the table's plane) of the
    grip point per degree of that joint, over every peg at the height of a disk on it."""
    arms = [0.0] * 4
    board = config.board
    for peg in board.pegs:
        for level in (0, max(board.disk_count - 1, 0)):
            angles = inverse_kinematics(config.arm, Point(peg.x_mm, peg.y_mm, board.grip_z_mm(level)))
            here = forward_kinematics(config.arm, angles)
            for j in range(4):
                moved = list(angles)
                moved[j] += _STEP_DEG
                there = forward_kinematics(config.arm, JointAngles(*moved))
                shift_mm = math.hypot(there.x_mm - here.x_mm, there.y_mm - here.y_mm) / _STEP_DEG
                arms[j] = max(arms[j], shift_mm)
    return arms


def on_peg_stack(config: RobotConfig, tolerances: Tolerances) -> Stack:
    """The error stack of a held disk on its peg (module docstring)."""
    board = config.board
    budget_mm = (board.disk_hole_diameter_mm - board.peg_diameter_mm) / 2 - tolerances.disk_hole_mm / 2 + LEAD_IN_MM
    arms = lever_arms_mm(config)
    degrees_per_us = [servo.calibration.max_deg_per_us(servo.min_us, servo.max_us) for servo in config.servos]
    play_us = (tolerances.servo_deadband_us + tolerances.servo_backlash_us) / 2
    calibration = [arm * tolerances.calibration_deg for arm in arms]
    play = [arm * play_us * deg for arm, deg in zip(arms, degrees_per_us, strict=True)]
    sources = {
        "peg_position_mm": tolerances.peg_position_mm,
        "line_tolerance_mm": NEAR_FACTOR * config.motion.line_tolerance_mm,
        "calibration_deg": math.sqrt(sum(c * c for c in calibration)),
        "servo_deadband_us + servo_backlash_us": math.sqrt(sum(p * p for p in play)),
    }
    rss_mm = math.sqrt(sum(v * v for v in sources.values()))
    worst_mm = tolerances.peg_position_mm + sources["line_tolerance_mm"] + sum(calibration) + sum(play)
    return Stack(budget_mm, sources, rss_mm, worst_mm)


def check_margins(config: RobotConfig, tolerances: Tolerances) -> None:
    """Refuse (ConfigError) tolerances whose on-peg error stack does not fit the hole's budget."""
    stack = on_peg_stack(config, tolerances)
    if stack.rss_mm <= stack.budget_mm:
        return
    largest = max(stack.sources_mm, key=lambda name: stack.sources_mm[name])
    parts = ", ".join(f"{name} {mm:.2f} mm" for name, mm in stack.sources_mm.items())
    raise ConfigError(
        f"[tolerances] cannot be met: a held disk may stand {stack.rss_mm:.2f} mm off its peg's axis ({parts}; "
        f"root sum of squares) but its hole leaves {stack.budget_mm:.2f} mm; expected a smaller {largest} or a "
        "wider [board] disk_hole_diameter_mm (docs/margins.md)"
    )
