"""Following a run: start it, pause, continue, stop, e-stop it while it waits, and end its journal, as events.

:class:`Follow` wraps a run made by :func:`hanoibot.ops.start.open_run` or :meth:`hanoibot.ops.resume.Resumption.run`.
Its listener gets one :class:`RunEvent` per move done, pause, continue and end, each with the words to show; the
front ends (``hanoibot run``/``resume``, the console) render those events and pass the operator's wishes on, and
never touch the run's sequencer or journal. How a run ended is an :class:`~hanoibot.run.outcome.Outcome`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from ..errors import HanoiError
from ..motion.phases import MotionPhase
from ..planner.colour_run import ColourRunPlan
from ..puzzle import Move, State
from ..puzzle.colours import colour_words
from ..run.outcome import Outcome
from ..run.runner import Run, RunReport

__all__ = ["Follow", "Kind", "Outcome", "Run", "RunEvent"]
from ..words import count_of

#: The motion phases in which the moved disk is between the fingers.
HOLDING_PHASES = (MotionPhase.LIFT, MotionPhase.TRAVEL, MotionPhase.LOWER)


class Kind(Enum):
    """What happened to a followed run."""

    MOVE_DONE = "move_done"
    PAUSED = "paused"
    CONTINUED = "continued"
    FINISHED = "finished"
    STOPPED = "stopped"
    ESTOPPED = "estopped"
    FAULT = "fault"


#: The event that says how a run stands once it stopped streaming.
KIND_OF: dict[Outcome, Kind] = {
    Outcome.DONE: Kind.FINISHED,
    Outcome.PAUSED: Kind.PAUSED,
    Outcome.STOPPED: Kind.STOPPED,
    Outcome.ESTOPPED: Kind.ESTOPPED,
    Outcome.FAULT: Kind.FAULT,
}


@dataclass(frozen=True)
class RunEvent:
    """One thing that happened to a followed run, with ``words`` to show (one line).

    ``moves_done`` of ``moves_total`` so far; ``move`` and ``board`` (the board after it) for a move done;
    ``outcome`` for a pause and an end; ``reason`` why a run stopped by a fault or an e-stop ("" otherwise).
    """

    kind: Kind
    moves_done: int
    moves_total: int
    words: str
    move: Move | None = None
    board: State | None = None
    outcome: Outcome | None = None
    reason: str = ""

    @property
    def index(self) -> int:
        """The plan index of the move a MOVE_DONE event reports (0 for the first move)."""
        return self.moves_done - 1

    @property
    def where(self) -> str:
        """``after 3 of 7 moves``."""
        return f"after {self.moves_done} of {count_of(self.moves_total, 'move')}"


Listener = Callable[[RunEvent], object]


def _ignore(event: RunEvent) -> None:
    """A listener that shows nothing."""


class Follow:
    """``job`` followed to its end: ``on_event`` gets every :class:`RunEvent` (in the thread that drives the run).

    ``now_s`` (wall time, s) times the run for :meth:`eta_s`; time spent paused counts for nothing.
    """

    def __init__(self, job: Run, on_event: Listener = _ignore, *, now_s: Callable[[], float] = time.monotonic) -> None:
        self.job = job
        self._on_event = on_event
        self._now_s = now_s
        self._started_s = now_s()
        self._paused_s = 0.0
        self._paused_since_s: float | None = None
        self.last: RunEvent | None = None  # the latest pause or end
        job.sequencer.on_move_done = self._move_done

    # --- the operator's wishes --------------------------------------------------------------------------
    def start(self, **start_options: bool) -> Outcome:
        """Start the run (``start_options`` as :meth:`Resumption.start_options` gives them) and stream until it
        pauses or ends. If starting raises, the run is ended (its journal closed) and the error goes on."""
        self._started_s = self._now_s()
        try:
            phase = self.job.start(**start_options)
        except BaseException:
            self.end()
            raise
        return self._stopped(Outcome.of(phase))

    def request_pause(self) -> None:
        """Ask for a pause at the next segment boundary (from any thread, or a signal handler)."""
        self.job.request_pause()

    def go_on(self) -> Outcome:
        """Continue a paused run and stream until it pauses or ends again."""
        self._need_paused("Continue")
        self._end_pause()
        self._emit(Kind.CONTINUED, f"continuing after {self.moves_done} of {count_of(self.moves_total, 'move')}")
        return self._stopped(Outcome.of(self.job.go_on()))

    def stop(self) -> Outcome:
        """End a paused run for good: the arm stays held and the journal says where it stopped."""
        self._need_paused("Stop")
        self._end_pause()
        return self._stopped(Outcome.of(self.job.stop()))

    def estop(self, reason: str) -> Outcome:
        """E-stop a paused run (the board latches ESTOP; the journal records the run e-stopped, ``reason`` why)."""
        self._need_paused("an e-stop of a paused run")
        self._end_pause()
        return self._stopped(Outcome.of(self.job.estop_paused(reason)))

    def keep_waiting(self) -> bool:
        """While the operator is asked: serve the link once without blocking; False once the run ended meanwhile
        (e-stopped from another process, or the link failed), and its end event has been sent."""
        if self.job.keep_waiting():
            return True
        self._end_pause()
        self._stopped(Outcome.of(self.job.phase))
        return False

    def end(self) -> None:
        """Forget the run: a paused one ends stopped in its journal, which is closed."""
        journal = self.job.journal
        if journal is None:
            return
        if self.is_paused:
            journal.record_end(Outcome.STOPPED.value)
        journal.close()

    # --- what the front ends show -------------------------------------------------------------------------
    @property
    def is_paused(self) -> bool:
        """True while the run waits for the operator (Continue or Stop)."""
        return Outcome.of(self.job.phase) is Outcome.PAUSED

    @property
    def outcome(self) -> Outcome | None:
        """How the run stands once it stopped streaming (None while it streams)."""
        return Outcome.of(self.job.phase)

    @property
    def phase_name(self) -> str:
        """The run's phase in one word (``lift``, ``paused``, ``done``...), as the console's page shows it."""
        return str(self.job.phase.value)

    @property
    def moves_done(self) -> int:
        """Moves of the plan done so far (those before a resumed run's first included)."""
        return int(self.job.sequencer.moves_done)

    @property
    def moves_total(self) -> int:
        """Moves in the plan."""
        return self.job.plan.length

    @property
    def board(self) -> State:
        """Where the disks are as the host last confirmed them (a carried disk counts on its source peg)."""
        return self.job.sequencer.board_state or self.job.board_state

    @property
    def unsure_move(self) -> Move | None:
        """The move whose disk may have been let go by a board reset (None when none was under way)."""
        return self.job.sequencer.unsure_move

    @property
    def journal_path(self) -> Path | None:
        """The run's journal file (None for a run without one)."""
        return self.job.journal.path if self.job.journal is not None else None

    def carried(self) -> Move | None:
        """The move whose disk is between the fingers now (None when the gripper carries none)."""
        done = self.moves_done
        if self.job.phase not in HOLDING_PHASES or done >= self.moves_total:
            return None
        move = self.job.plan.move_at(done)
        return move if self.board.top(move.src) == move.disk else None

    def eta_s(self) -> float | None:
        """Wall time left at the pace of this run so far, in s (time paused left out); None before a move."""
        run_done = self.moves_done - self.job.first_k
        if run_done <= 0:
            return None
        now_s = self._paused_since_s if self._paused_since_s is not None else self._now_s()
        elapsed_s = now_s - self._started_s - self._paused_s
        return round(elapsed_s / run_done * (self.moves_total - self.moves_done), 1)

    def report(self) -> RunReport:
        """The run's report so far."""
        return self.job.report()

    def colours_wrong(self) -> str | None:
        """Why a finished coloured puzzle's board (as the simulated board's disks show it) is not its goal, or None."""
        plan = self.job.plan
        if not isinstance(plan, ColourRunPlan):
            return None
        colours = self.job.board_colours()
        if colours == plan.colour_goal:
            return None
        seen = colour_words(colours) if colours is not None else "a disk off the pegs"
        return f"the board's colours are {seen}, not the goal {colour_words(plan.colour_goal)}"

    # --- inside -----------------------------------------------------------------------------------------
    def _need_paused(self, what: str) -> None:
        if not self.is_paused:
            raise HanoiError(f"the run is not paused: {what} acts on a paused run")

    def _end_pause(self) -> None:
        if self._paused_since_s is not None:
            self._paused_s += self._now_s() - self._paused_since_s
            self._paused_since_s = None

    def _move_done(self, k: int, move: Move, board: State) -> None:
        self._emit(Kind.MOVE_DONE, f"move {k + 1} of {self.moves_total} done", move=move, board=board)

    def _stopped(self, outcome: Outcome | None) -> Outcome:
        """Say how the run stands now that it stopped streaming (a phase with no outcome is a fault)."""
        outcome = outcome or Outcome.FAULT
        done, total = self.moves_done, self.moves_total
        reason = "" if outcome in (Outcome.DONE, Outcome.STOPPED) else self.job.sequencer.reason
        if outcome is Outcome.DONE:
            colours = self.job.report().colours
            shown = f"; colours {colours}" if colours is not None else ""
            words = f"done: {done} of {count_of(total, 'move')}, board {self.board}{shown}"
        else:
            words = f"{outcome.how} after {done} of {count_of(total, 'move')}"
        if outcome is Outcome.PAUSED and self._paused_since_s is None:
            self._paused_since_s = self._now_s()
        self._emit(KIND_OF[outcome], words, outcome=outcome, reason=reason)
        return outcome

    def _emit(self, kind: Kind, words: str, **more: object) -> None:
        event = RunEvent(kind, self.moves_done, self.moves_total, words, **more)  # type: ignore[arg-type]
        if kind is not Kind.MOVE_DONE and kind is not Kind.CONTINUED:
            self.last = event
        self._on_event(event)
