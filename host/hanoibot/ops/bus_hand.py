"""An arm moved by hand: servos that say where they are (bus servos: STATUS carries measured positions) go limp,
are read while a person moves the arm, and hold again where the hand left them: the board's side of a bus
calibration (``hanoibot calibrate`` on an SO-101; the session, the fits and the saving are
:mod:`hanoibot.cli_support.bus_calibration`'s).
"""

from __future__ import annotations

import time

from ..link.status import Status
from ..run.robot import Robot

#: How often the sweep reads where the joints are, in s.
SWEEP_POLL_S = 0.05
#: How long a pose is waited for when a servo has no fresh reading, in s.
READING_WAIT_S = 3.0
#: Two readings this far apart in time (s) that agree within STILL_US (µs) on every servo: the arm stands still and
#: every servo has been read since it was put there (six servos, one read per 20 ms control step: 120 ms).
STILL_S = 0.3
STILL_US = 2


def reports_positions(robot: Robot) -> bool:
    """True when the board's STATUS carries a measured position for every channel (bus servos); nothing moves."""
    return has_measured_pose(robot.session.status())


def has_measured_pose(status: Status) -> bool:
    """True when the board's STATUS carries a measured position for every channel (bus servos)."""
    return bool(status.measured_us)


def measured_pose(robot: Robot, wait_s: float = READING_WAIT_S) -> tuple[int, ...] | None:
    """Where every servo is (µs per channel) as the board measures it, once two readings :data:`STILL_S` apart
    agree within :data:`STILL_US` (the bus reads one servo per control step: a first reading may predate the hand's
    last move); the link served meanwhile. None when no such pair came within ``wait_s``."""
    deadline_s = time.monotonic() + wait_s
    before: tuple[int, ...] | None = None
    while True:
        measured = measured_now(robot)
        if measured is not None:
            if before is not None and max(abs(a - b) for a, b in zip(before, measured, strict=True)) <= STILL_US:
                return measured
            before = measured
        if time.monotonic() > deadline_s:
            return None
        pause_until_s = time.monotonic() + STILL_S
        while time.monotonic() < pause_until_s:
            serve(robot)
            time.sleep(SWEEP_POLL_S)


def measured_now(robot: Robot) -> tuple[int, ...] | None:
    """The pose the board measured last (µs per channel), without waiting; None while a servo has no reading."""
    measured = tuple(int(p) for p in robot.session.status().measured_us)
    return measured if measured and min(measured) >= 0 else None


def go_limp(robot: Robot) -> None:
    """Let every servo go limp (RELEASE), so a hand can move the arm."""
    robot.session.release()


def serve(robot: Robot) -> None:
    """Serve the link once without blocking (heartbeats, acks): while the host works, the board is never unheard."""
    robot.session.poll()


def hold_where_it_stands(robot: Robot) -> None:
    """The servos hold again (CONFIG with ``robot.config``'s limits), starting where the hand left them: the
    measured pose, kept within the pulse limits (the config's start pose when no reading came)."""
    pose = measured_pose(robot)
    min_us, max_us, start_us, speeds, threshold = robot.limits()
    if pose is not None:
        start_us = tuple(min(max(p, lo), hi) for p, lo, hi in zip(pose, min_us, max_us, strict=True))
    robot.session.configure(min_us, max_us, start_us, speeds, threshold)
