"""After each piece, did the arm get there? Each joint's measured angle against the pose it was sent to.

Servos that report where they are (bus servos: STATUS ``measured_us``, protocol 5) are checked where the arm stands
still at a pick or a place pose: when a move's grip phase is DONE (the fingers shut, their settle hold over: the
arm's joints have held the pick pose all that time) and when its release is DONE (the fingers opened over the
place pose). A joint whose measured angle is more than ``tolerance_deg`` from the pose it was sent to did not get
there: something stopped it (an obstacle, a stalled servo, a knocked joint). The run then stops with a
:class:`~hanoibot.errors.RunFault` naming the joint and its error in degrees, and the user is told how to go on.

Why there and only there: a reading in STATUS may be up to a whole bus cycle old (each servo is read in turn, one
per control step: 30 ms for 6 servos) and a bus servo trails its command (a run's last DONE can come with servos
~30 µs behind), so a pose read while the arm moves says little. Through the grip and the release the arm's joints
hold still (only the fingers move, then the settle hold), longer than a bus cycle: one STATUS read when that phase
is DONE says where they stood. The arm has begun the next segment by then (the lift or the retreat is queued
ahead), so a joint counts as there when it stands within the tolerance of the span from the piece's pose to the
pose the same STATUS says is commanded now. One read decides: a second one, later, would see the lift carry the
command past a joint held back, and clear it. The
gripper is not checked (closed on a disk it stands short of its goal on purpose: the grip check judges it), nor is
a joint without a fresh reading (-1: a servo that stops answering is the board's own fault, SERVO_SILENT). A board
without measured positions (PWM outputs) is not checked at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..errors import RunFault
from ..motion.hardware import DEFAULT_POSE_TOLERANCE_DEG
from ..motion.robot import RobotConfig
from .grip_check import GripLink

#: The message's advice: what the user runs to go on.
GO_ON = "clear its way, then run `hanoibot home --clear` and `hanoibot resume`"


class JointMiss(NamedTuple):
    """Joint ``name`` (wire ``channel``) stands ``error_deg`` degrees (signed: measured minus sent) off its pose."""

    channel: int
    name: str
    error_deg: float


class PoseCheck:
    """Compares measured joint angles with the commanded pose: ``names`` and ``angle_deg`` (pulse µs to degrees)
    per wire channel, ``tolerance_deg`` in degrees; channels in ``skip`` (the gripper) are not checked."""

    def __init__(
        self,
        names: Sequence[str],
        angle_deg: Sequence[Callable[[float], float]],
        *,
        tolerance_deg: float = DEFAULT_POSE_TOLERANCE_DEG,
        skip: Sequence[int] = (),
    ) -> None:
        if len(names) != len(angle_deg):
            raise ValueError(f"{len(names)} joint names for {len(angle_deg)} calibrations: expected one each")
        if not tolerance_deg > 0:
            raise ValueError(f"pose tolerance {tolerance_deg!r} deg: expected a positive number of degrees")
        self.names = tuple(names)
        self.angle_deg = tuple(angle_deg)
        self.tolerance_deg = tolerance_deg
        self.skip = frozenset(c % len(names) for c in skip)
        #: False once a STATUS had no measured positions (PWM outputs): nothing is read for the check from then on.
        self.board_measures = True

    @classmethod
    def for_robot(cls, config: RobotConfig) -> PoseCheck:
        """The check of ``config``'s joints (its calibrations, [motion] pose_tolerance_deg), the gripper skipped."""
        gripper = config.gripper
        return cls(
            config.channel_names(),
            [*(servo.angle_deg for servo in config.servos), lambda pulse_us: pulse_us / gripper.us_per_deg],
            tolerance_deg=config.motion.pose_tolerance_deg,
            skip=(config.gripper_channel,),
        )

    def misses(
        self, measured_us: Sequence[int], sent_us: Sequence[int], now_us: Sequence[int] | None = None
    ) -> list[JointMiss]:
        """The joints whose ``measured_us`` stands more than the tolerance outside the span from ``sent_us`` (the
        piece's pose) to ``now_us`` (the pose commanded now; None: the piece's), pulses in µs, wire order. A
        measured -1 is no reading and no miss; no measurements at all (PWM): no misses."""
        out = []
        now_us = sent_us if now_us is None or len(now_us) != len(sent_us) else now_us
        for ch, (measured, sent, now) in enumerate(zip(measured_us, sent_us, now_us, strict=False)):
            if ch in self.skip or ch >= len(self.names) or measured < 0:
                continue
            to_deg = self.angle_deg[ch]
            at_deg, low_deg, high_deg = to_deg(measured), min(to_deg(sent), to_deg(now)), max(to_deg(sent), to_deg(now))
            error_deg = at_deg - low_deg if at_deg < low_deg else at_deg - high_deg if at_deg > high_deg else 0.0
            if abs(error_deg) > self.tolerance_deg:
                out.append(JointMiss(ch, self.names[ch], error_deg))
        return out

    def check(self, link: GripLink, sent_us: Sequence[int], piece: str) -> None:
        """Read where the joints are (one STATUS) and raise RunFault when one stands off ``sent_us`` (the pose the
        arm was sent to, pulses in µs); ``piece`` names the moment ("the pick of disk 1 on peg A (move 1)"). A board
        without measured positions costs one STATUS, once: it is not asked again."""
        if not self.board_measures:
            return
        status = link.status()
        self.board_measures = bool(status.measured_us)
        misses = self.misses(status.measured_us, sent_us, status.pulses_us)
        if misses:
            raise RunFault(self.message(misses, piece))

    def message(self, misses: Sequence[JointMiss], piece: str) -> str:
        """The user's words for ``misses`` after ``piece``: each joint named with its error in degrees."""
        joints = ", ".join(f"the {m.name} joint stands {abs(m.error_deg):.1f} deg off" for m in misses)
        return (
            f"after {piece} {joints} (more than {self.tolerance_deg:g} deg from where it was sent: "
            f"[motion] pose_tolerance_deg): something stopped it (an obstacle, a stalled servo, a knocked joint); "
            f"{GO_ON}"
        )
