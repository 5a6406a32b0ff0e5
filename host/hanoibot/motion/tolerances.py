"""``[tolerances]``: how far the built robot may differ from its config (:mod:`.margins` checks that the board's
tightest fit leaves room for them; the randomized simulated world draws within them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerances:
    """``[tolerances]``: how far the built robot may differ from its config (each a bound on an absolute error).

    ``servo_speed_sag`` is the share of its top speed a servo may lose under load and at a low supply (each
    direction); ``servo_accel_factor`` the least a servo's own acceleration is, as a multiple of its joint's
    ``max_accel_deg_s2`` (the planner keeps below that); ``disk_hole_mm`` how much narrower a disk's hole may be
    than ``[board] disk_hole_diameter_mm``. The defaults are a hobby arm's (docs/margins.md, "Where the figures
    come from"): MG996R-class servos (5 µs deadband, datasheet), a horn's play, a calibration by inclinometer.
    """

    calibration_deg: float = 0.1
    servo_deadband_us: float = 5.0
    servo_backlash_us: float = 3.0
    servo_speed_sag: float = 0.05
    servo_accel_factor: float = 3.0
    peg_position_mm: float = 0.5
    peg_height_mm: float = 1.0
    disk_hole_mm: float = 0.2
    disk_thickness_mm: float = 0.2
