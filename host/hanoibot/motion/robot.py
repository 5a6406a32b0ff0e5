"""The robot as motion sees it: board, arm, servos, gripper and motion settings in one validated, frozen value.

:mod:`hanoibot.config` parses a TOML file into a :class:`RobotConfig`; everything here is pure (no I/O).

The arm is its :class:`~hanoibot.arm.Chain` (DESIGN decision 20): N joints, the servos that drive them, the tool
and the grasp mode. Motion never counts joints: a pose is the chain's joint angles (degrees, joint order, held
joints at their held angle) or the channel pulses (µs, wire order: :attr:`RobotConfig.servos`, then the gripper at
:attr:`RobotConfig.gripper_channel`), and this module converts between them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..arm import Chain, InverseKinematics, make_ik
from ..errors import UnreachableError
from .drivers import DEFAULT_DRIVER
from .geometry import Board
from .hardware import Gripper, MotionSettings, Servo
from .kinematics import Point
from .tolerances import Tolerances

#: Joint angles in degrees, in the chain's joint order (a held joint at its held angle).
JointAngles = tuple[float, ...]


@dataclass(frozen=True)
class RobotConfig:
    """A validated robot: board, arm chain, its servos (wire order), gripper and motion settings.

    ``config_hash`` is the sha256 (hex) of the file's bytes, for the journal; ``source_path`` the file read;
    ``tolerances`` how far the built robot may differ from all this (:mod:`.margins`); ``servo_driver`` the kind of
    output the servos hang on (``[servos] driver``, :mod:`.drivers`): how finely a pulse comes out; ``notes`` what a
    URDF named in the config held that could not be mapped, one line each.
    Channel order on the wire: ``servos`` (the chain's :attr:`~hanoibot.arm.Chain.servo_slots`), then the gripper.
    """

    board: Board
    chain: Chain
    servos: tuple[Servo, ...]
    gripper: Gripper
    motion: MotionSettings
    config_hash: str
    source_path: Path | None
    tolerances: Tolerances = field(default_factory=Tolerances)
    servo_driver: str = DEFAULT_DRIVER
    notes: tuple[str, ...] = ()

    def with_colour_disks(self, sizes: int, per_size: int) -> RobotConfig:
        """This robot with its coloured disk set in use (``sizes`` sizes, ``per_size`` colours each; see
        :meth:`Board.with_colour_disks`); the hash and path stay the file's."""
        return replace(self, board=self.board.with_colour_disks(sizes, per_size))

    # --- channels --------------------------------------------------------------------------------------------
    @property
    def gripper_channel(self) -> int:
        """The gripper's wire channel: after the arm's servos."""
        return len(self.servos)

    @property
    def channels(self) -> int:
        """Number of servo channels on the wire (the arm's servos and the gripper)."""
        return len(self.servos) + 1

    @property
    def outputs(self) -> tuple[Servo | Gripper, ...]:
        """Every channel's servo in wire order, the gripper at :attr:`gripper_channel`."""
        return (*self.servos, self.gripper)

    def channel_names(self) -> tuple[str, ...]:
        """Every channel's name in wire order (the servos' and the tool's): the keys of ``[servos]``."""
        return tuple(output.name for output in self.outputs)

    def gripper_us(self, pulses_us: Sequence[float]) -> float:
        """The gripper's pulse in ``pulses_us`` (channel order)."""
        return pulses_us[self.gripper_channel]

    def with_gripper(self, pulses_us: Sequence[int], gripper_us: int) -> tuple[int, ...]:
        """``pulses_us`` (channel order) with the gripper's pulse set to ``gripper_us``."""
        out = list(pulses_us)
        out[self.gripper_channel] = gripper_us
        return tuple(out)

    def start_pulses_us(self) -> tuple[int, ...]:
        """Start (home) pose pulses in µs, channel order, gripper open."""
        joints = [round(s.pulse_us(s.start_deg)) for s in self.servos]
        joints.insert(self.gripper_channel, self.gripper.open_us)
        return tuple(joints)

    def min_pulses_us(self) -> tuple[int, ...]:
        """Lowest allowed pulse in µs per channel (for the firmware's CONFIG)."""
        return tuple(output.min_us for output in self.outputs)

    def max_pulses_us(self) -> tuple[int, ...]:
        """Highest allowed pulse in µs per channel (for the firmware's CONFIG)."""
        return tuple(output.max_us for output in self.outputs)

    def max_speeds_us_s(self) -> tuple[float, ...]:
        """Top pulse rate in µs/s per channel that keeps every servo within its max_speed_deg_s (see
        :meth:`~.hardware.Servo.top_speed_us_s`); for the simulator's virtual servos and the blend checker."""
        return tuple(output.top_speed_us_s() for output in self.outputs)

    # --- joints <-> pulses -------------------------------------------------------------------------------------
    @functools.cached_property
    def ik(self) -> InverseKinematics:
        """The chain's IK (its family's), built once."""
        return make_ik(self.chain)

    @property
    def pitch_deg(self) -> float:
        """The tool pitch (degrees) of the chain's grasp mode: -90 top-down, 0 for a level claw."""
        return self.chain.grasp.pitch_deg

    def grasp_angles(
        self, point: Point, pitch_deg: float | None = None, *, seed: Sequence[float] | None = None
    ) -> JointAngles:
        """Joint angles (degrees) that put the grip point at ``point`` (mm) with the tool at ``pitch_deg`` (default
        the grasp mode's), the nearest ``seed`` where the IK is numeric; UnreachableError naming the point and the
        reason if none."""
        return self.ik.solve(point, self.pitch_deg if pitch_deg is None else pitch_deg, seed)

    def joint_pulses_us(self, angles: Sequence[float]) -> tuple[int, ...]:
        """Whole-µs pulses of the arm's servos (wire order, no gripper) for the joint ``angles`` (degrees)."""
        servo_deg = self.chain.actuator_angles(angles)
        return tuple(
            round(servo.pulse_us(servo.start_deg if actuator is None else servo_deg[actuator]))
            for servo, actuator in zip(self.servos, self._servo_actuators, strict=True)
        )

    def pose_pulses_us(self, angles: Sequence[float], gripper_us: int) -> tuple[int, ...]:
        """Every channel's pulse (µs) for the joint ``angles`` (degrees) and the gripper at ``gripper_us``."""
        pulses = list(self.joint_pulses_us(angles))
        pulses.insert(self.gripper_channel, gripper_us)
        return tuple(pulses)

    def pulses_at(self, point: Point, gripper_us: int, pitch_deg: float | None = None) -> tuple[int, ...]:
        """Every channel's pulse (µs) that puts the grip point at ``point`` (mm) with the tool at ``pitch_deg``
        (default the grasp mode's) and the gripper at ``gripper_us``."""
        return self.pose_pulses_us(self.grasp_angles(point, pitch_deg), gripper_us)

    def servo_angles(self, pulses_us: Sequence[float]) -> tuple[float, ...]:
        """Each of the arm's servos' angle (degrees, wire order) for the channel pulses ``pulses_us``."""
        return tuple(angle(pulses_us[channel]) for channel, angle in enumerate(self._angle_of_pulse))

    def joint_angles(self, pulses_us: Sequence[float]) -> JointAngles:
        """Joint angles in degrees (joint order) produced by the arm's pulses in ``pulses_us`` (the gripper's
        ignored)."""
        angle = self._angle_of_pulse
        return self.chain.joint_angles([angle[c](pulses_us[c]) for c in self.actuator_channels])

    @functools.cached_property
    def _angle_of_pulse(self) -> tuple[Callable[[float], float], ...]:
        """Each servo's calibration, pulse (µs) to angle (deg), looked up once: the blend checker asks for the grip
        point every few ms of every planned move."""
        return tuple(servo.calibration.angle_deg for servo in self.servos)

    @functools.cached_property
    def _servo_actuators(self) -> tuple[int | None, ...]:
        """Per servo (wire order) the chain actuator it is, None for a servo that holds a joint."""
        return tuple(slot.actuator for slot in self.chain.servo_slots)

    @functools.cached_property
    def actuator_channels(self) -> tuple[int, ...]:
        """Per chain actuator, its wire channel."""
        channels = {slot.actuator: c for c, slot in enumerate(self.chain.servo_slots) if slot.actuator is not None}
        return tuple(channels[a] for a in range(len(self.chain.actuators)))

    def grip_point(self, pulses_us: Sequence[float]) -> Point:
        """Grip point in mm (forward kinematics) for channel pulses ``pulses_us`` (gripper pulse ignored)."""
        return self.chain.grip_point(self.joint_angles(pulses_us))

    def arm_points(self, pulses_us: Sequence[float]) -> tuple[Point, ...]:
        """Each joint's origin and then the grip point (mm) for ``pulses_us``: the arm as a polyline to draw."""
        return self.chain.joint_points(self.joint_angles(pulses_us))

    def tool_pitch_deg(self, pulses_us: Sequence[float]) -> float:
        """The tool's pitch in degrees (0 level, -90 straight down) for ``pulses_us``."""
        return self.chain.tool_pitch_deg(self.joint_angles(pulses_us))

    def check_servo_pulses(self, pulses_us: Sequence[int], where: str = "pose") -> None:
        """UnreachableError naming the servo if a pulse of the arm's servos leaves its pulse range."""
        for servo, pulse_us in zip(self.servos, pulses_us, strict=False):
            if not servo.min_us <= pulse_us <= servo.max_us:
                raise UnreachableError(
                    f"{where}: {servo.name} would need {pulse_us} us: expected {servo.min_us} to {servo.max_us} us"
                )
