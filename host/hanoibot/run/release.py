"""Take over a board that an earlier command left behind, so that the next command can move it.

A run that ended in fault, was stopped at the pause prompt, e-stopped, interrupted twice or killed can leave the
board HELD with motion still queued, or with a fault latched. :func:`release_board` makes such a board idle: queued
motion is dropped (ESTOP holds the pose and drops the queue), the latch that this drop set is cleared, and a HOLD
is released (RESUME). HOST_LOST (the watchdog saw a killed host) is cleared too. A fault latched before (a
collision, a drop, an operator's e-stop) is cleared only when the caller was told to (``hanoibot home --clear``);
otherwise it is reported with the command that releases it.
Every command that moves a board it did not start on goes through :func:`release_board` (run, home, jog,
calibrate), which also takes the board over: MOVE ids from then on start :data:`TAKEOVER_ID_GAP` above the highest
the board accepted, so ids a stopped run journaled but never sent are never reused.
:func:`lift_clear` then lifts the gripper straight up, clear of every peg and stack, before anything travels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import RunFault
from ..link.session import Session
from ..link.status import Fault, Grip, Mode, Status
from ..motion.timing import PWM_FRAME_MS
from .grip_check import read_grip

if TYPE_CHECKING:
    from ..motion.segments import Segment
    from .robot import Robot

#: Latched faults that only say the host went silent (a killed or unplugged host): released without ``--clear``.
SILENCE_FAULTS = (Fault.HOST_LOST,)
#: Board modes in which queued motion may still run.
QUEUE_MODES = (Mode.MOVING, Mode.HELD)
#: Command ids a command taking over a board skips: more than a run journals ahead of what it sent, so ids a
#: stopped run journaled but never sent are never reused, and ``resume`` sees from the board's ids that the arm
#: moved since (a reused id would make the board's "done up to N" look like the run's own segments).
TAKEOVER_ID_GAP = 1000


def release_board(session: Session, *, clear: bool) -> tuple[str, ...]:
    """Make the board idle and ready for new motion, and take it over; returns the latched faults it cleared (only
    with ``clear``).

    On a board that ran commands in this boot, ``session`` then skips :data:`TAKEOVER_ID_GAP` command ids.
    Raises RunFault naming the faults when some are latched and ``clear`` is False (nothing is sent then).
    """
    status = session.status()
    latched = tuple(status.faults)
    needs_clear = [fault for fault in latched if fault not in SILENCE_FAULTS]
    if needs_clear and not clear:
        raise RunFault(
            f"the board has latched {', '.join(needs_clear)}: check the arm (it may hold a disk), "
            "then release it with: hanoibot home --clear"
        )
    if int(status.last_queued_cmd) > int(status.last_done_cmd) and str(status.mode) in QUEUE_MODES:
        session.estop()  # drops what an earlier command queued; holds the pose
        status = session.status()
    if status.faults:
        session.clear()
        status = session.status()
    if status.mode == Mode.HELD:
        session.resume()
    last_id = max(session.last_sent_cmd, int(status.last_queued_cmd), int(status.last_done_cmd))
    if last_id:
        session.skip_cmd_ids(last_id + TAKEOVER_ID_GAP - 1)
    return latched


def disk_in_gripper(robot: Robot, status: Status) -> bool:
    """True if the grip sensor in ``status`` gives the verdict ``held``.

    The sensor measures the gripper servo's current, and a servo without pulses draws none, disk or not: on a board
    whose gripper output is off (after a reset, RELEASE or POWER_LOST) ``status`` has no verdict (``unknown``) and
    this says False. Where a disk may be in a limp gripper, ask :func:`grip_verdict` first; ``status`` is one that
    :func:`grip_verdict`, :func:`settled_status` or :func:`grip_status` read (any ``held`` of several reads wins).
    """
    return robot.config.gripper.grip_sensor and status.grip == Grip.HELD


def grip_status(robot: Robot, status: Status | None = None) -> Status:
    """A STATUS (``status``, just read, or a new one) whose grip word is the verdict to act on: with a grip sensor
    in the config, read as :func:`~.grip_check.read_grip` does (``held`` wins, ``empty`` only when several reads a
    PWM frame apart agree); without one, as the board gave it."""
    if not robot.config.gripper.grip_sensor:
        return status if status is not None else robot.session.status()
    return read_grip(robot.session, status, grip_channel=robot.config.gripper_channel)


#: Extra time in s the hold that lets the grip sensor measure may take beyond its duration and the staggered
#: enable (a slow or busy board: the virtual Pico at a fraction of a real chip's speed).
GRIP_PROBE_MARGIN_S = 30.0
#: The firmware switches its outputs on this far apart after CONFIG, in s (board_config.ENABLE_STAGGER_MS).
ENABLE_STAGGER_S = 0.2


def grip_verdict(robot: Robot, *, first_cmd_id: int = 1) -> Status:
    """A STATUS whose grip word is a verdict (``held``/``empty``), also on a board whose gripper output is off.

    Such a board (reset, RELEASE, POWER_LOST cleared) has its gripper servo limp, and an undriven sensor says
    nothing. It is configured with the config's start pose but the gripper CLOSED (the firmware switches the
    gripper on first, then the joints to the start pose, one at a time): a disk still between the fingers is
    gripped and carried, never let go, and the fingers close on nothing otherwise. The pose is then held for the
    grip hold time (settle time and one PWM frame) after every output is on (one MOVE, its command id
    ``first_cmd_id`` or above; one more before it, closing the fingers, where the arm kept its pose: a gripper
    still moving reads loaded, as one closed on a disk), and the board asked (:func:`grip_status`: ``held``
    wins, ``empty`` only when several reads agree). Without a grip sensor the board is only asked; with a verdict
    already, or a gripper that is on, it is only read.
    """
    from ..motion.timing import grip_hold_ms

    session, config = robot.session, robot.config
    status = session.status()
    if not config.gripper.grip_sensor:
        return status
    if status.grip != Grip.UNKNOWN or status.mode != Mode.UNCONFIGURED or status.is_stopped:
        return grip_status(robot, status)  # configured with the gripper on, or faulted: nothing is switched on here
    mins, maxs, starts, speeds, threshold = robot.limits()
    kept = tuple(int(pulse) for pulse in status.pulses_us)
    if len(kept) != len(starts):
        kept = (0,) * len(starts)
    # A PCA9685 keeps pulsing through an MCU reset, and bus servos keep their torque (the board reports those
    # pulses; after a reset in the staggered switch-on, only some): those joints stay where they are and only the
    # fingers close; every output that is off starts at the config's start pose.
    here = tuple(pulse if pulse > 0 else start for pulse, start in zip(kept, starts, strict=True))
    closed = config.with_gripper(here, config.gripper.closed_us)
    session.configure(mins, maxs, closed, speeds, threshold)
    cmd_id = max(session.last_sent_cmd + 1, int(status.last_queued_cmd) + 1, first_cmd_id)
    hold_ms = max(grip_hold_ms(config), 2 * PWM_FRAME_MS)
    close_ms = 0
    if any(pulse > 0 for pulse in kept):  # the kept fingers close from where they were, then hold still (a
        # moving gripper reads loaded); the board's pose is the kept pulses, the others where CONFIG put them
        board_pose = tuple(pulse if pulse > 0 else target for pulse, target in zip(kept, closed, strict=True))
        close_ms = robot.duration_between_ms(board_pose, closed)
        session.send_move(cmd_id, list(closed), close_ms)
        cmd_id += 1
    session.send_move(cmd_id, list(closed), hold_ms)  # runs once every output is on
    enable_s = ENABLE_STAGGER_S * len(closed)
    session.wait_done(cmd_id, timeout_s=enable_s + (close_ms + hold_ms) / 1000 + GRIP_PROBE_MARGIN_S)
    return grip_status(robot)


def settled_status(robot: Robot, *, first_cmd_id: int) -> Status:
    """A STATUS read once the servos have come to rest where a stopped board holds them.

    A servo trails its pulse, so fingers that were closing when the board stopped (an e-stop, a fault) go on
    closing for a few tens of ms, and may yet shut on a disk: a grip verdict read at once can say ``empty`` about a
    disk that the fingers are about to hold. On an idle board with a grip sensor the pose is therefore held for the
    grip hold time (settle time and one PWM frame, at least two frames: one MOVE to the pulses the board holds,
    command id ``first_cmd_id`` or above) before the board is asked; otherwise it is only asked. With a grip
    sensor the answer is read as :func:`grip_status` does (``held`` wins, ``empty`` only when several reads agree).
    """
    from ..motion.timing import grip_hold_ms

    session, config = robot.session, robot.config
    status = session.status()
    if not config.gripper.grip_sensor:
        return status
    if status.mode != Mode.IDLE or not all(status.pulses_us):
        return grip_status(robot, status)
    cmd_id = max(session.last_sent_cmd + 1, first_cmd_id)
    hold_ms = max(grip_hold_ms(config), 2 * PWM_FRAME_MS)
    session.send_move(cmd_id, [int(pulse) for pulse in status.pulses_us], hold_ms)
    session.wait_done(cmd_id, timeout_s=hold_ms / 1000 + GRIP_PROBE_MARGIN_S)
    return grip_status(robot)


def refuse_held_disk(robot: Robot) -> None:
    """RunFault, before anything moves, when the grip sensor reads a disk in the gripper: homing would carry it
    home and open the fingers there, so it is put down first (``hanoibot home --clear``)."""
    if disk_in_gripper(robot, grip_status(robot)):
        raise RunFault(
            "the gripper holds a disk (grip sensor): nothing moved; put it down with hanoibot home --clear (it "
            "finds the stopped run's journal; --journal FILE names one), or take it out by hand, then start again"
        )


#: Extra time a lift segment may take beyond its planned duration before the wait gives up, in seconds.
LIFT_WAIT_MARGIN_S = 5.0


def lift_clear(robot: Robot, *, first_cmd_id: int = 0) -> bool:
    """Lift the grip point straight up until a held disk would clear every peg tip, gripper unchanged, at the
    on-peg share of the servos' speeds (a held disk may still be threaded on its peg).

    Does nothing on an unconfigured board (it has not moved) or when the arm is high enough already; returns True
    when it lifted. Command ids start at ``first_cmd_id`` or above. RunFault when no straight line up is reachable
    (jog the arm clear by hand then).
    """
    from ..errors import UnreachableError
    from ..motion.kinematics import Point
    from ..motion.margins import on_peg_speed_ratio
    from ..motion.paths import straight_line
    from ..motion.timing import duration_ms
    from ..motion.workspace import carry_z_mm

    session, config = robot.session, robot.config
    status = session.status()
    pulses_us = tuple(int(p) for p in status.pulses_us)
    if status.mode == Mode.UNCONFIGURED or min(pulses_us) < min(config.min_pulses_us()):
        return False
    point = config.grip_point(pulses_us)
    safe_z_mm = carry_z_mm(config.board, config.board.pegs, config.motion.clearance_mm)
    if point.z_mm >= safe_z_mm:
        return False
    try:
        gripper_us = int(config.gripper_us(pulses_us))
        pieces = straight_line(config, pulses_us, Point(point.x_mm, point.y_mm, safe_z_mm), gripper_us)
    except UnreachableError as err:
        raise RunFault(f"cannot lift the arm straight up from here ({err}): jog it clear with hanoibot jog") from err
    cmd_id = max(session.last_sent_cmd, int(status.last_queued_cmd), int(status.last_done_cmd), first_cmd_id - 1)
    here = pulses_us
    for target in pieces:
        cmd_id += 1
        ms = duration_ms(config, here, target, speed_ratio=on_peg_speed_ratio(config))  # a held disk may be on its peg
        session.send_move(cmd_id, list(target), ms)
        session.wait_done(cmd_id, timeout_s=ms / 1000 + LIFT_WAIT_MARGIN_S)
        here = tuple(target)
    return True


def play_segments(robot: Robot, segments: Sequence[Segment], first_cmd_id: int) -> int:
    """Send ``segments`` one at a time as command ids from ``first_cmd_id`` on, each with its own profile (its
    trapezoid where it has one: the board checks the peak speed of the profile it is sent) and each waited for
    (bounded by its duration); returns the next free command id."""
    session = robot.session
    cmd_id = first_cmd_id
    for segment in segments:
        if segment.ramp_ms is None:
            session.send_move(cmd_id, list(segment.pulses_us), segment.duration_ms)
        else:  # waited for, so it never blends: it starts and stops at rest
            session.send_move(cmd_id, list(segment.pulses_us), segment.duration_ms, ramp_ms=segment.ramp_ms)
        session.wait_done(cmd_id, timeout_s=segment.duration_ms / 1000 + LIFT_WAIT_MARGIN_S)
        cmd_id += 1
    return cmd_id
