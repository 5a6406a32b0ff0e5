"""A board that booted afresh while its servos kept holding the arm: is the run's disk still between the fingers?

Bus servos keep their torque and their goal when the board that drove them stops: a ``feetech://`` host killed
(its in-process board dies with it) or a board reset under a PCA9685. The next board reads back what each servo
holds and reports it (STATUS: mode ``UNCONFIGURED``, every channel's pulse non-zero): the arm did not go limp, so a
disk it carried did not fall. Asking the operator to take that disk out by hand, as after a limp reset, would be
wrong and needless: the servos' own readings say where the arm is (each joint's measured position) and the
gripper's load says whether it still holds the disk; the journal's move under way says which disk and from which
peg. :func:`disk_held_through_reset` puts those together; ``resume`` then carries the disk on to the peg its move
was going to (the move is made once), ``home`` puts it back where it came from.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import JournalError, RunFault
from ..link.status import Status
from ..motion.segments import regrip_segments
from ..planner.base import Plan
from ..puzzle import State, peg_letter
from ..run.grip_check import serve_for
from ..run.held_pose import configure_where_held, holds_pose
from ..run.journal import JournalLog
from ..run.pose_check import PoseCheck
from ..run.recovery import recorded_board
from ..run.release import disk_in_gripper, grip_status, play_segments
from ..run.robot import Robot

#: Longest the host waits for every joint's first measured position from a board that booted afresh, in s (a bus
#: board reads one servo a control step: six in 60 ms; a USB adapter and a loaded host hand them over later), and
#: how often it asks meanwhile, in s.
MEASURE_WAIT_S = 1.0
MEASURE_GAP_S = 0.02


def check_held_pose(robot: Robot, held_us: Sequence[int], disk: int) -> None:
    """RunFault naming each joint whose measured position stands more than the pose tolerance off ``held_us`` (µs,
    what its servo holds): something moved it while no board drove it (knocked, slipped), so neither the pose nor
    the grip can be trusted. Waits up to :data:`MEASURE_WAIT_S` for every joint's first reading (a bus board reads
    one servo a control step); a board that measures nothing (PWM outputs) is not checked."""
    session = robot.session
    check = PoseCheck.for_robot(robot.config)
    status = session.status()
    deadline_s = session.clock.now_s() + MEASURE_WAIT_S
    while status.measured_us and session.clock.now_s() < deadline_s:
        if all(m >= 0 for ch, m in enumerate(status.measured_us) if ch not in check.skip):
            break
        serve_for(session, MEASURE_GAP_S)
        status = session.status()
    misses = check.misses(status.measured_us, held_us)
    if misses:
        joints = ", ".join(f"the {m.name} joint stands {abs(m.error_deg):.1f} deg off" for m in misses)
        raise RunFault(
            f"after the board's restart {joints} the pose its servo holds (more than {check.tolerance_deg:g} deg): "
            f"something moved the arm while no host drove it; nothing moved: look at the arm, take disk {disk} out "
            "of the gripper by hand if it is still there and put it on a peg where it may lie, then resume with "
            "--board STATE saying where the disks are"
        )


def is_at_disk(robot: Robot, pulses_us: Sequence[int], state: State, peg: int) -> bool:
    """True when the grip point of the pose ``pulses_us`` (µs) stands where the fingers take the top disk of ``peg``
    (0 = A) in ``state``: within that disk's radius of the peg's axis, seen from above, and within a disk's
    thickness of its grip height."""
    config, board = robot.config, robot.config.board
    height, top = state.height(peg), state.top(peg)
    if top is None:
        return False
    point, spot = config.grip_point(pulses_us), board.peg(peg)
    radius_mm = board.disk_diameter_mm(top) / 2
    level_mm = abs(point.z_mm - board.grip_z_mm(height - 1))
    near = (point.x_mm - spot.x_mm) ** 2 + (point.y_mm - spot.y_mm) ** 2 <= radius_mm**2
    return bool(near and level_mm <= board.disk_thickness_mm)


def finish_grip(robot: Robot, disk: int) -> Status:
    """Close the fingers on ``disk`` where the arm stands, as a pick does (never opening them), hold, and read the
    grip as :func:`~hanoibot.run.release.grip_status` does: a board stopped while the fingers closed on the disk
    left them touching it, maybe not yet squeezing it."""
    session = robot.session
    pose_us = [int(pulse) for pulse in session.status().pulses_us]
    play_segments(robot, regrip_segments(robot.config, disk, pose_us), session.last_sent_cmd + 1)
    return grip_status(robot)


def disk_held_through_reset(
    robot: Robot, log: JournalLog, plan: Plan, *, first_cmd_id: int, board: State | None = None
) -> tuple[State, int, int] | None:
    """``(state, disk, source)`` when the board was reset but its servos held the arm, and the gripper still holds
    the disk of the journal's move under way: ``state`` counts that disk on ``source``, the peg (0 = A) it was
    taken from (``board`` where the operator says the disks are, counted the same way; default: where the journal
    last saw them). None when there is nothing to carry: no move under way, a board whose outputs went off (the
    usual reset recovery applies), no grip sensor, or fingers that close on nothing.

    Before anything moves, each joint's measured position (bus servos) must stand within the pose tolerance of
    what its servo holds (:func:`check_held_pose`; not when the operator gave ``board``: they looked at the arm).
    Then the gripper's load is read where the arm stands, nothing moved
    (:func:`~hanoibot.run.held_pose.configure_where_held`, command ids from ``first_cmd_id``): the board is
    configured from here on. Fingers that hold nothing at the disk on its own peg (the board stopped while
    they closed on it) are closed on it first (:func:`finish_grip`). JournalError when ``board`` does not have the disk
    on top of the peg it was taken from.
    """
    status = robot.session.status()
    entry = log.open_move
    if entry is None or not holds_pose(status) or not robot.config.gripper.grip_sensor:
        return None
    disk, source, _ = entry.move
    held_us = [int(pulse) for pulse in status.pulses_us]
    if board is None:  # the operator, who says where the disks are, has looked at the arm
        check_held_pose(robot, held_us, disk)
    state = board or recorded_board(log) or plan.state_at(log.moves_done)
    grip = configure_where_held(robot, first_cmd_id=first_cmd_id)
    if not disk_in_gripper(robot, grip) and state.top(source) == disk and is_at_disk(robot, held_us, state, source):
        grip = finish_grip(robot, disk)  # stopped while closing on it: the fingers may touch it, not yet squeeze
    if not disk_in_gripper(robot, grip):
        return None
    if state.top(source) != disk:
        raise JournalError(
            f"the gripper holds disk {disk} (its load), taken from peg {peg_letter(source)} by the journal, but the "
            f"board {state} does not have it on top there: give --board with the held disk counted on peg "
            f"{peg_letter(source)}"
        )
    return state, disk, source
