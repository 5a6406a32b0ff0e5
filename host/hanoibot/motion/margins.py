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
  (:func:`lever_arms_mm`, from the kinematics over every peg);
- every pulse comes out on its output's grid (``[servos] driver``: a PCA9685 in 4.88 µs counts, rounded;
  :mod:`.drivers`), off by up to :func:`~.drivers.output_error_us`, by the same lever arms;
- a servo that lost ``servo_speed_sag`` of its top speed and accelerates only ``servo_accel_factor`` times as
  fast as the planner trails a fast command further than the checker's servos do: its loop asks for more than the
  command's speed right after each PWM frame's new pulse, and where that is more than the servo has, it falls
  behind the others (:func:`saturation_lag_us`, by the one servo model). In a piece of a lift or lower only the
  joint that sets its duration runs at the full on-peg share of its top speed, so the term is the largest of the
  joints' (not their root sum). That is what limits the speed of a lift or lower: :func:`on_peg_speed_ratio` is
  the largest share of the top speeds (a multiple of :data:`RATIO_STEP`) at which the stack still fits.

The errors are independent, so they add as a root sum of squares (statistical tolerancing); the worst case (their
plain sum) is reported beside it. :func:`check_margins` refuses a config whose root sum exceeds the budget, naming
the largest contributor. docs/margins.md works the default robot's figures through.

The same errors move the grip point up and down: a lower that ends where the config puts the stack's top can press
the disk into it, by the difference between the grip point's height error where the disk was picked (the fingers
close on it there) and where it is placed, and by the disks' thickness errors between the two levels.
:func:`place_gap_mm` is how far above the stack a lower ends for that: the disk drops the rest. A level claw's
fingers come in at a disk's mid-plane just above the wider disk below it: :func:`claw_height_stack_mm` says whether
the same height errors leave them room.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import NamedTuple

from ..arm import Chain, GraspMode
from ..errors import ConfigError
from .blends import NEAR_FACTOR
from .drivers import output_error_us
from .kinematics import Point
from .robot import RobotConfig
from .servo_model import PWM_FRAME_S, RESPONSE_S, ServoState, ServoTraits, follow
from .tolerances import Tolerances

#: How far (mm) a disk may press into a peg before it jams: its hole's chamfer and the fingers' give.
LEAD_IN_MM = 1.0
#: Angle step (deg) for the numeric lever arms.
_STEP_DEG = 0.01
#: A lift or lower runs at a multiple of this share of the joints' top speeds (:func:`on_peg_speed_ratio`): a
#: hundredth, finer than the servo model's own precision is worth.
RATIO_STEP = 0.01
#: PWM frames of a ramp :func:`saturation_lag_us` follows (a servo that keeps up is in its periodic trail by then),
#: and the pieces each frame is followed in (the trails differ most inside a frame).
_RAMP_FRAMES = 20
_FRAME_PIECES = 10


class Stack(NamedTuple):
    """The on-peg error stack (mm): the budget, each source's bound, their root sum of squares and plain sum."""

    budget_mm: float
    sources_mm: dict[str, float]
    rss_mm: float
    worst_mm: float


def lever_arms_mm(config: RobotConfig, *, vertical: bool = False) -> list[float]:
    """For each of the arm's servos (wire order): the largest sideways shift (mm, in the table's plane) of the grip
    point per degree of that servo's angle, over every peg at the height of a disk on it, the tool at the grasp
    mode's pitch (``vertical``: the largest shift up or down). A servo that moves joints through a linkage (the
    MeArm's forearm) shifts it through every joint it moves; one that holds a joint, through that joint."""
    arms = [0.0] * len(config.servos)
    board = config.board
    shifted = _servo_shifts(config)
    for peg in board.pegs:
        for level in (0, max(board.disk_count - 1, 0)):
            servo_deg = config.chain.actuator_angles(
                config.grasp_angles(Point(peg.x_mm, peg.y_mm, board.grip_z_mm(level)))
            )
            here = config.chain.grip_point(config.chain.joint_angles(servo_deg))
            for c, there_at in enumerate(shifted):
                there = there_at(servo_deg)
                if vertical:
                    shift_mm = abs(there.z_mm - here.z_mm) / _STEP_DEG
                else:
                    shift_mm = math.hypot(there.x_mm - here.x_mm, there.y_mm - here.y_mm) / _STEP_DEG
                arms[c] = max(arms[c], shift_mm)
    return arms


def _servo_shifts(config: RobotConfig) -> list[Callable[[Sequence[float]], Point]]:
    """Per servo (wire order): the grip point for the chain's servo angles (actuator order) with that servo turned
    by :data:`_STEP_DEG`."""
    chain = config.chain
    out: list[Callable[[Sequence[float]], Point]] = []
    for slot in chain.servo_slots:
        if slot.actuator is not None:
            a = slot.actuator

            def moved(servo_deg: Sequence[float], a: int = a) -> Point:
                turned = list(servo_deg)
                turned[a] += _STEP_DEG
                return chain.grip_point(chain.joint_angles(turned))

            out.append(moved)
        else:
            assert slot.held_joint is not None
            joint = chain.joints[slot.held_joint]
            assert joint.held_deg is not None
            held = joint.held_deg + _STEP_DEG
            joints = list(chain.joints)
            joints[slot.held_joint] = replace(joint, min_deg=held, max_deg=held, held_deg=held)
            other = replace(chain, joints=tuple(joints))

            def held_moved(servo_deg: Sequence[float], other: Chain = other) -> Point:
                return other.grip_point(other.joint_angles(servo_deg))

            out.append(held_moved)
    return out


def saturation_lag_us(top_us_s: float, command_us_s: float, accel_us_s2: float, tolerances: Tolerances) -> float:
    """How much further (µs) the slowest servo ``tolerances`` allow (top speed ``top_us_s`` less
    ``servo_speed_sag``, acceleration ``servo_accel_factor`` times ``accel_us_s2``) trails a command than the blend
    checker's servo (top speed ``top_us_s``, no acceleration limit: its trail is the stack's line-tolerance term),
    at most over :data:`_RAMP_FRAMES` PWM frames. The command starts from rest as the planner's do, accelerating at
    ``accel_us_s2`` up to ``command_us_s``, a new pulse every frame.

    The loop runs, right after a frame's pulse, at 1 / (1 - e^(-T/tau)) = 1.58 times the command's speed: where
    that is more than the sagged top speed the servo saturates for part of each frame; its acceleration limit keeps
    it from following the jump in speed each new pulse asks for."""
    servo = ServoTraits(
        top_us_s * (1 - tolerances.servo_speed_sag), RESPONSE_S, accel_us_s2 * tolerances.servo_accel_factor
    )
    checked = ServoTraits(top_us_s, RESPONSE_S, 1e15)  # the checker's servo, integrated the same way
    ramp_s = command_us_s / accel_us_s2

    def command_us(t_s: float) -> float:
        if t_s < ramp_s:
            return accel_us_s2 * t_s * t_s / 2
        return command_us_s * (t_s - ramp_s / 2)

    limited = nominal = ServoState.at(0.0)
    worst_us = 0.0
    for frame in range(_RAMP_FRAMES):
        pulse_us = command_us(frame * PWM_FRAME_S)
        for _ in range(_FRAME_PIECES):
            limited = follow(servo, limited, pulse_us, PWM_FRAME_S / _FRAME_PIECES)
            nominal = follow(checked, nominal, pulse_us, PWM_FRAME_S / _FRAME_PIECES)
            worst_us = max(worst_us, nominal.horn_us - limited.horn_us)
    return worst_us


def on_peg_stack(config: RobotConfig, tolerances: Tolerances, ratio: float | None = None) -> Stack:
    """The error stack of a held disk on its peg (module docstring), the joints commanded at ``ratio`` of their top
    speeds while it slides along the peg (default :func:`on_peg_speed_ratio`)."""
    if ratio is None:
        ratio = on_peg_speed_ratio(config, tolerances)
    board = config.board
    budget_mm = (board.disk_hole_diameter_mm - board.peg_diameter_mm) / 2 - tolerances.disk_hole_mm / 2 + LEAD_IN_MM
    arms = lever_arms_mm(config)
    degrees_per_us = [servo.calibration.max_deg_per_us(servo.min_us, servo.max_us) for servo in config.servos]
    play_us = servo_static_error_us(config, tolerances)
    calibration = [arm * tolerances.calibration_deg for arm in arms]
    play = [arm * play_us * deg for arm, deg in zip(arms, degrees_per_us, strict=True)]
    lag = []
    for arm, servo, deg in zip(arms, config.servos, degrees_per_us, strict=True):
        if servo.held_deg is None:  # a servo that holds a joint never moves: it lags nothing
            top_us_s = servo.top_speed_us_s()
            lag.append(
                arm * saturation_lag_us(top_us_s, ratio * top_us_s, servo.max_accel_deg_s2 / deg, tolerances) * deg
            )
    sources = {
        "peg_position_mm": tolerances.peg_position_mm,
        "line_tolerance_mm": NEAR_FACTOR * config.motion.line_tolerance_mm,
        "calibration_deg": math.sqrt(sum(c * c for c in calibration)),
        f"servo_deadband_us + servo_backlash_us + [servos] driver {config.servo_driver}": math.sqrt(
            sum(p * p for p in play)
        ),
        "servo_speed_sag + servo_accel_factor": max(lag),
    }
    rss_mm = math.sqrt(sum(v * v for v in sources.values()))
    worst_mm = tolerances.peg_position_mm + sources["line_tolerance_mm"] + sum(calibration) + sum(play) + max(lag)
    return Stack(budget_mm, sources, rss_mm, worst_mm)


def servo_static_error_us(config: RobotConfig, tolerances: Tolerances) -> float:
    """One servo's static error (µs): half its deadband, half its backlash and its output's step, all one way."""
    return (tolerances.servo_deadband_us + tolerances.servo_backlash_us) / 2 + output_error_us(config.servo_driver)


@functools.cache
def _height_errors_mm(config: RobotConfig, tolerances: Tolerances) -> tuple[float, float]:
    """The grip point's height error (mm) at one pose from each servo's static error and from each joint's
    calibration, each the root sum over the joints' vertical lever arms."""
    arms = lever_arms_mm(config, vertical=True)
    degrees_per_us = [servo.calibration.max_deg_per_us(servo.min_us, servo.max_us) for servo in config.servos]
    play_us = servo_static_error_us(config, tolerances)
    servos_mm = math.sqrt(sum((arm * play_us * deg) ** 2 for arm, deg in zip(arms, degrees_per_us, strict=True)))
    calibration_mm = math.sqrt(sum((arm * tolerances.calibration_deg) ** 2 for arm in arms))
    return servos_mm, calibration_mm


def claw_height_stack_mm(config: RobotConfig, tolerances: Tolerances | None = None) -> tuple[float, float]:
    """A level claw (side grasp) comes in at a disk's mid-plane, its fingers ``finger_width_mm`` tall: (the room,
    the error) in mm. The room is the air between a finger's bottom and the wider disk below, half the disk's
    thickness less half the finger's width, plus :data:`LEAD_IN_MM` (the world lets bodies press that far into each
    other); the error how far the finger may come down lower than planned: the grip point's height error at one
    pose (servos and calibration, by the joints' vertical lever arms) and the thickness errors of the disks below
    the top one, as a root sum of squares."""
    tolerances = tolerances if tolerances is not None else config.tolerances
    servos_mm, calibration_mm = _height_errors_mm(config, tolerances)
    thickness_mm = max(config.board.disk_count - 1, 0) * tolerances.disk_thickness_mm
    room_mm = (config.board.disk_thickness_mm - config.gripper.finger_width_mm) / 2 + LEAD_IN_MM
    return room_mm, math.sqrt(servos_mm**2 + calibration_mm**2 + thickness_mm**2)


def place_gap_mm(config: RobotConfig, tolerances: Tolerances | None = None) -> float:
    """How far (mm) above its stack's top a lower ends (``tolerances`` default the config's): the root sum of the
    grip point's height errors where the disk was picked and where it is placed (each servo's static error and
    each joint's calibration, by the joints' vertical lever arms, at both: sqrt(2) times one) and the thickness
    errors of the disks between the two levels, less :data:`LEAD_IN_MM` (the fingers' give: the world lets bodies
    press that far into each other). 0 when that is negative."""
    tolerances = tolerances if tolerances is not None else config.tolerances
    servos_mm, calibration_mm = _height_errors_mm(config, tolerances)
    thickness_mm = max(config.board.disk_count - 1, 0) * tolerances.disk_thickness_mm
    stack_mm = math.sqrt(2 * servos_mm**2 + 2 * calibration_mm**2 + thickness_mm**2)
    return max(stack_mm - LEAD_IN_MM, 0.0)


@functools.cache
def on_peg_speed_ratio(config: RobotConfig, tolerances: Tolerances | None = None) -> float:
    """The share of every joint's top speed a lift or lower runs at: the largest multiple of :data:`RATIO_STEP`, up
    to 1, at which the on-peg stack (:func:`on_peg_stack`, ``tolerances`` default the config's) fits its budget;
    :data:`RATIO_STEP` when none does (:func:`check_margins` refuses such a config).

    Found by bisection: a faster command trails no less, so the stack grows with the share."""
    tolerances = tolerances if tolerances is not None else config.tolerances
    steps = round(1 / RATIO_STEP)

    def fits(k: int) -> bool:
        stack = on_peg_stack(config, tolerances, k / steps)
        return stack.rss_mm <= stack.budget_mm

    low, high = 1, steps + 1  # the answer is in [low, high): low fits or is the floor, high does not fit
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low / steps


def check_margins(config: RobotConfig, tolerances: Tolerances) -> None:
    """Refuse (ConfigError) tolerances whose on-peg error stack does not fit the hole's budget, however slowly a
    held disk slides along its peg, or, for a level claw, whose height errors could put a finger on the disk below
    the one it takes (:func:`claw_height_stack_mm`)."""
    if config.chain.grasp is GraspMode.SIDE:
        room_mm, error_mm = claw_height_stack_mm(config, tolerances)
        if error_mm > room_mm:
            raise ConfigError(
                f"[gripper] finger_width_mm = {config.gripper.finger_width_mm:g}: a level claw's finger may come "
                f"{error_mm:.2f} mm lower than planned but has {room_mm:.2f} mm above the disk below; expected "
                'narrower fingers, thicker disks or smaller [tolerances] (docs/margins.md, "The side grasp")'
            )
    stack = on_peg_stack(config, tolerances, RATIO_STEP)
    if stack.rss_mm <= stack.budget_mm:
        return
    largest = max(stack.sources_mm, key=lambda name: stack.sources_mm[name])
    if largest.startswith("servo_deadband_us"):
        largest = "servo_deadband_us, servo_backlash_us or [servos] driver (a finer output)"
    parts = ", ".join(f"{name} {mm:.2f} mm" for name, mm in stack.sources_mm.items())
    raise ConfigError(
        f"[tolerances] cannot be met: a held disk may stand {stack.rss_mm:.2f} mm off its peg's axis ({parts}; "
        f"root sum of squares) but its hole leaves {stack.budget_mm:.2f} mm; expected a smaller {largest} or a "
        "wider [board] disk_hole_diameter_mm (docs/margins.md)"
    )
