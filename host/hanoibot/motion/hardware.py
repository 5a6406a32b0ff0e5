"""The servos and gripper as the host sees them, and the motion-planning settings of a robot config.

Built and validated by :mod:`hanoibot.config`; this module only holds them and converts units.
"""

from __future__ import annotations

from dataclasses import dataclass

from .calibration import Calibration
from .geometry import DEFAULT_MAX_ACCEL_DEG_S2


@dataclass(frozen=True)
class Servo:
    """One joint servo: the pulse range the firmware never leaves, calibration, start angle.

    Its wire channel is its place in joint order (base, shoulder, elbow, wrist); the firmware's board_config.py
    maps wire channels to pins or PCA9685 outputs.
    """

    joint: str
    min_us: int
    max_us: int
    calibration: Calibration
    start_deg: float

    def pulse_us(self, angle_deg: float) -> float:
        """Pulse width in µs for the joint angle ``angle_deg`` (not rounded)."""
        return self.calibration.pulse_us(angle_deg)

    def angle_deg(self, pulse_us: float) -> float:
        """Joint angle in degrees that the pulse width ``pulse_us`` produces."""
        return self.calibration.angle_deg(pulse_us)


@dataclass(frozen=True)
class Gripper:
    """The parallel gripper (wire channel 4): pulse range, open/closed pulses and finger gaps, speed, and the grip
    sensor: ``grip_threshold_u16`` is the grip-current ADC reading at and above which the board says ``held``."""

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

    def width_mm(self, pulse_us: float) -> float:
        """Finger gap in mm at pulse width ``pulse_us`` (linear between the open and closed pulses)."""
        fraction = (pulse_us - self.open_us) / (self.closed_us - self.open_us)
        return self.open_width_mm + fraction * (self.closed_width_mm - self.open_width_mm)

    def pulse_for_width_us(self, width_mm: float) -> float:
        """Pulse width in µs that sets the finger gap to ``width_mm`` (clamped to the open..closed range)."""
        width_mm = min(max(width_mm, self.closed_width_mm), self.open_width_mm)
        fraction = (width_mm - self.open_width_mm) / (self.closed_width_mm - self.open_width_mm)
        return self.open_us + fraction * (self.closed_us - self.open_us)


@dataclass(frozen=True)
class MotionSettings:
    """How motions are planned: clearances in mm, straight-line tolerance in mm, settle time in ms."""

    clearance_mm: float
    line_tolerance_mm: float
    settle_ms: int
