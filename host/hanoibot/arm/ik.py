"""The one small interface every IK family has, and the family a chain names (Klipper's kinematics by name).

A family is a class built from a :class:`~.chain.Chain` with one method::

    solve(grip, pitch_deg, seed=None) -> joint angles (degrees, joint order)

``grip`` is the grip point (x, y, z in mm, arm frame), ``pitch_deg`` the tool's pitch (0 level, -90 straight
down: :attr:`.GraspMode.pitch_deg`), ``seed`` the joint angles to start from (the numeric family starts there; the
analytic ones give their one answer and ignore it). Every family raises :class:`~hanoibot.errors.UnreachableError`
naming the point and the distance it cannot span or the joint that would leave its limits; a chain the family
does not fit is a :class:`~hanoibot.errors.ConfigError` at construction. A new family is one module beside these,
registered in :data:`FAMILIES`, with the numeric family as its oracle in the tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from .chain import Chain
from .ik_numeric import NumericIK
from .ik_parallelogram import ParallelogramIK
from .ik_serial import SerialPitchIK


class InverseKinematics(Protocol):
    """What planning asks of an arm: joint angles for a grip point and a tool pitch."""

    @property
    def chain(self) -> Chain:
        """The chain solved for."""
        ...

    def solve(self, grip: Sequence[float], pitch_deg: float, seed: Sequence[float] | None = None) -> tuple[float, ...]:
        """Joint angles (degrees, joint order) that put the grip point at ``grip`` (mm) with the tool at
        ``pitch_deg``; UnreachableError naming the point and the reason if none."""
        ...


#: Each family's name (as a chain's ``ik_family`` names it) and its class.
FAMILIES: dict[str, Callable[[Chain], InverseKinematics]] = {
    "serial_pitch": SerialPitchIK,
    "parallelogram": ParallelogramIK,
    "numeric": NumericIK,
}


def make_ik(chain: Chain, family: str | None = None) -> InverseKinematics:
    """The IK of ``family`` (default: the one the chain names) for ``chain``; ConfigError if it does not fit."""
    return FAMILIES[family or chain.ik_family](chain)
