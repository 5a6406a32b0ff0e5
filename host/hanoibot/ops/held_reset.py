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
from ..link.status import Mode, Status
from ..motion.timing import PWM_FRAME_MS
from ..planner.base import Plan
from ..puzzle import State, peg_letter
from ..run.grip_check import serve_for
from ..run.journal import JournalLog
from ..run.pose_check import PoseCheck
from ..run.recovery import recorded_board
from ..run.release import ENABLE_STAGGER_S, GRIP_PROBE_MARGIN_S, disk_in_gripper, grip_status
from ..run.robot import Robot

#: Longest the host waits for every joint's first measured position from a board that booted afresh, in s (a bus
#: board reads one servo a control step: six in 60 ms; a USB adapter and a loaded host hand them over later), and
#: how often it asks meanwhile, in s.
MEASURE_WAIT_S = 1.0
MEASURE_GAP_S = 0.02


def holds_pose(status: Status) -> bool:
    """True for a board that booted afresh (not configured yet) whose every output was found holding a pulse (µs):
    bus servos with their torque on, or a PCA9685 that kept pulsing through the reset."""
    pulses = [int(pulse) for pulse in status.pulses_us]
    return status.mode == Mode.UNCONFIGURED and bool(pulses) and all(pulse > 0 for pulse in pulses)


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


def grip_where_held(robot: Robot, *, first_cmd_id: int) -> Status:
    """The grip verdict of a board that booted holding every output (:func:`holds_pose`), with nothing moved: it is
    configured with the pose its servos hold as the start pose (the fingers where they are: shut on a disk they
    squeeze it, and its load says so), that pose held for the grip hold time (one MOVE to it, command id
    ``first_cmd_id`` or above, once every output is on), then read as :func:`~hanoibot.run.release.grip_status`
    does. Unlike :func:`~hanoibot.run.release.grip_verdict` the fingers are not driven closed: fingers that hold
    nothing stay open where they are."""
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
    Then the gripper's load is read where the arm stands, nothing moved (:func:`grip_where_held`, command ids
    from ``first_cmd_id``): the board is configured from here on. JournalError when ``board`` does not have the disk on
    top of the peg it was taken from.
    """
    status = robot.session.status()
    entry = log.open_move
    if entry is None or not holds_pose(status) or not robot.config.gripper.grip_sensor:
        return None
    if board is None:  # the operator, who says where the disks are, has looked at the arm
        check_held_pose(robot, [int(pulse) for pulse in status.pulses_us], entry.move.disk)
    if not disk_in_gripper(robot, grip_where_held(robot, first_cmd_id=first_cmd_id)):
        return None
    disk, source, _ = entry.move
    state = board or recorded_board(log) or plan.state_at(log.moves_done)
    if state.top(source) != disk:
        raise JournalError(
            f"the gripper holds disk {disk} (its load), taken from peg {peg_letter(source)} by the journal, but the "
            f"board {state} does not have it on top there: give --board with the held disk counted on peg "
            f"{peg_letter(source)}"
        )
    return state, disk, source
