"""Calibration from measured poses: each servo's offset and direction from where bus servos say they are when a
person has put the arm at known places, and its pulse limits from the range a person swept it through. Pure.

The known places are the pegs of the robot config (measured on the board, the ground truth here): for each peg, the
grip point at the foot of the peg (the fingers around it, resting on the board) and above it (the fingertips at the
peg's tip), the tool at its grasp mode's pitch. The arm's kinematics (the config's chain, which the calibration does
not change) say which servo angle each of those poses needs; the bus says which pulse each servo stood at. A servo's
linear calibration (:class:`~hanoibot.motion.calibration.LinearCalibration`) is then fitted per servo:

    angle_deg = offset_deg + (pulse_us - center_us) / (direction * us_per_deg)

``us_per_deg`` is the bus's own scale (:data:`BUS_US_PER_DEG`: one turn of the servo is 2000 µs of pulse,
:mod:`hanoifw.busservos`), ``center_us`` the config's; the direction is the one of +1 and -1 whose fit leaves the
smaller error, judged only when the poses turn the servo by :data:`MIN_SPREAD_DEG` or more (else the config's stays);
the offset is the mean over the poses at the feet of the pegs, the precise ones (the poses above them only help to
tell the direction).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from hanoifw.busservos import PULSE_SPAN_US

from .calibration import LinearCalibration
from .kinematics import Point
from .robot import RobotConfig

#: µs of pulse per degree of a bus servo: its turn (2000 µs, hanoifw.busservos) over 360 degrees.
BUS_US_PER_DEG = PULSE_SPAN_US / 360.0
#: The least a servo must turn between the poses for its direction to be judged, in degrees.
MIN_SPREAD_DEG = 5.0
#: How far inside the swept range of motion the joint's limits are put, in degrees (the pulse limits are the swept
#: range itself: the firmware lets the servo go where the hand took it, the planner stays this far inside).
RANGE_MARGIN_DEG = 2.0
#: A swept range narrower than this (degrees) was not swept: the config's limits stay.
MIN_SWEEP_DEG = 10.0
#: The poses at each peg, in the order a person is asked for them.
POSES = ("foot", "tip")


class PoseKey(NamedTuple):
    """One pose a person confirms: peg number ``peg`` (0 = A) and ``where`` (``foot`` or ``tip``)."""

    peg: int
    where: str


class JointFit(NamedTuple):
    """One servo's fitted calibration: ``offset_deg`` and ``direction``; ``direction_judged`` False when its poses
    did not turn it enough to tell (the config's direction kept); ``error_deg`` the largest disagreement of a pose
    with the fit, in degrees."""

    name: str
    offset_deg: float
    direction: int
    direction_judged: bool
    error_deg: float

    def calibration(self, center_us: float) -> LinearCalibration:
        """The calibration this fit gives a servo centred at ``center_us``."""
        return LinearCalibration(center_us, self.offset_deg, self.direction, BUS_US_PER_DEG)


def pose_point(config: RobotConfig, key: PoseKey) -> Point:
    """Where the grip point is in pose ``key``, in mm: at the grip height of a bottom disk, or at the peg's tip."""
    peg = config.board.pegs[key.peg]
    z_mm = config.board.grip_z_mm(0) if key.where == "foot" else peg.height_mm
    return Point(peg.x_mm, peg.y_mm, z_mm)


def expected_servo_angles(config: RobotConfig, key: PoseKey) -> tuple[float, ...]:
    """Each arm servo's angle (degrees, wire order, no gripper) in pose ``key``, by the config's kinematics; a
    servo that holds a joint still at its start angle. UnreachableError when the pose is."""
    angles = config.grasp_angles(pose_point(config, key))
    servo_deg = config.chain.actuator_angles(angles)
    return tuple(
        servo.start_deg if slot.actuator is None else servo_deg[slot.actuator]
        for servo, slot in zip(config.servos, config.chain.servo_slots, strict=True)
    )


def fit_joint(
    name: str,
    expected_deg: Sequence[float],
    measured_us: Sequence[float],
    precise: Sequence[bool],
    *,
    center_us: float,
    direction: int,
) -> JointFit:
    """The calibration of servo ``name`` that maps ``measured_us`` (µs, one per pose) onto ``expected_deg``
    (degrees); the offset from the ``precise`` poses only (all of them if none is); ``direction`` is the config's,
    kept when the poses turn the servo less than :data:`MIN_SPREAD_DEG`."""
    judged = max(expected_deg) - min(expected_deg) >= MIN_SPREAD_DEG
    chosen = [i for i, flag in enumerate(precise) if flag] or list(range(len(expected_deg)))
    fits = []
    for sign in (direction, -direction) if judged else (direction,):
        turned = [(pulse - center_us) / (sign * BUS_US_PER_DEG) for pulse in measured_us]
        offset_deg = sum(expected_deg[i] - turned[i] for i in chosen) / len(chosen)
        error_deg = max(abs(angle - offset_deg - turn) for angle, turn in zip(expected_deg, turned, strict=True))
        fits.append(JointFit(name, round(offset_deg, 2), sign, judged, round(error_deg, 2)))
    return min(fits, key=lambda fit: fit.error_deg)


def fit_servos(config: RobotConfig, poses: dict[PoseKey, Sequence[float]]) -> list[JointFit]:
    """Every arm servo's fit (wire order) from ``poses``: each confirmed pose and the pulses (µs, every channel)
    the servos reported in it."""
    keys = list(poses)
    expected = [expected_servo_angles(config, key) for key in keys]
    precise = [key.where == "foot" for key in keys]
    fits = []
    for channel, servo in enumerate(config.servos):
        calibration = servo.calibration
        direction = calibration.direction if isinstance(calibration, LinearCalibration) else 1
        center_us = calibration.center_us if isinstance(calibration, LinearCalibration) else 1500.0
        fits.append(
            fit_joint(
                servo.name,
                [angles[channel] for angles in expected],
                [poses[key][channel] for key in keys],
                precise,
                center_us=center_us,
                direction=direction,
            )
        )
    return fits


class SweptLimits(NamedTuple):
    """A servo's limits from its swept range of motion: pulses (µs) the firmware keeps it within, the range swept;
    joint angles (degrees) the planner keeps it within, :data:`RANGE_MARGIN_DEG` inside."""

    min_us: int
    max_us: int
    min_deg: float
    max_deg: float


def swept_limits(
    low_us: float, high_us: float, calibration: LinearCalibration, inside_us: Sequence[float], keep_deg: Sequence[float]
) -> SweptLimits | None:
    """Limits from a swept range ``low_us``..``high_us`` of a servo calibrated by ``calibration``, wide enough for
    every pulse in ``inside_us`` (the confirmed poses) and every angle in ``keep_deg`` (its start angle); None when
    the sweep covered less than :data:`MIN_SWEEP_DEG` (the joint was not swept)."""
    if high_us - low_us < MIN_SWEEP_DEG * calibration.us_per_deg:
        return None
    min_us = math.floor(min(low_us, *inside_us))
    max_us = math.ceil(max(high_us, *inside_us))
    ends_deg = sorted(calibration.angle_deg(pulse) for pulse in (low_us, high_us))
    inside_deg = [calibration.angle_deg(pulse) for pulse in inside_us] + list(keep_deg)
    min_deg = min(ends_deg[0] + RANGE_MARGIN_DEG, *inside_deg)
    max_deg = max(ends_deg[1] - RANGE_MARGIN_DEG, *inside_deg)
    return SweptLimits(min_us, max_us, math.floor(min_deg * 100) / 100, math.ceil(max_deg * 100) / 100)
