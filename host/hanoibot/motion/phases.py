"""The eight pick-and-place phases of one move, in the order the arm runs them.

One :class:`MotionPhase` names them everywhere: the segments motion makes, the sequencer's states while a run
streams, the journal's records and recovery's rules. It is a string enum, so a phase is written to the journal
and shown to people as its plain lower-case name (``"grip"``), and ``MotionPhase("grip")`` reads it back.
"""

from __future__ import annotations

from enum import StrEnum


class MotionPhase(StrEnum):
    """One phase of a move: over the source peg, down, close the fingers, up, across, down, open, up."""

    APPROACH = "approach"
    DESCEND = "descend"
    GRIP = "grip"
    LIFT = "lift"
    TRAVEL = "travel"
    LOWER = "lower"
    RELEASE = "release"
    RETREAT = "retreat"

    @property
    def carries_disk(self) -> bool:
        """True for the phases that start with the move's disk between the fingers (lift, travel, lower)."""
        return self in (MotionPhase.LIFT, MotionPhase.TRAVEL, MotionPhase.LOWER)

    @property
    def slides_on_peg(self) -> bool:
        """True for the phases whose held disk slides along a peg (lift, lower): run at the on-peg share of the top
        speeds (:func:`~hanoibot.motion.margins.on_peg_speed_ratio`)."""
        return self in (MotionPhase.LIFT, MotionPhase.LOWER)


#: Every phase of one move, in order.
PHASES = tuple(MotionPhase)
