"""The servos and gripper as the host sees them, and the motion-planning settings of a robot config.

Built and validated by :mod:`hanoibot.config`; this module only holds them and converts units.
"""

from __future__ import annotations

from dataclasses import dataclass

from .calibration import Calibration
from .geometry import DEFAULT_MAX_ACCEL_DEG_S2

#: Width (mm) of each finger across the way it closes when the config gives none (``[gripper] finger_width_mm``):
#: a hobby gripper's printed or laser-cut finger.
DEFAULT_FINGER_WIDTH_MM = 4.0


@dataclass(frozen=True)
class Servo:
    """One servo of the arm (not the gripper's): the pulse range the firmware never leaves, its calibration, its
    start angle, and its travel, safe top speed (deg/s) and acceleration limit (deg/s²), all in degrees of its own
    angle. A servo that drives one joint directly turns by that joint's angle; one that moves joints through a
    linkage (the MeArm's forearm servo) by its own (:attr:`hanoibot.arm.Chain.servo_slots`); one that holds a joint
    still (``held_deg``, an SO-101's wrist roll) stays at that angle.

    Its wire channel is its place in :attr:`~hanoibot.motion.robot.RobotConfig.servos`; the firmware's
    board_config.py maps wire channels to pins or PCA9685 outputs.
    """

    name: str
    min_us: int
    max_us: int
    calibration: Calibration
    start_deg: float
    min_deg: float
    max_deg: float
    max_speed_deg_s: float
    max_accel_deg_s2: float = DEFAULT_MAX_ACCEL_DEG_S2
    held_deg: float | None = None

    def pulse_us(self, angle_deg: float) -> float:
        """Pulse width in µs for the servo angle ``angle_deg`` (not rounded)."""
        return self.calibration.pulse_us(angle_deg)

    def angle_deg(self, pulse_us: float) -> float:
        """Servo angle in degrees that the pulse width ``pulse_us`` produces."""
        return self.calibration.angle_deg(pulse_us)

    def travel_deg(self, from_us: float, to_us: float) -> float:
        """Signed travel in degrees from ``from_us`` to ``to_us``, at the calibration's steepest piece between."""
        return (to_us - from_us) * self.calibration.max_deg_per_us(from_us, to_us)

    def top_speed_us_s(self) -> float:
        """Top pulse rate in µs/s that keeps the servo within ``max_speed_deg_s``: the calibration's average slope
        over its travel (hanoibot's own segments stay below it, as they are timed with the steepest local slope);
        a held servo's at its steepest slope."""
        if self.max_deg > self.min_deg:
            span_us = abs(self.pulse_us(self.max_deg) - self.pulse_us(self.min_deg))
            return self.max_speed_deg_s * span_us / (self.max_deg - self.min_deg)
        return self.max_speed_deg_s / self.calibration.max_deg_per_us(self.min_us, self.max_us)


@dataclass(frozen=True)
class Gripper:
    """The gripper (its wire channel is :attr:`~hanoibot.motion.robot.RobotConfig.gripper_channel`): pulse range,
    open/closed pulses and finger gaps, speed, and the grip sensor: ``grip_threshold_u16`` is the grip-current ADC
    reading at and above which the board says ``held``. ``name`` is the tool's (``[servos.<name>]``);
    ``finger_width_mm`` how wide each finger is across the way it closes (for a level claw, how tall: it must pass
    over the disk below the one it takes)."""

    min_us: int
    max_us: int
    us_per_deg: float
    open_us: int
    closed_us: int
    open_width_mm: float
    closed_width_mm: float
    finger_length_mm: float
    max_speed_deg_s: float
    squeeze_mm: float
    grip_sensor: bool
    grip_threshold_u16: int
    max_accel_deg_s2: float = DEFAULT_MAX_ACCEL_DEG_S2
    name: str = "gripper"
    finger_width_mm: float = DEFAULT_FINGER_WIDTH_MM

    def travel_deg(self, from_us: float, to_us: float) -> float:
        """Signed travel of the gripper servo in degrees from ``from_us`` to ``to_us`` (by ``us_per_deg``)."""
        return (to_us - from_us) / self.us_per_deg

    def top_speed_us_s(self) -> float:
        """Top pulse rate in µs/s of the gripper servo."""
        return self.max_speed_deg_s * self.us_per_deg

    def width_mm(self, pulse_us: float) -> float:
        """Finger gap in mm at pulse width ``pulse_us`` (linear between the open and closed pulses)."""
        fraction = (pulse_us - self.open_us) / (self.closed_us - self.open_us)
        return self.open_width_mm + fraction * (self.closed_width_mm - self.open_width_mm)

    def pulse_for_width_us(self, width_mm: float) -> float:
        """Pulse width in µs that sets the finger gap to ``width_mm`` (clamped to the open..closed range)."""
        width_mm = min(max(width_mm, self.closed_width_mm), self.open_width_mm)
        fraction = (width_mm - self.open_width_mm) / (self.closed_width_mm - self.open_width_mm)
        return self.open_us + fraction * (self.closed_us - self.open_us)


#: How far a joint may stand from where it was sent after a pick or a place, in degrees of its servo, unless [motion]
#: pose_tolerance_deg says otherwise: a bus servo may still trail its command by ~30 µs when a segment is DONE, 5.4
#: deg of an STS (5.56 µs a degree); at rest it holds within a few steps (0.09 deg each). A tighter figure suits an
#: arm whose servos settle within the grip's hold; a joint held back by an obstacle or stalled is off by more.
DEFAULT_POSE_TOLERANCE_DEG = 6.0


@dataclass(frozen=True)
class MotionSettings:
    """How motions are planned: clearances in mm, straight-line tolerance in mm, settle time in ms; and how far a
    joint that reports where it is (a bus servo) may stand from its pose after a pick or a place, in degrees
    (:mod:`hanoibot.run.pose_check`)."""

    clearance_mm: float
    line_tolerance_mm: float
    settle_ms: int
    pose_tolerance_deg: float = DEFAULT_POSE_TOLERANCE_DEG
