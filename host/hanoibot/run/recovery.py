"""Where a journaled run goes on after the host stopped: same board boot, or a board that was reset.

Same boot: the board is asked which command ids finished (motion still queued on it is flushed first), finished
moves are journaled done, and the run continues at the phase of the first unfinished segment (a pick that the grip
sensor says missed, every one of several reads a PWM frame apart, is made again from its approach). Board reset: the
gripper is driven closed and the grip sensor read first (an undriven sensor says nothing; a disk still in the
gripper stays held and must be taken out by hand: homing a reset arm with the fingers open would drop it), then
the rest is replanned from the board state the operator confirmed. Nothing is ever replayed blindly.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import JournalError, RunFault
from ..link.session import Session
from ..link.status import Fault, Grip, Mode, Status
from ..motion.phases import MotionPhase
from ..planner import make_plan
from ..planner.base import Plan
from ..planner.colour_run import ColourRunPlan
from ..puzzle import State, peg_letter
from .grip_check import read_grip
from .journal import Journal, JournalLog
from .release import SILENCE_FAULTS, disk_in_gripper, grip_verdict, release_board
from .robot import Robot
from .runner import MoveListener, Run, plan_from_spec

#: Faults after which the arm still holds its pose and the disks are where the journal says.
HOLDING_FAULTS = (Fault.HOST_LOST, Fault.ESTOP)
#: Of those, the ones an operator set on purpose: ``resume`` releases them only when told to (``--clear``).
OPERATOR_FAULTS = (Fault.ESTOP,)


@dataclass
class ResumePoint:
    """Where a journaled run goes on: ``plan`` from move ``first_k`` at ``first_phase``, the board in ``board_state``.

    ``same_boot``: the board was not reset, so the arm is where the journal left it (no homing, no CONFIG).
    """

    plan: Plan
    first_k: int
    first_phase: MotionPhase
    board_state: State
    first_cmd_id: int
    same_boot: bool
    pose_us: tuple[int, ...] | None = None

    def run(self, robot: Robot, journal: Journal, on_move_done: MoveListener | None = None) -> Run:
        """The run that goes on from this point on ``robot``, writing ``journal``."""
        return Run(
            robot,
            self.plan,
            journal=journal,
            first_k=self.first_k,
            first_phase=self.first_phase,
            board_state=self.board_state,
            first_cmd_id=self.first_cmd_id,
            pose_us=self.pose_us,
            on_move_done=on_move_done,
        )

    def start_options(self) -> dict[str, bool]:
        """How that run starts: homing, CONFIG and recording the plan only after the board was reset."""
        fresh = not self.same_boot
        return {"home": fresh, "configure": fresh, "record_plan": fresh}


def check_journal(log: JournalLog, config_hash: str, path: str) -> Plan:
    """The plan a journal recorded, after checking it was written for the robot config with ``config_hash``."""
    if log.config_hash != config_hash:
        raise JournalError(
            f"journal {path!r} was written for robot config {log.config_hash[:12]} but this config is "
            f"{config_hash[:12]}: resume with the robot config of the run (--config)"
        )
    return plan_from_spec(log.plan_spec, source=f"journal {path!r}")


def resume_same_boot(
    log: JournalLog, plan: Plan, robot: Robot, journal: Journal, *, clear: bool = False
) -> ResumePoint:
    """Rejoin a board that kept running: ask which command ids finished, and go on from there.

    Motion still queued on the board is flushed first (ESTOP holds the pose and drops the queue, CLEAR releases
    the latch), so nothing runs twice: what did not finish is sent again with fresh command ids. An e-stop latched
    before (the operator's, or the board's button) is released only with ``clear``: without it a RunFault names
    the command to run, and nothing moves.
    """
    session = robot.session
    status = session.status()
    entry = log.open_move
    if entry is not None and int(status.last_queued_cmd) > log.last_cmd_id:
        raise RunFault(
            f"the arm moved after the run stopped (hanoibot home or jog), so the journal cannot say where disk "
            f"{entry.move.disk} is: resume with --board STATE (last known: {last_known_board(log, plan)})"
        )
    set_on_purpose = [fault for fault in status.faults if fault in OPERATOR_FAULTS]
    if set_on_purpose and not clear:
        raise RunFault(
            f"the board has latched {', '.join(set_on_purpose)}: nothing moved; look at the arm, then release it "
            f"and go on with: hanoibot resume --journal {journal.path} --clear (or put the arm away with: "
            f"hanoibot home --clear --journal {journal.path})"
        )
    if int(status.last_queued_cmd) > int(status.last_done_cmd) and status.mode in (Mode.MOVING, Mode.HELD):
        session.estop()
        status = session.status()
    faults = status.faults
    lost = [f for f in faults if f not in HOLDING_FAULTS]
    if lost:
        raise RunFault(
            f"the board latched {', '.join(lost)}: the disks may not be where the journal says; check the "
            "board and resume with --board STATE"
        )
    if faults:
        session.clear()
    session.resume()  # a run stopped while paused left the board HELD; RESUME is harmless otherwise
    last_done = int(status.last_done_cmd)
    first_cmd_id = max(log.last_cmd_id, int(status.last_queued_cmd), last_done) + 1
    k, state, phase = log.moves_done, plan.state_at(log.moves_done), MotionPhase.APPROACH
    while k in log.moves:
        entry = log.moves[k]
        reached = entry.phase_after(last_done)
        if reached is not None:
            phase = reached
            break
        if not entry.done:
            journal.record_done(k)
        state = state.apply(entry.move, plan.rules)
        k += 1
    if (
        phase.carries_disk
        and robot.config.gripper.grip_sensor
        and _grip_after_hold(session, status, robot.config.gripper_channel) == Grip.EMPTY
    ):
        if phase in (MotionPhase.LIFT, MotionPhase.TRAVEL):
            phase = MotionPhase.APPROACH  # the pick missed and the disk is still on its peg: pick it again
        else:
            raise RunFault(
                f"disk {log.moves[k].move.disk} is no longer in the gripper: check the board, resume with --board"
            )
    pose_us = tuple(int(p) for p in status.pulses_us)
    return ResumePoint(plan, k, phase, state, first_cmd_id, same_boot=True, pose_us=pose_us)


def _grip_after_hold(session: Session, status: Status, grip_channel: int) -> Grip:
    """The grip verdict (held, empty, unknown, none) to resume on, as the sequencer reads it: ``status`` and more
    reads a PWM frame apart (:func:`~.grip_check.read_grip`): ``empty`` only when every read says so, since on
    ``empty`` a resumed lift becomes an approach, whose first MOVE opens the fingers low on the peg.

    Only called when the journal puts the run past its grip phase, and that phase ends with a settle hold (see
    :mod:`hanoibot.motion.timing`), so ``status`` reports that hold DONE: the gripper servo, which trails its
    command, has had the settle time to close. A run stopped before the hold's DONE resumes at ``grip`` instead,
    which closes and holds again and is checked by the sequencer.
    """
    return read_grip(session, status, grip_channel=grip_channel).grip


def recorded_board(log: JournalLog) -> State | None:
    """Where ``hanoibot home`` put the disks after the run stopped, if it recorded that in the journal."""
    return State.parse(log.board, int(log.plan_spec["pegs"])) if log.board is not None else None


def last_known_board(log: JournalLog, plan: Plan) -> str:
    """Where the journal last saw the disks (the state after its confirmed moves, or where ``home`` put them),
    and the disk that was moving."""
    recorded = recorded_board(log)
    text = (recorded or plan.state_at(log.moves_done)).to_string()
    entry = log.open_move
    if entry is None:
        return text
    disk, src, dst = entry.move
    return f"{text}; disk {disk} was on its way from {peg_letter(src)} to {peg_letter(dst)}"


def resume_after_reset(
    log: JournalLog, plan: Plan, robot: Robot, board: State, *, clear: bool = False, journal: str = "FILE"
) -> ResumePoint:
    """The board was reset, or the operator says where the disks are: replan from the confirmed ``board`` to the
    journal's goal (after homing).

    A latched fault (a lost servo rail: every output went off and a held disk fell) is released only with
    ``clear``; without it a RunFault names the command (``journal``: the journal's path), and nothing moves.

    The reset left the gripper servo limp, and its sensor reads no current, disk or not: the gripper is first
    driven CLOSED (:func:`~.release.grip_verdict`: the arm goes to its start pose with the fingers shut), never
    opened where the arm is. RunFault when the grip sensor then reads a disk still in the gripper: it stays held
    there until the operator takes it out and puts it on a peg.
    """
    status = grip_verdict(robot, first_cmd_id=log.last_cmd_id + 1)  # only asks a board with a latched fault
    latched = [fault for fault in status.faults if fault not in SILENCE_FAULTS]
    if latched and not clear:
        raise RunFault(
            f"the board has latched {', '.join(latched)}: nothing moved; look at the arm and where the disks are, "
            f"then go on with: hanoibot resume --journal {journal} --board STATE --clear"
        )
    if latched:
        release_board(robot.session, clear=True)
        status = grip_verdict(robot, first_cmd_id=log.last_cmd_id + 1)
    if disk_in_gripper(robot, status):
        entry = log.open_move
        which = f"disk {entry.move.disk}, by the journal" if entry is not None else "a disk"
        raise RunFault(
            f"the gripper still holds {which} (grip sensor): the arm went to its start pose with the fingers shut "
            "on it; take it out by hand, put it on a peg where it may lie, then run hanoibot resume again with "
            "--board STATE saying where the disks are"
        )
    if (board.n_disks, board.pegs) != (plan.start.n_disks, plan.start.pegs):
        raise JournalError(
            f"board {board} has {board.n_disks} disks on {board.pegs} pegs but the journal's run has "
            f"{plan.start.n_disks} on {plan.start.pegs}: confirm the state of this run's board"
        )
    first_cmd_id = max(log.last_cmd_id, int(status.last_queued_cmd)) + 1
    if board == plan.goal:  # the last move was made but not confirmed: only homing is left
        return ResumePoint(plan, plan.length, MotionPhase.APPROACH, board, first_cmd_id, same_boot=False)
    if isinstance(plan, ColourRunPlan):
        replanned: Plan = plan.replan_from(board)
    else:
        replanned = make_plan(board.n_disks, pegs=board.pegs, rules=plan.rules, start=board, goal=plan.goal)
    return ResumePoint(replanned, 0, MotionPhase.APPROACH, board, first_cmd_id, same_boot=False)
