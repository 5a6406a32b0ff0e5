"""The grip verdict the host acts on: several STATUS reads a PWM frame apart; "held" wins, "empty" only when every
read says so.

The board's verdict is the gripper current's mean over its latest 20 ms PWM frame (``hanoifw.sensing``), or
``unknown`` when its readings did not cover that frame. Acting on ``empty`` opens the fingers: a resumed lift
turns into an approach, a missed pick is retried from the approach, ``home`` opens them at the start pose. A held
disk that one frame reads as empty then falls (issue 33: "held 59775", 10 ms later "empty 25878", and the next MOVE
opened the fingers low on the peg). So :func:`read_grip` believes ``empty`` only when :data:`EMPTY_READS` reads, each
at least one PWM frame after the one before (a fresh frame mean each), all say it; any ``held`` ends the reading
at once as ``held``; ``unknown`` is asked again, up to :data:`MAX_READS` reads in all, after which the answer is
``unknown`` (callers then keep the fingers shut, or stop). Every decision on the grip (the sequencer's pick check,
``resume``, ``home``, the start of a run) reads it here, once.

Waiting between reads serves the link (``poll``: acks, heartbeats) and sleeps on the session's clock in slices of
:data:`SERVE_EVERY_S`: on ``sim://`` that advances the virtual clock and the board with it, so a run stays
deterministic; on a real board it is wall time.
"""

from __future__ import annotations

from typing import Protocol

from ..clock import Clock
from ..errors import RunFault
from ..link.status import Fault, Grip, Status
from ..motion.timing import PWM_FRAME_MS

#: Reads that must all say ``empty`` (each a PWM frame or more after the one before) before the host believes it.
EMPTY_READS = 3
#: Reads in all before the answer is ``unknown``: ``unknown`` and ``empty`` reads are asked again up to this many
#: (about 8 PWM frames, 160 ms, plus the round trips).
MAX_READS = 8
#: Least time between two reads, in s: one PWM frame, so each read is the mean of a frame the one before did not see.
READ_GAP_S = PWM_FRAME_MS / 1000
#: Longest the link goes unserved while waiting between reads, in s (well under the link's heartbeat period).
SERVE_EVERY_S = 0.01


class GripLink(Protocol):
    """What :func:`read_grip` needs of a link (:class:`~hanoibot.link.session.Session` fits; so does the
    sequencer's link)."""

    @property
    def clock(self) -> Clock: ...

    def poll(self) -> None: ...

    def status(self) -> Status: ...


def read_grip(
    link: GripLink,
    first: Status | None = None,
    *,
    grip_channel: int = -1,
    empty_reads: int = EMPTY_READS,
    max_reads: int = MAX_READS,
) -> Status:
    """A STATUS whose grip word is the verdict to act on: ``held`` as soon as one read says so; ``empty`` once
    ``empty_reads`` reads, a PWM frame or more apart, all said so; ``none`` (no sensor) at once; else ``unknown``
    (with ``grip_raw`` -1) after ``max_reads`` reads. ``first`` is a STATUS just read (it counts as the first read).

    A gripper whose output is off (its pulse, channel ``grip_channel``, 0: reset, RELEASE, POWER_LOST) draws no
    current, disk or not: its ``unknown`` is final and not asked again. ``grip_channel`` defaults to the last
    channel, where the robot config puts the gripper (:attr:`~hanoibot.motion.robot.RobotConfig.gripper_channel`).
    The returned STATUS is the last one read (faults and command ids are
    the freshest)."""
    status = link.status() if first is None else first
    empties = 0
    for reads in range(1, max_reads + 1):
        if status.grip in (Grip.HELD, Grip.NONE):
            return status
        if status.grip == Grip.EMPTY:
            empties += 1
            if empties >= empty_reads:
                return status
        elif (
            status.pulses_us
            and -len(status.pulses_us) <= grip_channel < len(status.pulses_us)
            and status.pulses_us[grip_channel] == 0
        ):
            return status  # the gripper is limp: no current to measure, however often asked
        if reads < max_reads:
            serve_for(link, READ_GAP_S)
            status = link.status()
    return status._replace(grip=Grip.UNKNOWN, grip_raw=-1)


def serve_for(link: GripLink, duration_s: float) -> None:
    """Wait ``duration_s`` s on the link's clock, serving the link at least every :data:`SERVE_EVERY_S` s."""
    clock = link.clock
    end_s = clock.now_s() + duration_s
    while True:
        link.poll()
        left_s = end_s - clock.now_s()
        if left_s <= 0:
            return
        clock.sleep(min(left_s, SERVE_EVERY_S))


def pick_is_held(link: GripLink, *, grip_channel: int = -1) -> bool:
    """Whether a disk is held once a pick's grip phase (closing and settle hold) is DONE, by :func:`read_grip`.

    RunFault when the board latched a fault meanwhile (a frozen arm, HOST_LOST, still holds: its verdict stands),
    or gives no verdict (``unknown``: its ADC read failed, or its readings never covered a frame; ``none``: no
    sensor): lifting on a guess is what lets a missed pick drive the arm into a disk."""
    status = read_grip(link, grip_channel=grip_channel)
    faults = [fault for fault in status.faults if fault != Fault.HOST_LOST]
    if faults:
        raise RunFault(f"board latched fault {', '.join(faults)} while gripping")
    if status.grip == Grip.HELD:
        return True
    if status.grip == Grip.EMPTY:
        return False
    raise RunFault(
        f"the grip sensor gave no verdict after the grip (STATUS grip {status.grip}): check its wiring "
        "(hardware/README.md, Grip sensor), or set grip_sensor = false in [gripper]"
    )
