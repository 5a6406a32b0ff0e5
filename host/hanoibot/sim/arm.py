"""The simulated arm's body: servo pulses (µs) -> true joint angles (deg) -> where the fingertips are (mm).

The arm uses the *simulated robot's own* config, which a test may make differ from the config the host plans
with, to model a mis-calibrated robot: ``joint_offsets_deg`` adds a fixed error to each joint, as a servo horn
mounted one spline tooth off would (the host believes the calibration; the arm ends up elsewhere).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..config import RobotConfig
from ..errors import ConfigError
from ..motion.kinematics import JointAngles, Point, arm_points
from .disks import GripperPose

#: The four joints (base, shoulder, elbow, wrist) come before the gripper on the wire.
JOINT_CHANNELS = 4


class SimArm:
    """Forward kinematics of the simulated arm, with optional per-joint mounting errors in degrees."""

    def __init__(self, config: RobotConfig, *, joint_offsets_deg: Sequence[float] = (0.0, 0.0, 0.0, 0.0)) -> None:
        if len(joint_offsets_deg) != JOINT_CHANNELS:
            raise ConfigError(
                f"joint_offsets_deg has {len(joint_offsets_deg)} entries: expected {JOINT_CHANNELS} "
                "(base, shoulder, elbow, wrist)"
            )
        self.config = config
        self.joint_offsets_deg = tuple(float(offset) for offset in joint_offsets_deg)

    def joint_angles(self, pulses_us: Sequence[float]) -> JointAngles:
        """True joint angles in degrees for the first four channel pulses (µs), mounting errors included."""
        nominal = self.config.joint_angles(pulses_us)
        return JointAngles(*(a + e for a, e in zip(nominal, self.joint_offsets_deg, strict=True)))

    def finger_gap_mm(self, gripper_pulse_us: float) -> float:
        """Finger gap in mm for the gripper pulse (µs), held within the gripper's mechanical range."""
        gripper = self.config.gripper
        narrow_mm, wide_mm = sorted((gripper.closed_width_mm, gripper.open_width_mm))
        return min(max(gripper.width_mm(gripper_pulse_us), narrow_mm), wide_mm)

    def points_mm(self, pulses_us: Sequence[float | None]) -> tuple[Point, ...] | None:
        """Shoulder, elbow, wrist and grip point (mm) for the channel pulses; None while a joint is unpowered."""
        joints = pulses_us[:JOINT_CHANNELS]
        if len(joints) < JOINT_CHANNELS or any(p is None for p in joints):
            return None
        return arm_points(self.config.arm, self.joint_angles([float(p) for p in joints if p is not None]))

    def pose(self, pulses_us: Sequence[float | None]) -> GripperPose | None:
        """The fingertips' position (mm) and gap (mm) for the channel pulses; None while any channel is unpowered."""
        points = self.points_mm(pulses_us)
        if points is None or len(pulses_us) <= JOINT_CHANNELS or pulses_us[JOINT_CHANNELS] is None:
            return None
        grip = points[-1]
        gripper_pulse_us = pulses_us[JOINT_CHANNELS]
        assert gripper_pulse_us is not None
        return GripperPose(grip.x_mm, grip.y_mm, grip.z_mm, self.finger_gap_mm(gripper_pulse_us))
