"""The glue of a run: plan → segments → link, journaled, with a report at the end.

:class:`Run` owns one run of one plan on one :class:`~hanoibot.run.robot.Robot`: it connects (configure, home),
records the plan in the journal, streams the moves through the sequencer, and can be paused, continued or stopped
by the operator. :func:`plan_spec` / :func:`plan_from_spec` write and rebuild a plan from what the journal keeps.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import HanoiError, JournalError, LinkError, PortError, ProtocolMismatch, StateError
from ..motion.phases import MotionPhase
from ..planner import make_plan
from ..planner.base import Plan
from ..planner.colour_run import ColourRunPlan
from ..puzzle import Move, Rules, State
from ..puzzle.colours import ColourState, colour_words, colours_of
from .held_pose import configure_where_held, holds_pose
from .journal import Journal
from .outcome import Outcome
from .release import lift_clear, refuse_held_disk, release_board
from .robot import Robot
from .sequencer import Phase, RunState, Sequencer

MoveListener = Callable[[int, Move, State], None]
#: Why a run that waited at the pause prompt stopped when another process asked for an e-stop.
ESTOP_WHILE_PAUSED = "`hanoibot estop` from another process stopped the arm while the run was paused"


def status_of(phase: RunState) -> str:
    """What the journal's end and the report record for a run in ``phase`` (see :class:`Outcome`)."""
    outcome = Outcome.of(phase)
    return outcome.value if outcome is not None else phase.value


def plan_spec(plan: Plan) -> dict[str, Any]:
    """What the journal keeps of a plan: enough to rebuild it with :func:`plan_from_spec` and check it."""
    spec = {
        "n_disks": plan.start.n_disks,
        "pegs": plan.rules.pegs,
        "topology": plan.rules.topology,
        "big_on_top": plan.rules.big_on_top,
        "start": plan.start.to_string(),
        "goal": plan.goal.to_string(),
        "planner": "make_plan",
        "length": plan.length,
    }
    if isinstance(plan, ColourRunPlan):
        spec |= {"planner": "colour", "puzzle": plan.puzzle, "sizes": plan.sizes}
        spec |= {"colour_start": plan.colour_start.to_string()}
    return spec


def _colour_plan_from_spec(spec: dict[str, Any]) -> Plan:
    """Rebuild a coloured puzzle's plan (its own start, or the board a replan started from)."""
    sizes = int(spec["sizes"])
    return ColourRunPlan(str(spec["puzzle"]), sizes, ColourState.parse(str(spec["colour_start"]), sizes))


def plan_from_spec(spec: dict[str, Any], *, source: str = "journal") -> Plan:
    """Rebuild the plan a journal recorded; JournalError if this planner now makes another plan of it."""
    try:
        if spec.get("planner") == "colour":
            plan = _colour_plan_from_spec(spec)
        else:
            pegs = int(spec["pegs"])
            rules = Rules(pegs, str(spec["topology"]), bool(spec["big_on_top"]))
            start = State.parse(str(spec["start"]), pegs)
            goal = State.parse(str(spec["goal"]), pegs)
            plan = make_plan(int(spec["n_disks"]), pegs=pegs, rules=rules, start=start, goal=goal)
    except KeyError as err:
        raise JournalError(f"{source} plan record lacks {err}: expected n_disks, pegs, rules, start, goal") from None
    rebuilt = (plan.start.to_string(), plan.goal.to_string())
    if isinstance(plan, ColourRunPlan) and (spec.get("start"), spec.get("goal")) != rebuilt:
        raise JournalError(
            f"{source} records a plan from {spec.get('start')} to {spec.get('goal')} but the planner now goes "
            f"from {rebuilt[0]} to {rebuilt[1]}: it belongs to another planner version"
        )
    if plan.length != int(spec.get("length", plan.length)):
        raise JournalError(
            f"{source} records a plan of {spec['length']} moves but the planner now makes {plan.length}: "
            "it belongs to another plan or another planner version"
        )
    return plan


def take_over(robot: Robot, *, configure: bool = True, home: bool = True) -> None:
    """Make the board an earlier command left behind ready for a new run, before anything moves: motion it left
    queued or held is dropped (with ``configure``); RunFault for a latched fault, or (with ``home``) for a disk
    in the gripper, which homing would carry home and drop there."""
    if configure:
        release_board(robot.session, clear=False)
    if home:
        refuse_held_disk(robot)


@dataclass
class RunReport:
    """What ``--report FILE`` writes: how the run ended and what it cost (times in seconds).

    ``wall_s`` is wall-clock time; ``simulated_s`` the simulated arm's time (``sim://`` only, else None);
    ``paused_s`` the robot time spent paused, which ``s_per_move`` (robot time per move run) leaves out.
    ``colours`` (coloured puzzles only) each peg's colours bottom first, as :meth:`Run.board_colours` reads them.
    ``frame_trace``: when the link failed (lost, taken over, a board error), the last frames on the wire then, one
    line each (``time_s > frame`` written, ``time_s < frame`` read; see :mod:`hanoibot.link.trace`).
    """

    status: str
    moves_done: int
    moves_total: int
    start: str
    final: str
    wall_s: float
    simulated_s: float | None
    paused_s: float
    s_per_move: float | None
    retransmits: int
    faults: list[str] = field(default_factory=list)
    colours: str | None = None
    frame_trace: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        """The report as one JSON object."""
        return json.dumps(asdict(self), sort_keys=True)

    def write(self, path: str | Path) -> None:
        """Write the report to ``path`` (one JSON object and a newline)."""
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")


class Run:
    """One plan run on one robot, from ``first_k`` (moves before it are done; the board is in ``board_state``).

    ``first_phase`` and ``pose_us`` (the arm's pulses now) resume a move the journal shows half done.
    """

    def __init__(
        self,
        robot: Robot,
        plan: Plan,
        *,
        journal: Journal | None = None,
        first_k: int = 0,
        first_phase: MotionPhase = MotionPhase.APPROACH,
        board_state: State | None = None,
        first_cmd_id: int = 1,
        pose_us: tuple[int, ...] | None = None,
        on_move_done: MoveListener | None = None,
    ) -> None:
        self.robot = robot
        self.plan = plan
        self.journal = journal
        self.first_k = first_k
        self.first_phase = first_phase
        self.pose_us = pose_us
        self.board_state = (
            board_state if board_state is not None else (plan.state_at(first_k) if first_k else plan.start)
        )
        self.sequencer: Sequencer = robot.sequencer(journal=journal, first_cmd_id=first_cmd_id)
        self.sequencer.on_move_done = on_move_done
        self._wall_start_s = time.monotonic()
        self._sim_start_s = 0.0
        self._paused_s = 0.0
        self._paused_since_s: float | None = None
        self._estop_requests_seen = 0
        #: True once :func:`take_over` made the board ready before the run was shown (start does not repeat it).
        self.taken_over = False

    def start(self, *, home: bool = True, configure: bool = True, record_plan: bool = True) -> RunState:
        """Journal the plan (or the board rejoined), connect and home, and stream until the run stops.

        The robot's link is opened first if needed: its boot id goes into the journal before anything moves.
        """
        self.robot.open()
        if not self.taken_over:
            take_over(self.robot, configure=configure, home=home)
        if home:
            if holds_pose(self.robot.session.status()):  # a new board, the arm where its servos held it: take it
                configure_where_held(self.robot)  # over there (nothing moves), so that it can be lifted clear
                refuse_held_disk(self.robot)  # and a disk still in the fingers is seen before homing carries it
            lift_clear(self.robot)  # straight up, clear of every peg, before homing travels
        self._wall_start_s = time.monotonic()
        clock = self.robot.board_clock
        self._sim_start_s = clock.now_s() if clock is not None else 0.0
        if self.journal is not None and record_plan:
            self.journal.record_plan(
                plan_spec(self.plan),
                config_hash=self.robot.config.config_hash,
                boot_id=self.robot.boot_id,
                port=self.robot.port_url,
                config_path=str(self.robot.config.source_path or ""),
            )
        elif self.journal is not None:
            self.journal.record_boot(self.robot.boot_id)
        seq = self.sequencer
        seq.load(
            self.board_state,
            self.plan.moves_from(self.first_k),
            self.plan.length,
            first_k=self.first_k,
            first_phase=self.first_phase,
            pose_us=self.pose_us,
            rules=self.plan.rules,
        )
        if seq.connect(open_link=False, configure=configure, home=home) is not Phase.READY:
            return self._stopped_before_moving()
        return self._finish_if_stopped(seq.run())

    def go_on(self) -> RunState:
        """Continue after a pause (RESUME) and stream until the run stops again."""
        self._end_pause()
        self.sequencer.unpause()
        return self._finish_if_stopped(self.sequencer.run())

    def stop(self) -> RunState:
        """Stop for good after a pause; the arm stays held and the journal says where the run stopped."""
        self._end_pause()
        self.sequencer.stop()
        return self._finish_if_stopped(self.sequencer.state)

    @property
    def phase(self) -> RunState:
        """Where the run stands (PAUSED while it waits for the operator)."""
        return self.sequencer.state

    def keep_waiting(self) -> bool:
        """While paused (the operator is being asked): serve the link (heartbeats, the board's answers) and the
        port's control socket once, without blocking. A `hanoibot estop` from another process e-stops the run and
        a link that failed ends it in fault; returns True while the run still waits for the operator."""
        session = self.robot.session
        try:
            session.poll()
            if session.estop_requests > self._estop_requests_seen:
                self.estop_paused(ESTOP_WHILE_PAUSED)
                return False
        except (HanoiError, OSError) as err:
            self._end_pause()
            self.sequencer.fault(reason=str(err), error=err)
        if self.sequencer.state is Phase.PAUSED:
            return True
        self._finish_if_stopped(self.sequencer.state)
        return False

    def estop_paused(self, reason: str) -> RunState:
        """A run waiting paused ends e-stopped (the sequencer latches ESTOP on the board), ``reason`` journaled."""
        self._end_pause()
        self.sequencer.estop(reason=reason)
        return self._finish_if_stopped(self.sequencer.state)

    def request_pause(self) -> None:
        """Ask for a pause at the next segment boundary (call from a signal handler)."""
        self.sequencer.request_pause()

    def _stopped_before_moving(self) -> RunState:
        """Connecting failed: a bad port or protocol is bad input (exit 2), anything else a fault."""
        error = self.sequencer.error
        if isinstance(error, PortError | ProtocolMismatch):
            raise error
        return self._finish_if_stopped(self.sequencer.state)

    def _robot_now_s(self) -> float:
        """Robot time: the simulated board's clock on ``sim://``, else the wall clock (seconds)."""
        clock = self.robot.board_clock
        return clock.now_s() if clock is not None else time.monotonic()

    def _end_pause(self) -> None:
        """Add the time since the run paused to the paused time."""
        if self._paused_since_s is not None:
            self._paused_s += self._robot_now_s() - self._paused_since_s
            self._paused_since_s = None

    def _finish_if_stopped(self, phase: RunState) -> RunState:
        if phase is Phase.PAUSED:
            self._paused_since_s = self._robot_now_s()
            self._estop_requests_seen = self.robot.session.estop_requests
        if phase is not Phase.PAUSED and self.journal is not None:
            self.journal.record_end(status_of(phase), frame_trace=self.frame_trace())
        return phase

    def frame_trace(self) -> list[str]:
        """The last frames on the wire when the link error that stopped the run was raised (empty for any other
        end; see :mod:`hanoibot.link.trace`)."""
        error = self.sequencer.error
        return list(error.frame_trace) if isinstance(error, LinkError) else []

    def board_colours(self) -> ColourState | None:
        """A coloured puzzle's board as a simulated board's world shows its disks, else as the host last confirmed
        it; None for a plain puzzle, or while a disk is in the gripper or off the pegs."""
        if not isinstance(self.plan, ColourRunPlan):
            return None
        simulator = self.robot.simulator
        world = None if simulator is None else simulator.world
        if world is not None:
            if world.state is None:
                return None
            stacks = world.stacks
        else:
            stacks = (self.sequencer.board_state or self.board_state).stacks
        try:
            return colours_of(stacks, self.plan.per_size)
        except StateError:
            return None

    def report(self) -> RunReport:
        """The report of the run so far."""
        seq = self.sequencer
        clock = self.robot.board_clock
        simulated_s = clock.now_s() - self._sim_start_s if clock is not None else None
        elapsed_s = time.monotonic() - self._wall_start_s
        moves_run = seq.moves_done - self.first_k
        robot_s = (simulated_s if simulated_s is not None else elapsed_s) - self._paused_s
        faults = [seq.reason] if seq.state in (Phase.FAULT, Phase.ESTOPPED) and seq.reason else []
        if seq.recoveries:
            faults.append(f"HOST_LOST recovered {seq.recoveries} times (arm held, dropped segments sent again)")
        return RunReport(
            status=status_of(seq.state),
            moves_done=seq.moves_done,
            moves_total=self.plan.length,
            start=self.plan.start.to_string(),
            final=(seq.board_state or self.board_state).to_string(),
            wall_s=round(elapsed_s, 6),
            simulated_s=round(simulated_s, 6) if simulated_s is not None else None,
            paused_s=round(self._paused_s, 6),
            s_per_move=round(robot_s / moves_run, 6) if moves_run > 0 else None,
            retransmits=self.robot.session.retransmits,
            faults=faults,
            colours=self._colour_words(),
            frame_trace=self.frame_trace(),
        )

    def _colour_words(self) -> str | None:
        """The report's ``colours``: each peg's colours (coloured puzzles), or None."""
        colours = self.board_colours()
        return colour_words(colours) if colours is not None else None
