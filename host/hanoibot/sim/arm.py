"""The simulated arm's body: servo pulses (µs) -> true joint angles (deg) -> where the fingertips are (mm).

The arm is the robot config's chain of N joints (:mod:`hanoibot.arm`), its servos in wire order, the gripper on
its own channel (:attr:`~hanoibot.motion.robot.RobotConfig.gripper_channel`). It uses the *simulated robot's own*
config, which a test may make differ from the config the host plans with, to model a mis-calibrated robot:
``servo_offsets_deg`` adds a fixed error to each of the arm's servos (wire order), as a servo horn mounted one
spline tooth off would (the host believes the calibration; the arm ends up elsewhere). A servo that moves joints
through a linkage (the MeArm's forearm) carries its error into every joint it moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..arm import Chain
from ..config import RobotConfig
from ..errors import ConfigError
from ..motion.claw import is_level
from ..motion.kinematics import Point
from .disks import GripperPose


class SimArm:
    """Forward kinematics of the simulated arm, with optional per-servo mounting errors in degrees."""

    def __init__(self, config: RobotConfig, *, servo_offsets_deg: Sequence[float] | None = None) -> None:
        servos = len(config.servos)
        offsets = tuple(float(o) for o in servo_offsets_deg) if servo_offsets_deg is not None else (0.0,) * servos
        if len(offsets) != servos:
            names = ", ".join(servo.name for servo in config.servos)
            raise ConfigError(f"servo_offsets_deg has {len(offsets)} entries: expected {servos} ({names})")
        self.config = config
        self.servo_offsets_deg = offsets
        self._chain = _held_off(config, offsets)
        self._level = is_level(config.chain.approach(config.chain.middle_pose()))

    def joint_angles(self, pulses_us: Sequence[float]) -> tuple[float, ...]:
        """True joint angles in degrees for the arm's channel pulses (µs), mounting errors included."""
        config = self.config
        servo_deg = config.servo_angles(pulses_us)
        return self._chain.joint_angles([servo_deg[c] + self.servo_offsets_deg[c] for c in config.actuator_channels])

    def finger_gap_mm(self, gripper_pulse_us: float) -> float:
        """Finger gap in mm for the gripper pulse (µs), held within the gripper's mechanical range."""
        gripper = self.config.gripper
        narrow_mm, wide_mm = sorted((gripper.closed_width_mm, gripper.open_width_mm))
        return min(max(gripper.width_mm(gripper_pulse_us), narrow_mm), wide_mm)

    def _arm_pulses(self, pulses_us: Sequence[float | None]) -> list[float] | None:
        """The channel pulses with the gripper's as 0.0, or None while one of the arm's servos is unpowered."""
        gripper = self.config.gripper_channel
        if len(pulses_us) < self.config.channels:
            return None
        out = []
        for channel, pulse_us in enumerate(pulses_us):
            if channel == gripper:
                out.append(0.0)
            elif pulse_us is None:
                return None
            else:
                out.append(float(pulse_us))
        return out

    def points_mm(self, pulses_us: Sequence[float | None]) -> tuple[Point, ...] | None:
        """Each joint's origin and the grip point (mm) for the channel pulses; None while a servo of the arm is
        unpowered."""
        pulses = self._arm_pulses(pulses_us)
        if pulses is None:
            return None
        return self._chain.joint_points(self.joint_angles(pulses))

    def pose(self, pulses_us: Sequence[float | None]) -> GripperPose | None:
        """The fingertips' position (mm), gap (mm) and, for a level claw, the way it points; None while any
        channel is unpowered."""
        pulses = self._arm_pulses(pulses_us)
        gripper_pulse_us = pulses_us[self.config.gripper_channel] if pulses is not None else None
        if pulses is None or gripper_pulse_us is None:
            return None
        angles = self.joint_angles(pulses)
        grip = self._chain.grip_point(angles)
        gap_mm = self.finger_gap_mm(gripper_pulse_us)
        if not self._level:
            return GripperPose(grip.x_mm, grip.y_mm, grip.z_mm, gap_mm)
        ax, ay, _ = self._chain.approach(angles)
        return GripperPose(grip.x_mm, grip.y_mm, grip.z_mm, gap_mm, ax, ay)


def _held_off(config: RobotConfig, offsets_deg: Sequence[float]) -> Chain:
    """The config's chain with each held joint where its servo's error (``offsets_deg``, wire order) holds it."""
    chain = config.chain
    joints = list(chain.joints)
    for slot, offset_deg in zip(chain.servo_slots, offsets_deg, strict=True):
        if slot.held_joint is not None and offset_deg:
            joint = joints[slot.held_joint]
            assert joint.held_deg is not None
            held_deg = joint.held_deg + offset_deg
            joints[slot.held_joint] = replace(joint, min_deg=held_deg, max_deg=held_deg, held_deg=held_deg)
    return replace(chain, joints=tuple(joints)) if joints != list(chain.joints) else chain
