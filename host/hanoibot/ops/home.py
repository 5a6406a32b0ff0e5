"""Going home from anywhere: after a stop in mid-move, lift clear, put a held disk down on a legal peg, then home.

:func:`home` (``hanoibot home`` and the console's Home) takes over the board
(:func:`~hanoibot.run.release.release_board`), and then:

1. works out where the disks are: the run's journal (the moves it confirmed and the move that was open) and the
   board (which segment of that move it finished, and the grip sensor, read as
   :func:`~hanoibot.run.grip_check.read_grip` does: ``empty`` only when several reads a PWM frame apart agree) say
   which disk, if any, is in the gripper and where the others stand (:func:`disks_at_stop`);
2. closes the fingers firmly on a held disk and lifts straight up until it clears every peg and stack;
3. carries the disk to a legal peg (the one it came from when it may go back, else any peg the run's rules allow
   it to move to, :func:`peg_for`), lowers it onto the stack and lets go;
4. writes where the disks now are into the journal (so ``resume`` replans from there) and only then travels home.

When the disk's identity or a legal peg is not known, the operator is asked (``ask``, one call per question, so a
front end can serve the link while a person thinks), or nothing moves, no latch is released, and a
:class:`~hanoibot.errors.RunFault` says what to do: a held disk is never let go of anywhere else.
:func:`release` switches the outputs off instead (holding a board that still moves first).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..errors import BoardError, RunFault
from ..link.status import Grip, Mode
from ..motion.phases import MotionPhase
from ..motion.segments import put_down_segments, regrip_segments
from ..planner.base import Plan
from ..puzzle import Rules, State, peg_index, peg_letter
from ..run.held_pose import configure_where_held, holds_pose
from ..run.journal import Journal, JournalLog, load_journal
from ..run.recovery import check_journal
from ..run.release import (
    disk_in_gripper,
    grip_verdict,
    lift_clear,
    play_segments,
    release_board,
    settled_status,
)
from ..run.robot import Robot
from ..run.sequencer import Phase

T = TypeVar("T")

#: Asks the operator a question and returns the answer line (None when nobody can answer).
Ask = Callable[[str], str | None]

#: Why no journal names a held disk when ``home`` was given none.
NO_JOURNAL = "no journal says which"
#: Phases of a move in which, at a stop, the disk is still on its source peg (when the fingers hold nothing).
ON_SOURCE = (MotionPhase.APPROACH, MotionPhase.DESCEND, MotionPhase.GRIP, MotionPhase.LIFT)


@dataclass(frozen=True)
class DisksAtStop:
    """Where the disks are after a stop: ``state`` counts a held disk on the peg it was taken from, ``source``.

    ``held`` is the disk between the fingers (None when they hold nothing).
    """

    state: State
    held: int | None = None
    source: int | None = None

    def put_down_on(self, peg: int) -> DisksAtStop:
        """The disks once the held one is put down on ``peg`` (0 = A), the fingers empty."""
        if self.held is None or self.source is None or peg == self.source:
            return DisksAtStop(self.state)
        stacks = [list(stack) for stack in self.state.stacks]
        stacks[peg].append(stacks[self.source].pop())
        return DisksAtStop(State(stacks))


def disks_at_stop(log: JournalLog, plan: Plan, last_done_cmd: int, grip: str) -> DisksAtStop:
    """Where the disks are, by the journal and the board: ``last_done_cmd`` is the last command id the board
    finished, ``grip`` its grip-sensor word (``held``, ``empty``; ``none``/``unknown`` without a verdict).

    RunFault, naming what to do, when they cannot tell: a held disk with no open move, a disk neither in the
    gripper nor on a peg, or (without a grip sensor) a stop while the fingers were closing or opening.
    """
    state = plan.state_at(log.moves_done) if log.board is None else State.parse(log.board, plan.rules.pegs)
    entry = log.open_move
    if entry is None:
        if grip == Grip.HELD:
            raise RunFault(
                "the gripper holds a disk but the journal has no move under way: tell which disk it is (run "
                "hanoibot home --clear at a terminal) or take it out by hand, then run hanoibot home --clear"
            )
        return DisksAtStop(state)
    disk, src, _ = entry.move
    phase = entry.phase_after(last_done_cmd)
    if grip == Grip.HELD and phase is not MotionPhase.RETREAT:
        return DisksAtStop(state, disk, src)
    if phase is None or phase is MotionPhase.RETREAT:
        return DisksAtStop(state.apply(entry.move, plan.rules))  # released: the move is made
    if grip == Grip.EMPTY:
        if phase in ON_SOURCE:
            return DisksAtStop(state)  # not picked yet (or the pick missed)
        if phase is MotionPhase.RELEASE:
            return DisksAtStop(state.apply(entry.move, plan.rules))
        raise RunFault(
            f"disk {disk} is neither in the gripper nor where the journal expects it (stopped in {phase}): "
            "put it on a peg by hand, run hanoibot home --clear, then resume with --board STATE"
        )
    if phase in (MotionPhase.APPROACH, MotionPhase.DESCEND):
        return DisksAtStop(state)
    if phase.carries_disk:
        return DisksAtStop(state, disk, src)
    raise RunFault(
        f"without a grip sensor it is unknown whether disk {disk} is in the gripper (stopped in {phase}): "
        "run hanoibot resume --journal FILE, which finishes the move"
    )


def peg_for(at_stop: DisksAtStop, rules: Rules) -> int | None:
    """The peg (0 = A) to put the held disk on: back on its source when it may lie there, else the first peg the
    rules let it move to from its source; None when there is none."""
    disk, source = at_stop.held, at_stop.source
    if disk is None or source is None:
        return None
    state = at_stop.state
    below = state.stacks[source][-2] if len(state.stacks[source]) > 1 else None
    if rules.may_land(disk, below, state.n_disks):
        return source
    for move in state.legal_moves(rules):
        if move.disk == disk and move.src == source:
            return move.dst
    return None


@dataclass(frozen=True)
class HomeResult:
    """What :func:`home` did: ``put_down`` says where a held disk went ("" if none), ``failed`` why the arm did
    not reach its start pose (None when it is home), ``journal`` the journal it recorded the board in (or None)."""

    put_down: str = ""
    failed: str | None = None
    journal: Path | None = None

    @property
    def is_home(self) -> bool:
        """True when the arm reached its start pose."""
        return self.failed is None


def home(robot: Robot, *, clear: bool, journal_path: str | Path | None = None, ask: Ask | None = None) -> HomeResult:
    """Bring the arm home from wherever it stopped: :func:`put_away`, then :func:`home_arm`.

    RunFault (nothing more moves) when a held disk cannot be put down safely or a latch needs ``clear``. The board
    stopping the arm on the way (an e-stop, a fault it latched) is a failure (``failed``), as in :func:`home_arm`.
    """
    try:
        said, next_cmd_id, is_recorded = put_away(robot, clear=clear, journal_path=journal_path, ask=ask)
    except BoardError as err:
        return HomeResult(failed=f"{err}; look at the arm, then release it with: hanoibot home --clear")
    failed = home_arm(robot, next_cmd_id)
    recorded = Path(journal_path) if journal_path is not None and said and is_recorded else None
    return HomeResult(said, failed, recorded)


def release(robot: Robot) -> str:
    """Switch every servo output off (the arm goes limp); a board that still moves (motion an earlier command
    left queued) is held first, as the firmware asks. Returns what was done, in words."""
    status = robot.session.status()
    held = ""
    if status.mode is Mode.MOVING:
        robot.session.hold()
        held = " (the arm was moving: held first)"
    robot.session.release()
    return f"every servo output is off on {robot.port_url}{held} (the arm is limp)"


def put_away(
    robot: Robot, *, clear: bool, journal_path: str | Path | None = None, ask: Ask | None = None
) -> tuple[str, int, bool]:
    """Take over the board, lift clear and put a held disk down; returns what was done with a held disk ("" if
    none), the next free command id and whether the disks' places were written to the journal.

    ``journal_path``: the stopped run's journal, which says which disk is held and where the others are; the
    state the disks are left in is appended to it. RunFault (nothing more moves) when a held disk cannot be put
    down safely and ``ask`` cannot tell where, or when a latched fault needs ``clear``.
    """
    session = robot.session
    put = _take_over_held_pose(robot, journal_path, ask)
    if put is not None:
        return put
    status = session.status()
    if status.mode == Mode.UNCONFIGURED and disk_in_gripper(robot, grip_verdict(robot)):  # drives it closed
        raise RunFault(
            "the board was reset with a disk in the gripper (grip sensor): the arm went to its start pose with the "
            "fingers shut on it; take the disk out by hand and put it on a peg, then run hanoibot home"
        )
    log, plan = _journal_of(robot, journal_path)
    unnamed = NO_JOURNAL if journal_path is None else f"the journal {str(journal_path)!r} is of an earlier boot"
    # A held disk nobody can name: ask (or stop) before any latch is released or anything moves.
    asked = _ask_disks(robot, ask, unnamed) if log is None and status.grip is Grip.HELD else None
    done = ""
    with contextlib.ExitStack() as stack:
        # Held (locked) from before anything moves until the board is recorded: no other process writes it meanwhile.
        journal = stack.enter_context(Journal.open_append(journal_path)) if log and journal_path else None
        release_board(session, clear=clear)
        put = _take_over_held_pose(robot, journal_path, ask)  # a board that booted e-stopped, released just now
        if put is not None:
            return put
        if session.status().mode == Mode.UNCONFIGURED:  # every output off: a reset, or a lost servo rail
            return _limp_arm(robot, journal_path), session.last_sent_cmd + 1, False
        last_done_cmd = int(session.status().last_done_cmd)  # the run's own progress, before anything else runs
        # The grip verdict of fingers at rest: fingers that were closing at the stop may yet shut on a disk.
        grip = settled_status(robot, first_cmd_id=(log.last_cmd_id if log is not None else 0) + 1).grip
        at_stop = asked or _disks(robot, log, plan, last_done_cmd, str(grip), ask, unnamed)
        # release_board skipped ids past the board's; the journal's too, should it be further ahead than that.
        next_id = max(session.last_sent_cmd, log.last_cmd_id if log is not None else 0) + 1
        if at_stop is not None and at_stop.held is not None:
            peg = peg_for(at_stop, plan.rules if plan is not None else Rules(at_stop.state.pegs))
            if peg is None:
                peg = _ask_peg(at_stop, ask)
            next_id = put_down_held(robot, at_stop, peg, next_id)
            where = "back on" if peg == at_stop.source else "on"
            done = f"put disk {at_stop.held} {where} peg {peg_letter(peg)}"
            at_stop = at_stop.put_down_on(peg)
        else:
            lift_clear(robot, first_cmd_id=next_id)
        if journal is not None and at_stop is not None:
            journal.record_board(at_stop.state.to_string())
    return done, next_id, journal is not None and at_stop is not None


def _take_over_held_pose(
    robot: Robot, journal_path: str | Path | None, ask: Ask | None
) -> tuple[str, int, bool] | None:
    """On a board that booted while its servos held the arm (:func:`~hanoibot.run.held_pose.holds_pose`): put down
    a disk the journal's move under way left in the fingers and return what :func:`put_away` returns; else take the
    board over where the arm stands (nothing moves) and return None, so that the arm is lifted clear and a disk
    nobody can name is asked about as on a board that kept running. None at once for any other board."""
    if not holds_pose(robot.session.status()):
        return None
    if journal_path is not None:
        put = _put_away_held_through_reset(robot, journal_path, ask)
        if put is not None:
            return put
    if robot.session.status().mode == Mode.UNCONFIGURED:
        configure_where_held(robot)
    return None


def _put_away_held_through_reset(
    robot: Robot, journal_path: str | Path, ask: Ask | None
) -> tuple[str, int, bool] | None:
    """After a reset whose servos held the arm with the disk of the journal's move under way still in the gripper
    (:func:`~hanoibot.ops.held_reset.disk_held_through_reset`: the measured pose and the gripper's load say so),
    put it down as after a stop (back on its peg when it may lie there) and record where the disks are; returns
    what :func:`put_away` returns, or None when there was no such disk (the board may be configured by then)."""
    from .held_reset import disk_held_through_reset

    log = load_journal(journal_path)
    plan = check_journal(log, robot.config.config_hash, str(journal_path))
    with Journal.open_append(journal_path) as journal:
        held = disk_held_through_reset(robot, log, plan, first_cmd_id=log.last_cmd_id + 1)
        if held is None:
            return None
        at_stop = DisksAtStop(*held)
        peg = peg_for(at_stop, plan.rules)
        if peg is None:
            peg = _ask_peg(at_stop, ask)
        next_id = put_down_held(robot, at_stop, peg, robot.session.last_sent_cmd + 1)
        journal.record_board(at_stop.put_down_on(peg).state.to_string())
    where = "back on" if peg == at_stop.source else "on"
    said = f"put disk {at_stop.held} {where} peg {peg_letter(peg)} (the servos held it through the restart)"
    return said, next_id, True


def _limp_arm(robot: Robot, journal_path: str | Path | None) -> str:
    """What home says of a board whose outputs are all off once its latch is cleared (a reset, or a lost servo
    rail, releases them): the arm went limp where it stood, so a disk in its gripper fell, and nothing is left to
    put down. With
    a grip sensor the fingers are first closed where the arm comes to (:func:`grip_verdict`): RunFault if a disk
    is still between them. Nothing is written to the journal: where a fallen disk lies only the operator knows."""
    if disk_in_gripper(robot, grip_verdict(robot)):
        raise RunFault(
            "the servos were off and the gripper still holds a disk (grip sensor): the arm went to its start pose "
            "with the fingers shut on it; take it out by hand, put it on a peg, then run hanoibot home"
        )
    journal = f" --journal {journal_path}" if journal_path is not None else ""
    return (
        "every servo output was off (the board was reset or lost its servo supply), so the arm went limp and a disk "
        "in the gripper fell; "
        f"look where the disks are, then go on with: hanoibot resume{journal} --board STATE"
    )


def home_arm(robot: Robot, first_cmd_id: int = 1) -> str | None:
    """Configure the board if it was reset and move the arm to its start pose, with command ids from
    ``first_cmd_id`` on; returns why that failed, or None when the arm is home."""
    sequencer = robot.sequencer(first_cmd_id=max(first_cmd_id, robot.session.last_sent_cmd + 1))
    configure = robot.session.status().mode == Mode.UNCONFIGURED
    if sequencer.connect(open_link=False, configure=configure) is not Phase.READY:
        return sequencer.reason or "the board did not reach its start pose"
    return None


def put_down_held(robot: Robot, at_stop: DisksAtStop, peg: int, first_cmd_id: int) -> int:
    """Regrip the held disk, lift it clear, put it down on ``peg``; returns the next free command id."""
    disk, source = at_stop.held, at_stop.source
    assert disk is not None and source is not None
    next_id = play_segments(robot, regrip_segments(robot.config, disk, _pose_us(robot)), first_cmd_id)
    lift_clear(robot, first_cmd_id=next_id)
    segments = put_down_segments(robot.config, at_stop.state, disk, source, peg, from_pulses_us=_pose_us(robot))
    return play_segments(robot, segments, robot.session.last_sent_cmd + 1)


def _journal_of(robot: Robot, path: str | Path | None) -> tuple[JournalLog | None, Plan | None]:
    """The journal at ``path`` and its plan, when it was written on this boot of the board (else None, None)."""
    if path is None:
        return None, None
    log = load_journal(path)
    plan = check_journal(log, robot.config.config_hash, str(path))
    if log.boot_id != robot.boot_id:
        return None, None  # the board was reset since: its command ids say nothing about that run
    return log, plan


def _disks(
    robot: Robot,
    log: JournalLog | None,
    plan: Plan | None,
    last_done_cmd: int,
    grip: str,
    ask: Ask | None,
    unnamed: str,
) -> DisksAtStop | None:
    """Where the disks are (None: unknown, and the fingers hold nothing); asks or raises for a held disk.

    ``unnamed`` says why no journal can name a held disk (for the message)."""
    if log is not None and plan is not None:
        try:
            return disks_at_stop(log, plan, last_done_cmd, grip)
        except RunFault:
            if grip != Grip.HELD or ask is None:
                raise
    elif grip != Grip.HELD:
        return None
    return _ask_disks(robot, ask, unnamed)


def _ask_disks(robot: Robot, ask: Ask | None, unnamed: str) -> DisksAtStop:
    """Ask which disk is held and where the others are, again after an answer that does not parse; RunFault when
    nobody can answer (no terminal, the end of input, an empty answer)."""
    what = (
        f"the gripper holds a disk and {unnamed}: run hanoibot home --clear --journal FILE with the run's "
        "journal, or at a terminal to be asked which disk it is; or take the disk out by hand"
    )
    question = (
        "The gripper holds a disk. Type the board with that disk on top of the peg it came from "
        "(e.g. ACB or A:3,1/B:2/C:) and the held disk's number, e.g. 'AAB 1': "
    )
    pegs = len(robot.config.board.pegs)
    return _ask_until_parsed(ask, question, lambda answer: _held_disk_from(answer, pegs), what)


def _held_disk_from(answer: str, pegs: int) -> DisksAtStop:
    """The board and held disk of an answer such as ``AAB 1`` on ``pegs`` pegs; ValueError saying why not."""
    try:
        text, disk_text = answer.split()
        state = State.parse(text, pegs)
        disk = int(disk_text)
        source = state.peg_of(disk)
    except (ValueError, TypeError) as err:
        raise ValueError(f"{answer!r} is not a board and a disk number ({err})") from None
    if state.top(source) != disk:
        raise ValueError(f"disk {disk} is not on top of its peg in {text}")
    return DisksAtStop(state, disk, source)


def _ask_peg(at_stop: DisksAtStop, ask: Ask | None) -> int:
    """Ask which peg to put the held disk on when the rules allow none, again after an answer that names no peg;
    RunFault when nobody answers."""
    what = (
        f"disk {at_stop.held} may not go back on its peg nor onto any other under the run's rules: the arm holds "
        "it; take it out by hand and put it where it may lie, then run hanoibot home --clear"
    )
    pegs = at_stop.state.pegs

    def peg_from(answer: str) -> int:
        try:
            peg = peg_index(answer.strip().upper())
        except ValueError:
            peg = -1
        if not 0 <= peg < pegs:
            raise ValueError(f"peg {answer.strip()!r} is not one of A to {peg_letter(pegs - 1)}")
        return peg

    question = f"No legal peg for disk {at_stop.held}. Which peg shall it go on (A, B, ...)? "
    return _ask_until_parsed(ask, question, peg_from, what)


def _ask_until_parsed(ask: Ask | None, question: str, parse: Callable[[str], T], what: str) -> T:
    """Ask ``question`` until ``parse`` takes the answer (an answer it refuses with ValueError is shown with why,
    and the question asked again); RunFault(``what``) when nobody answers or the answer is empty."""
    asked = question
    while True:
        answer = ask(asked) if ask is not None else None
        if not answer or not answer.strip():
            raise RunFault(what)
        try:
            return parse(answer.strip())
        except ValueError as err:
            asked = f"{err}: try again. {question}"


def _pose_us(robot: Robot) -> tuple[int, ...]:
    """Every channel's pulse (µs) now."""
    return tuple(int(p) for p in robot.session.status().pulses_us)
