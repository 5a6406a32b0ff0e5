"""A board that booted afresh while every servo held its pose: bus servos keep their torque and goal when the board
that drove them stops (a ``feetech://`` host killed or ended: its board lived in its process), as a PCA9685 keeps
pulsing through an MCU reset. The arm then stands where it was, maybe low on a peg, maybe with a disk in the
fingers: unlike a limp arm it did not fall, and unlike an idle board's it was never homed.

:func:`holds_pose` tells such a board from its first STATUS; :func:`configure_where_held` takes it over without
moving anything, so that what the host does next (read the grip, lift clear before homing) starts from where the
arm really is.
"""

from __future__ import annotations

from ..link.status import Mode, Status
from ..motion.timing import PWM_FRAME_MS
from .release import ENABLE_STAGGER_S, GRIP_PROBE_MARGIN_S, grip_status
from .robot import Robot


def holds_pose(status: Status) -> bool:
    """True for a board that booted afresh (not configured yet) whose every output was found holding a pulse (µs)."""
    pulses = [int(pulse) for pulse in status.pulses_us]
    return status.mode == Mode.UNCONFIGURED and bool(pulses) and all(pulse > 0 for pulse in pulses)


def configure_where_held(robot: Robot, *, first_cmd_id: int = 1) -> Status:
    """Configure a board that :func:`holds_pose` with the pose its servos hold as the start pose, so that nothing
    moves (the fingers stay where they are: shut on a disk they squeeze it, and its load says so); hold that pose
    for the grip hold time (one MOVE to it, command id ``first_cmd_id`` or above, once every output is on) and
    return a STATUS read then, its grip word read as :func:`~hanoibot.run.release.grip_status` does."""
    from ..motion.timing import grip_hold_ms

    session, config = robot.session, robot.config
    mins, maxs, _starts, speeds, threshold = robot.limits()
    kept = [int(pulse) for pulse in session.status().pulses_us]
    session.configure(mins, maxs, kept, speeds, threshold)
    cmd_id = max(session.last_sent_cmd + 1, first_cmd_id)
    hold_ms = max(grip_hold_ms(config), 2 * PWM_FRAME_MS)
    session.send_move(cmd_id, kept, hold_ms)
    session.wait_done(cmd_id, timeout_s=ENABLE_STAGGER_S * len(kept) + hold_ms / 1000 + GRIP_PROBE_MARGIN_S)
    return grip_status(robot)
