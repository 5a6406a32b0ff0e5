"""The robot as motion sees it: board, arm, servos, gripper and motion settings in one validated, frozen value.

:mod:`hanoibot.config` parses a TOML file into a :class:`RobotConfig`; everything here is pure (no I/O).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from .drivers import DEFAULT_DRIVER
from .geometry import Arm, Board
from .hardware import Gripper, MotionSettings, Servo
from .kinematics import JointAngles, Point, forward_kinematics
from .tolerances import Tolerances


@dataclass(frozen=True)
class RobotConfig:
    """A validated robot: board, arm, servos (joint order), gripper and motion settings.

    ``config_hash`` is the sha256 (hex) of the file's bytes, for the journal; ``source_path`` the file read;
    ``tolerances`` how far the built robot may differ from all this (:mod:`.margins`); ``servo_driver`` the kind of
    output the servos hang on (``[servos] driver``, :mod:`.drivers`): how finely a pulse comes out.
    Channel order on the wire is base, shoulder, elbow, wrist, gripper.
    """

    board: Board
    arm: Arm
    servos: tuple[Servo, Servo, Servo, Servo]
    gripper: Gripper
    motion: MotionSettings
    config_hash: str
    source_path: Path | None
    tolerances: Tolerances = field(default_factory=Tolerances)
    servo_driver: str = DEFAULT_DRIVER

    def with_colour_disks(self, sizes: int, per_size: int) -> RobotConfig:
        """This robot with its coloured disk set in use (``sizes`` sizes, ``per_size`` colours each; see
        :meth:`Board.with_colour_disks`); the hash and path stay the file's."""
        return replace(self, board=self.board.with_colour_disks(sizes, per_size))

    @property
    def channels(self) -> int:
        """Number of servo channels on the wire (4 joints + gripper)."""
        return len(self.servos) + 1

    def start_pulses_us(self) -> tuple[int, ...]:
        """Start (home) pose pulses in µs, channel order, gripper open."""
        joints = (round(s.pulse_us(s.start_deg)) for s in self.servos)
        return (*joints, self.gripper.open_us)

    def min_pulses_us(self) -> tuple[int, ...]:
        """Lowest allowed pulse in µs per channel (for the firmware's CONFIG)."""
        return (*(s.min_us for s in self.servos), self.gripper.min_us)

    def max_pulses_us(self) -> tuple[int, ...]:
        """Highest allowed pulse in µs per channel (for the firmware's CONFIG)."""
        return (*(s.max_us for s in self.servos), self.gripper.max_us)

    def joint_pulses_us(self, angles: JointAngles) -> tuple[int, int, int, int]:
        """Whole-µs pulses of the four joint servos for ``angles`` (degrees)."""
        b, s, e, w = (round(servo.pulse_us(a)) for servo, a in zip(self.servos, angles, strict=True))
        return b, s, e, w

    def joint_angles(self, pulses_us: Sequence[float]) -> JointAngles:
        """Joint angles in degrees produced by the first four (joint) pulses of ``pulses_us``."""
        base, shoulder, elbow, wrist = self._angle_of_pulse
        return JointAngles(base(pulses_us[0]), shoulder(pulses_us[1]), elbow(pulses_us[2]), wrist(pulses_us[3]))

    @functools.cached_property
    def _angle_of_pulse(self) -> tuple[Callable[[float], float], ...]:
        """Each joint servo's calibration, pulse (µs) to angle (deg), looked up once: the blend checker asks for
        the grip point every few ms of every planned move."""
        return tuple(servo.calibration.angle_deg for servo in self.servos)

    def grip_point(self, pulses_us: Sequence[float]) -> Point:
        """Grip point in mm (forward kinematics) for channel pulses ``pulses_us`` (gripper pulse ignored)."""
        return forward_kinematics(self.arm, self.joint_angles(pulses_us))

    def max_speeds_us_s(self) -> tuple[float, ...]:
        """Top pulse rate in µs/s per channel that keeps every joint within its max_speed_deg_s.

        Uses the calibration's average slope over the joint's limits (hanoibot's own segments stay below it,
        as they are timed with the steepest local slope); for the simulator's virtual servos.
        """
        rates = []
        for servo, joint in zip(self.servos, self.arm.joints, strict=True):
            span_us = abs(servo.pulse_us(joint.max_deg) - servo.pulse_us(joint.min_deg))
            rates.append(joint.max_speed_deg_s * span_us / (joint.max_deg - joint.min_deg))
        return (*rates, self.gripper.max_speed_deg_s * self.gripper.us_per_deg)
