"""The sequencer: a ``transitions`` state machine that streams pick-and-place segments to the board.

The model is :class:`Sequencer`; its state is a :data:`RunState`: a :class:`Phase` (bring-up, pause, stops) or, while
a run streams, the :class:`~hanoibot.motion.phases.MotionPhase` of the segment the arm is executing now. The table
:data:`~hanoibot.run.run_states.TRANSITIONS` is the whole behaviour, read top to bottom; the grip-check and
recovery counters it reads live in :class:`~hanoibot.run.pick_recovery.PickAndRecovery`. While streaming, the
host keeps ``queue_ahead`` segments (2–4) queued on the firmware and moves to the next phase when the board
reports the current segment's command id DONE, so the arm never waits for the host between segments.

Grip check: the ``grip`` phase closes the fingers and then holds still for the servo's settle time (see
:mod:`hanoibot.motion.timing`); the grip sensor is read when the board reports that hold DONE, so the fingers
have shut on the disk, with :func:`~hanoibot.run.grip_check.read_grip`: one ``held`` confirms the disk, a miss
takes several ``empty`` reads a PWM frame apart (one frame's mean can read a held disk as empty, and a retry
opens the fingers). With a grip sensor, nothing past the ``lift`` of a move is sent until the sensor confirms
the disk is held (the arm is lifting meanwhile, so it does not wait). A missed pick is retried
``grip_retries`` times with fresh command ids, then the run stops in ``fault`` naming the disk and the peg. A
fault latched by the board (DROP, COLLISION, ...) or any link error also ends in ``fault``; the reason is kept in
:attr:`Sequencer.reason`.

I/O lives in the driver methods (:meth:`Sequencer.connect`, :meth:`Sequencer.run`); the transition callbacks only
send the one-frame commands that belong to entering a state (HOLD, RESUME, ESTOP).
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from transitions import EventData, Machine, MachineError

from ..errors import BoardError, BoardReset, HanoiError
from ..link.codes import ErrorCode
from ..link.status import Fault
from ..motion.phases import MotionPhase
from ..motion.segment import Segment
from ..puzzle import Move, Rules, State, peg_letter
from .grip_check import pick_is_held
from .journal import Journal
from .pick_recovery import PickAndRecovery
from .pose_check import PoseCheck
from .run_states import FAULT_SOURCES, STATES, TRANSITIONS, Phase, RunState
from .segment_queue import DurationBetween, Item, SegmentsFor, SegmentSource
from .sequencer_link import Link

#: The states live in run_states; the sequencer's importers find the two they use here too.
__all__ = ["Link", "Phase", "RunState", "Sequencer"]


class Sequencer:
    """Drives one robot through a plan; the model of a ``transitions`` machine (its ``state`` is a :data:`RunState`).

    ``segments_for(state_before, move, from_pulses_us, previous)`` turns a move into its segments (one or more per
    phase; ``previous``, the move before when the arm runs straight on from it, may be blended into);
    ``home()`` makes the segment to the rest pose from wherever the arm is, sent when homing; ``limits`` (min,
    max, start pulses in µs per channel) is sent to the board on connecting.
    ``queue_ahead``: segments kept queued on the firmware (2–4). ``grip_retries``: extra tries of a missed pick.
    ``max_recoveries``: how often one move may go on after the board froze for host silence (HOST_LOST).
    ``pose_check`` (or None): compares the joints' measured pose with the commanded one after each pick and place.
    """

    state: RunState
    # Triggers, bound by the machine from TRANSITIONS (declared here for the type checker only); ``trigger(name)``
    # fires the trigger of that name, as the phase triggers are fired by the phase of the next segment.
    trigger: Callable[..., bool]
    open_link: Callable[..., bool]
    connected: Callable[..., bool]
    homed: Callable[..., bool]
    pick_missed: Callable[..., bool]
    finish: Callable[..., bool]
    pause: Callable[..., bool]
    unpause: Callable[..., bool]
    stop: Callable[..., bool]
    estop: Callable[..., bool]
    fault: Callable[..., bool]

    def __init__(
        self,
        link: Link,
        *,
        segments_for: SegmentsFor,
        home: Callable[[], Segment] | None = None,
        limits: tuple[Sequence[int], Sequence[int], Sequence[int], Sequence[int], int] | None = None,
        journal: Journal | None = None,
        queue_ahead: int = 3,
        grip_retries: int = 2,
        has_grip_sensor: bool = True,
        grip_channel: int = -1,
        first_cmd_id: int = 1,
        duration_between: DurationBetween | None = None,
        max_recoveries: int = 5,
        pose_check: PoseCheck | None = None,
    ) -> None:
        if not 2 <= queue_ahead <= 4:
            raise ValueError(f"queue_ahead {queue_ahead} is out of range: expected 2 to 4 segments")
        self.link = link
        self.source = SegmentSource(
            segments_for, journal=journal, first_cmd_id=first_cmd_id, duration_between=duration_between
        )
        self.source.serve = link.poll  # the link stays alive while a slow host finishes a plan
        self.home_segment = home
        self.limits = limits
        self.journal = journal
        self.queue_ahead = queue_ahead
        self.grip_retries = grip_retries
        self.has_grip_sensor = has_grip_sensor
        #: The gripper's channel (the robot config's; by default the last), for the grip reads.
        self.grip_channel = grip_channel
        self.reason = ""
        self.error: BaseException | None = None
        #: Where the disks are: a move's disk counts on its target peg once its release finished.
        self.board_state: State | None = None
        self._put_down_k = -1
        #: After a reset: the move whose disk had left its source peg but was not confirmed put down (it lies on
        #: either peg, fell, or is still held); ``board_state`` then counts it on its source peg.
        self.unsure_move: Move | None = None
        self.rules: Rules | None = None
        self.moves_done = 0
        self.moves_total = 0
        self.on_move_done: Callable[[int, Move, State], None] | None = None
        self.pick_recovery = PickAndRecovery(max_recoveries)
        self.pose_check = pose_check
        self._queued: deque[Item] = deque()
        self._paused_from: RunState | None = None
        self._pause_requested = False
        self._resume_at: tuple[int, MotionPhase] = (0, MotionPhase.APPROACH)
        self.machine = Machine(
            model=self,
            states=list(STATES),
            transitions=TRANSITIONS,
            initial=Phase.DISCONNECTED,
            queued=True,
            send_event=True,
            auto_transitions=False,
            on_exception="_on_exception",
        )

    # --- predicates ---------------------------------------------------------------------------------
    def is_retry_left(self, event: EventData) -> bool:
        """True while a missed pick may be tried again."""
        return self.pick_recovery.pick_tries <= self.grip_retries

    def is_plan_finished(self, event: EventData) -> bool:
        """True when every move of the plan is confirmed done."""
        return self.moves_done >= self.moves_total

    def is_resuming_mid_move(self, event: EventData) -> bool:
        """True when the first move of the loaded work starts half done (resume after a host crash)."""
        first_k, first_phase = self._resume_at
        return self.moves_done == first_k and first_phase is not MotionPhase.APPROACH

    def is_back_to_paused_phase(self, event: EventData) -> bool:
        """True for the unpause transition that returns to the phase the pause interrupted."""
        dest = event.transition.dest if event.transition else None
        return self._paused_from is not None and dest == self._paused_from.name

    def is_streaming(self) -> bool:
        """True while the run is in a state from which it goes on by itself."""
        return self.state is Phase.READY or isinstance(self.state, MotionPhase)

    @property
    def recoveries(self) -> int:
        """How often the run went on after the board froze for host silence."""
        return self.pick_recovery.recoveries

    # --- callbacks (one frame each, no waiting) -----------------------------------------------------
    def _remember_phase(self, event: EventData) -> None:
        self._paused_from = self.state
        self._pause_requested = False

    def _hold(self, event: EventData) -> None:
        self.link.hold()

    def _resume(self, event: EventData) -> None:
        self.link.resume()

    def _send_estop(self, event: EventData) -> None:
        self.link.estop()
        self.reason = str(event.kwargs.get("reason", "e-stop"))

    def _keep_reason(self, event: EventData) -> None:
        self.reason = str(event.kwargs.get("reason", "fault"))
        self.error = event.kwargs.get("error")

    def _keep_missed_pick_reason(self, event: EventData) -> None:
        k, move, _ = self.source.pick or (0, Move(0, 0, 0), None)
        self.reason = (
            f"missed pick: disk {move.disk} was not gripped on peg {peg_letter(move.src)} "
            f"after {self.pick_recovery.pick_tries} tries (move {k + 1})"
        )

    def _hold_quietly(self, event: EventData) -> None:
        """Freeze the arm after a fault; the link itself may be what failed, so errors are not raised."""
        with contextlib.suppress(HanoiError):
            self.link.hold()

    def _on_exception(self, event: EventData) -> None:
        error = event.error
        if isinstance(error, MachineError):
            raise error  # a trigger the table does not allow here is a bug in the caller, not a robot fault
        if self.state is Phase.FAULT or error is None:
            return
        if self.state not in FAULT_SOURCES:
            self.reason, self.error = f"{type(error).__name__}: {error}", error
            return
        self.fault(reason=str(error), error=error)

    # --- driver -------------------------------------------------------------------------------------
    def load(
        self,
        start: State,
        moves: Iterator[Move],
        total: int,
        *,
        first_k: int = 0,
        first_phase: MotionPhase = MotionPhase.APPROACH,
        pose_us: tuple[int, ...] | None = None,
        rules: Rules | None = None,
    ) -> None:
        """Set the work: the board is in ``start``; ``moves`` are moves ``first_k`` .. ``total - 1`` of the plan,
        checked against the plan's ``rules`` (default classic).

        ``first_phase`` resumes move ``first_k`` half done: its segments before that phase are not sent again.
        ``pose_us`` is where the arm is (default: the home pose once homed).
        """
        self._resume_at = (first_k, first_phase)
        self.board_state = start
        self._put_down_k = -1
        self.unsure_move = None
        self.moves_done = first_k
        self.moves_total = total
        self.rules = rules
        self.source.load(start, moves, first_k=first_k, first_phase=first_phase, rules=rules)
        self.source.pose_us = pose_us

    def request_pause(self) -> None:
        """Ask the running loop to pause at the next segment boundary (safe from a signal handler)."""
        self._pause_requested = True

    def connect(self, *, open_link: bool = True, configure: bool = True, home: bool = True) -> RunState:
        """Open the link, send limits and start pose, home the arm; returns READY or FAULT.

        ``open_link=False`` when the caller opened it already; ``configure`` and ``home`` are skipped when
        rejoining a board that is mid-move (same boot id after a host crash).
        """
        self.open_link()
        try:
            if open_link:
                self.link.open()
            # A board that ran other commands since it booted (an earlier `home` or `run`) takes only higher ids.
            self.source.next_cmd_id = max(self.source.next_cmd_id, self.link.last_sent_cmd + 1)
            if configure and self.limits is not None:
                self.link.configure(*self.limits)
            self.connected()
            if home and self.home_segment is not None:
                segment = self.home_segment()
                self.source.pose_us = tuple(segment.pulses_us)
                # The first move is planned, from the home pose, before the arm sets off: a slow host then does
                # not leave it standing at home. The next ones are planned while it gets there.
                self.source.plan_ahead()
                self.source.wait_for_first_plan()
                cmd_id = self.source.take_cmd_ids(1)
                self.link.send_move(cmd_id, segment.pulses_us, segment.duration_ms)
                self.link.wait_done(cmd_id)
            self.homed()
        except (HanoiError, OSError) as err:
            self._stop_for(err)  # an e-stop latched while the run came up ends it e-stopped, as in a move
        return self.state

    def run(self) -> RunState:
        """Stream every loaded move until done, paused, e-stopped or faulted; returns the phase it stopped in."""
        try:
            if self.state is Phase.READY:
                self._fill()
                self._enter_next_phase()
            while self.is_streaming():
                if self._pause_requested:
                    self.pause()
                    break
                self._advance()
        except (HanoiError, OSError) as err:
            if isinstance(err, BoardReset):
                self._book_finished_before(err)
            if self.state not in (Phase.FAULT, Phase.ESTOPPED):
                self._stop_for(err)
        return self.state

    def _book_finished_before(self, reset: BoardReset) -> None:
        """The board finished the queued segments before the first one the reset left unknown: a move whose
        release finished has its disk on the target peg (``board_state``), a move whose last segment finished is
        done (journaled). Nothing else is checked: the reset board is not asked."""
        unknown = set(reset.unknown_cmd_ids)
        while self._queued and self._queued[0].cmd_id not in unknown:
            head = self._queued.popleft()
            if head.last_of_move:
                self._finish_move(head)
            elif head.phase is MotionPhase.RETREAT or (head.phase is MotionPhase.RELEASE and self._ends_release(head)):
                self._put_down(head)
        first_unknown = self._queued[0] if self._queued else None
        if first_unknown is not None and (
            first_unknown.phase.carries_disk or first_unknown.phase is MotionPhase.RELEASE
        ):
            self.unsure_move = first_unknown.move

    def _stop_for(self, err: BaseException) -> None:
        """Go to ESTOPPED if the board latched an e-stop (a button, `hanoibot estop`), else to FAULT."""
        faults = self._board_faults()
        reason = f"{err} (board faults: {', '.join(faults)})" if faults else str(err)
        if Fault.POWER_LOST in faults:
            reason = (
                "servo power was lost (e-stop pressed or supply off): the board switched every servo output off. "
                "Look at the arm, release the e-stop, then run `hanoibot home --clear` and `hanoibot resume`"
            )
        if Fault.ESTOP in faults:
            self.estop(reason=f"e-stop latched on the board: {reason}")
        else:
            self.fault(reason=reason, error=err)

    def _advance(self) -> None:
        """Wait for the segment the arm is running, then move to the phase of the next one."""
        try:
            head = self._queued[0]
            self.link.wait_done(head.cmd_id)
            self._queued.popleft()
            self._segment_done(head)
            if self.is_streaming():
                if self._queued:
                    self._enter_next_phase()
                self._fill()
                self._enter_next_phase()
        except BoardError as err:
            if not self.pick_recovery.is_stale_refusal(err) and not self._recover_from_host_lost():
                raise

    def _past_refusals(self, call: Callable[[], Any]) -> Any:
        """``call()``, again while the link reports MOVEs the frozen board refused (they are sent again anyway)."""
        for _ in range(self.queue_ahead + 8):
            try:
                return call()
            except BoardError as err:
                if err.code != ErrorCode.FAULTED:
                    raise
        return call()

    def _segment_done(self, head: Item) -> None:
        """Book-keeping after the board finished ``head``: grip check after a grip, the journal after a move."""
        pick_recovery = self.pick_recovery
        piece = self._piece_ended(head)
        if piece and self.pose_check is not None:  # before the grip is judged: fingers off the disk miss it
            self.pose_check.check(self.link, head.pulses_us, piece)
        if (
            head.phase is MotionPhase.GRIP
            and pick_recovery.awaiting_grip
            and self._ends_grip(head)
            and not self._is_holding()
        ):
            pick_recovery.pick_missed()
            self.pick_missed()
            if self.state is MotionPhase.LIFT:
                self.source.redo_pick(self._queued[-1].pulses_us if self._queued else head.pulses_us)
                pick_recovery.retry_queued = True
            return
        if head.last_of_move:
            self._finish_move(head)
        elif head.phase is MotionPhase.RELEASE and self._ends_release(head):
            self._put_down(head)

    def _piece_ended(self, head: Item) -> str:
        """What ``head``, a segment just DONE, ends with the arm standing still at a pick or place pose ("the pick
        of disk 1 on peg A (move 1)"), or "" for a segment that ends neither."""
        move = head.move
        if head.phase is MotionPhase.GRIP and self._ends_grip(head):
            return f"the pick of disk {move.disk} on peg {peg_letter(move.src)} (move {head.k + 1})"
        if head.phase is MotionPhase.RELEASE and self._ends_release(head):
            return f"the place of disk {move.disk} on peg {peg_letter(move.dst)} (move {head.k + 1})"
        return ""

    def _ends_release(self, head: Item) -> bool:
        """True if ``head``, a release segment just DONE, is the last of its move's release phase: the fingers
        are open, the disk lies on its target peg."""
        following = self._queued[0] if self._queued else self.source.peek()
        return following is None or following.k != head.k or following.phase is not MotionPhase.RELEASE

    def _put_down(self, item: Item) -> None:
        """The disk of ``item``'s move lies on its target peg: ``board_state`` shows it there (once per move)."""
        if self._put_down_k != item.k:
            assert self.board_state is not None
            self.board_state = self.board_state.apply(item.move, self.rules)
            self._put_down_k = item.k

    def _recover_from_host_lost(self) -> bool:
        """After the board froze for host silence (HOST_LOST only): clear it and send again what it dropped.

        The arm held its pose, so the disks are where the host thinks; segments the board had queued but not
        finished get fresh command ids (journaled). At most ``max_recoveries`` times in one move.
        """
        status = self._past_refusals(self.link.status)
        pick_recovery = self.pick_recovery
        if status.faults != (Fault.HOST_LOST,) or not pick_recovery.may_recover():
            return False
        pick_recovery.recovering()
        self._past_refusals(self.link.clear)
        while self._queued and self._queued[0].cmd_id <= status.last_done_cmd:
            self._segment_done(self._queued.popleft())
            if self._queued and not pick_recovery.retry_queued and self.is_streaming():
                self._enter_next_phase()
        dropped = [] if pick_recovery.retry_queued else list(self._queued)
        self._queued.clear()
        if any(item.phase is MotionPhase.GRIP for item in dropped):
            pick_recovery.awaiting_grip = False  # the grip goes out again and is checked then
        pick_recovery.renumbered_from(self.source.next_cmd_id)
        self.source.requeue(dropped)
        if self.is_streaming():
            self._fill()
            self._enter_next_phase()
        return True

    def _enter_next_phase(self) -> None:
        """Enter the phase of the segment the arm runs now (a phase may span several segments)."""
        if not self._queued:
            self.finish()
        elif self._queued[0].phase is not self.state:
            self.trigger(self._queued[0].phase.value)

    def _ends_grip(self, head: Item) -> bool:
        """True if ``head``, a grip segment just DONE, is the last of its move's grip phase (the settle hold).

        The fingers' closing move is DONE when their *command* arrived; the servo trails it, so the sensor is
        read only after the hold that follows it.
        """
        following = self._queued[0] if self._queued else self.source.peek()
        return following is None or following.k != head.k or following.phase is not MotionPhase.GRIP

    def _is_holding(self) -> bool:
        """Ask the grip sensor, once the grip phase is DONE, whether a disk is held (:func:`pick_is_held`)."""
        held = pick_is_held(self.link, grip_channel=self.grip_channel)
        if held:
            self.pick_recovery.grip_held()
        return held

    def _finish_move(self, item: Item) -> None:
        self._put_down(item)
        self.moves_done = item.k + 1
        self.pick_recovery.move_done()
        if self.journal is not None:
            self.journal.record_done(item.k)
        if self.on_move_done is not None:
            assert self.board_state is not None
            self.on_move_done(item.k, item.move, self.board_state)

    def _fill(self) -> None:
        """Send segments until ``queue_ahead`` are queued (nothing past the lift of an unconfirmed grip)."""
        while len(self._queued) < self.queue_ahead:
            item = self.source.peek()
            if item is None or (
                self.pick_recovery.awaiting_grip and item.phase not in (MotionPhase.GRIP, MotionPhase.LIFT)
            ):
                return
            try:
                self._send(item)
            except BoardError as err:
                if self.pick_recovery.is_stale_refusal(err):
                    continue  # raised before this MOVE went out: send it now
                raise
            self.source.pop()
            self._queued.append(item)
            if item.phase is MotionPhase.GRIP and self.has_grip_sensor:
                self.pick_recovery.grip_sent()

    def _send(self, item: Item) -> None:
        """Send ``item`` as a MOVE: plain (minimum-jerk) or with its trapezoidal profile and blend."""
        if item.ramp_ms is None:
            self.link.send_move(item.cmd_id, item.pulses_us, item.duration_ms)
        else:
            self.link.send_move(
                item.cmd_id, item.pulses_us, item.duration_ms, ramp_ms=item.ramp_ms, blend_ms=item.blend_ms
            )

    def _board_faults(self) -> tuple[str, ...]:
        """The faults the board latched, asked best-effort (the link may be what failed)."""
        try:
            return self.link.status().faults
        except HanoiError:
            return ()
