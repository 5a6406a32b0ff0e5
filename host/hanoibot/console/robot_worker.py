"""The console's robot: one thread owns the link and runs the same :class:`~hanoibot.run.runner.Run` as the CLI.

The web side never touches the serial link. It calls :meth:`RobotWorker.submit` with a command name (connect,
run, pause, continue, stop, resume, home, clear, play_move, disconnect); the worker thread runs them one at a time and
publishes a snapshot of what the host knows (the board as the robot believes it, the arm's pulses, progress,
faults) through ``publish`` after every change and at most every :data:`LIVE_PERIOD_S` while the arm moves.
:meth:`RobotWorker.estop` is different: it sets a flag the run's link checks every control period, and queues
an ESTOP for an idle board, so it acts within one control period whatever the worker is doing.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import HanoiError
from ..planner.base import Plan
from ..puzzle import Move, Rules, State
from .robot_view import arm_polyline_mm, config_geometry, fault_words
from .stoppable_link import ESTOP_REASON, StoppableSession

#: Most time between two live snapshots while the arm moves, and while idle, in s.
LIVE_PERIOD_S = 0.05
IDLE_PERIOD_S = 0.25
#: Sequencer phases in which the moved disk is between the fingers.
HOLDING_PHASES = ("lift", "travel", "lower")

Publish = Callable[[dict[str, Any]], object]


class OneMovePlan(Plan):
    """A plan of exactly one move (``Play my move on the arm``)."""

    method = "one-move"

    def __init__(self, start: State, move: Move, rules: Rules) -> None:
        super().__init__(start, start.apply(move, rules), rules, 1)
        self._move = move

    def move_at(self, k: int) -> Move:
        """The move (``k`` must be 0)."""
        self.check_index(k)
        return self._move


def _refuse_coloured(rules: str) -> None:
    """HanoiError for a coloured puzzle: the console's arm holds the plain disk set; the command line swaps in the
    coloured one."""
    from ..puzzle.rules import COLOUR_RULE_NAMES

    if rules in COLOUR_RULE_NAMES.values():
        raise HanoiError(
            f"the {rules} puzzle needs the coloured disks on the arm: play it with hanoibot run --puzzle {rules} -n N"
        )


class RobotWorker:
    """The robot on ``port_url`` (``config_path`` or the default robot), driven from one thread.

    ``journal_dir`` (named by the user) receives one new journal per run started from the page.
    """

    def __init__(
        self, port_url: str, config_path: str | None, publish: Publish, *, journal_dir: str | None = None
    ) -> None:
        from ..config import load_config

        self.port_url = port_url
        self.config_path = config_path
        self.config = load_config(config_path)
        self.layout, self.geometry = config_geometry(self.config)
        self.geometry["home_arm_mm"] = arm_polyline_mm(self.config, self.layout, self.config.start_pulses_us())
        self.journal_dir = Path(journal_dir) if journal_dir else None
        self._publish = publish
        self._commands: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self._estop = threading.Event()
        self._robot: Any = None
        self._job: Any = None
        self._believed: State | None = None
        self._last_status: Any = None
        self._last_live_s = 0.0
        self._run_started_s = 0.0
        self._message = ""
        self._error = ""
        self._busy = ""
        self._journal_path = ""
        self._progress = (0, 0)  # moves done and planned of the last run, kept after it ends
        self._closing = False
        self._thread = threading.Thread(target=self._loop, name="hanoibot-console-robot", daemon=True)
        self._thread.start()

    # --- the web side ---------------------------------------------------------------------------------
    def submit(self, name: str, **options: Any) -> None:
        """Queue command ``name`` for the worker (pause acts at the next segment boundary of a run)."""
        if name in ("pause", "stop") and self._job is not None:
            self._job.request_pause()  # a Stop while the arm moves: hold at the segment boundary, then stop
            if name == "pause":
                return
        self._commands.put((name, options))

    def estop(self) -> None:
        """E-stop: the running link latches it within one control period; an idle board gets it next."""
        self._estop.set()
        self._commands.put(("estop", {}))

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop the worker (the board's watchdog then holds the arm) and close the link."""
        self._closing = True
        self._commands.put(("disconnect", {}))
        self._thread.join(timeout_s)

    # --- the worker thread ------------------------------------------------------------------------------
    def _loop(self) -> None:
        self._send_snapshot(force=True)
        while True:
            try:
                name, options = self._commands.get(timeout=IDLE_PERIOD_S)
            except queue.Empty:
                self._idle_poll()
                continue
            self._error = ""
            try:
                getattr(self, f"_do_{name}")(**options)
            except (HanoiError, OSError) as err:
                self._error = str(err)
            except Exception as err:  # the worker must outlive any one command
                self._error = f"{type(err).__name__}: {err}"
            self._busy = ""
            self._send_snapshot(force=True)
            if self._closing:
                return

    def _idle_poll(self) -> None:
        """While connected and idle: ask the board's status (keeps the link alive) and show it."""
        if self._robot is None:
            return
        try:
            self._last_status = self._robot.session.status()
        except (HanoiError, OSError) as err:
            self._error = f"the board does not answer: {err}"
        self._send_snapshot(force=True)

    def _tick(self) -> None:
        """Between control periods of a run: a live snapshot at most every LIVE_PERIOD_S, and at once when a move
        has finished (so the page sees every move count even when the simulated arm runs faster than wall time)."""
        job = self._job
        move_finished = job is not None and job.sequencer.moves_done != self._progress[0]
        if self._robot is not None and (move_finished or time.monotonic() - self._last_live_s >= LIVE_PERIOD_S):
            self._last_status = self._robot.session.status()
            self._send_snapshot(force=True)

    def _need_robot(self) -> Any:
        if self._robot is None:
            raise HanoiError("the arm is not connected: press Connect first")
        return self._robot

    def _do_connect(self, state: str = "", pegs: int = 3) -> None:
        from ..run.board_setup import sim_port_url
        from ..run.robot import Robot

        if self._robot is not None:
            return
        believed = State.parse(state, pegs=pegs) if state else State.tower(3, 0, len(self.config.board.pegs))
        self._check_fits(believed.n_disks, believed.pegs)
        url = sim_port_url(self.port_url, believed, self.config_path)
        if url.lower().startswith("sim:") and "realtime=" not in url:
            url += ("&" if "?" in url else "?") + "realtime=1"  # a person watches: sim time runs at wall speed
        self._busy = "connecting"
        self._send_snapshot(force=True)
        robot = Robot(url, self.config)
        robot.session = StoppableSession(url, self._estop, self._tick)
        robot.open()
        self._robot = robot
        self._believed = believed
        self._last_status = robot.session.status()
        self._message = f"connected to {self.port_url}"

    def _do_disconnect(self) -> None:
        if self._robot is not None:
            self._robot.close()
        self._robot = None
        self._message = "disconnected"

    def _check_fits(self, n_disks: int, pegs: int) -> None:
        from ..run.board_setup import check_puzzle_fits_board

        check_puzzle_fits_board(self.config, n_disks, pegs)

    def _do_estop(self) -> None:
        robot = self._robot
        if robot is not None:
            job = self._job
            if job is not None:  # a paused run: the sequencer latches it and the journal says how it ended
                job.sequencer.estop(reason=ESTOP_REASON)
                if job.journal is not None:
                    job.journal.record_end("estopped")
                self._follow(job.sequencer.state)
            else:
                robot.session.estop()
            self._last_status = robot.session.status()
        self._estop.clear()
        self._message = "E-stop latched: the arm holds its pose. Press Clear, then Home."

    def _do_clear(self) -> None:
        robot = self._need_robot()
        self._estop.clear()
        robot.session.clear()
        robot.session.resume()  # a stopped run left the board held: the e-stop dropped its queue, now let go
        self._last_status = robot.session.status()
        self._job = None
        self._message = "faults cleared: press Home before running"

    def _do_home(self) -> None:
        from ..run.sequencer import Phase

        robot = self._need_robot()
        self._busy = "homing"
        self._send_snapshot(force=True)
        status = robot.session.status()
        self._refuse_if_held(status)
        if status.faults:
            raise HanoiError(f"{' '.join(fault_words(status.faults))}")
        sequencer = robot.sequencer()
        if sequencer.connect(open_link=False, configure=status.mode == "UNCONFIGURED") is not Phase.READY:
            raise HanoiError(f"homing failed: {sequencer.reason}")
        self._last_status = robot.session.status()
        self._message = "the arm is home"

    def _do_run(self, rules: str = "classic", goal: str = "", pegs: int = 3) -> None:
        from ..planner import PlanRequest, plan_for

        _refuse_coloured(rules)
        believed = self._believed_or_fail()
        puzzle_rules = Rules.named(rules, believed.pegs)
        if pegs != believed.pegs:
            raise HanoiError(f"the arm's board has {believed.pegs} pegs but the page plays {pegs}")
        target = State.parse(goal, pegs=believed.pegs, n_disks=believed.n_disks)
        if target == believed:
            raise HanoiError(f"the arm's board already is the goal {target}: nothing to move")
        plan = plan_for(PlanRequest(believed.n_disks, believed.pegs, puzzle_rules, start=believed, goal=target))
        self._play(plan, journaled=True)

    def _do_play_move(self, disk: int, src: int, dst: int, rules: str = "classic") -> None:
        _refuse_coloured(rules)
        believed = self._believed_or_fail()
        move = Move(disk, src, dst)
        if believed.top(src) != disk:
            raise HanoiError(f"disk {disk} is not on top of peg {chr(65 + src)} on the arm's board {believed}")
        self._play(OneMovePlan(believed, move, Rules.named(rules, believed.pegs)), journaled=False)

    @staticmethod
    def _refuse_if_held(status: Any) -> None:
        """HanoiError when the board still holds the queued motion of a stopped run (it would never start more)."""
        if status.mode == "HELD":
            raise HanoiError(
                "the board holds the queued motion of a stopped run: look at the arm (it may hold a disk), "
                "then press E-STOP, Clear and Home to start again"
            )

    def _believed_or_fail(self) -> State:
        robot = self._need_robot()
        if self._job is not None:
            raise HanoiError("a run is paused: press Continue or Stop first")
        self._refuse_if_held(robot.session.status())
        if self._believed is None:
            raise HanoiError("the arm's board is unknown: press Connect first")
        return self._believed

    def _play(self, plan: Any, *, journaled: bool) -> None:
        """Run ``plan`` on the arm with the CLI's Run (journaled into --journal-dir when given)."""
        from ..run.journal import Journal
        from ..run.runner import Run

        robot = self._need_robot()
        journal = None
        if journaled and self.journal_dir is not None:
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
            journal = Journal.create(self.journal_dir / f"console-{stamp}.journal")
            self._journal_path = str(journal.path)
        job = Run(robot, plan, journal=journal, board_state=self._believed)
        self._start(job, f"running {plan.length} moves")
        self._follow(job.start())

    def _do_resume(self) -> None:
        """Finish the newest unfinished run journaled in --journal-dir, every move exactly once (as the CLI's
        ``hanoibot resume``: same board boot, or the board as the robot believes it after a reset)."""
        from ..run.journal import Journal, load_journal
        from ..run.recovery import check_journal, resume_after_reset, resume_same_boot

        robot = self._need_robot()
        if self._job is not None:
            raise HanoiError("a run is paused: press Continue to go on with it")
        path = self._unfinished_journal()
        log = load_journal(path)
        plan = check_journal(log, self.config.config_hash, str(path))
        journal = Journal.open_append(path)
        try:
            if robot.boot_id == log.boot_id:
                point = resume_same_boot(log, plan, robot, journal)
            else:
                point = resume_after_reset(log, plan, robot, self._believed_or_fail())
        except BaseException:
            journal.close()
            raise
        self._journal_path = str(path)
        job = point.run(robot, journal)
        self._start(job, f"resuming {path.name} at move {point.first_k + 1} of {point.plan.length}")
        self._follow(job.start(**point.start_options()))

    def _unfinished_journal(self) -> Path:
        """The newest console journal in --journal-dir whose run did not finish."""
        from ..run.journal import load_journal

        if self.journal_dir is None:
            raise HanoiError("no journal folder: start hanoibot serve with --journal-dir DIR to resume from the page")
        for path in sorted(self.journal_dir.glob("console-*.journal"), reverse=True):
            if load_journal(path).end_status != "done":
                return path
        raise HanoiError(f"no unfinished run in {self.journal_dir}: every console journal there is done")

    def _start(self, job: Any, message: str) -> None:
        """Make ``job`` the run the page follows."""
        self._job = job
        self._busy = "running"
        self._run_started_s = time.monotonic()
        self._message = message
        self._send_snapshot(force=True)

    def _do_continue(self) -> None:
        if self._job is None:
            raise HanoiError("nothing is paused: Continue follows a Pause")
        self._busy = "running"
        self._send_snapshot(force=True)
        self._follow(self._job.go_on())

    def _do_stop(self) -> None:
        if self._job is None:
            raise HanoiError("nothing is paused or running: Stop ends a paused run")
        self._follow(self._job.stop())

    def _follow(self, phase: Any) -> None:
        """After the run returned in ``phase``: keep the job while paused, else end it and say how it ended."""
        from ..run.sequencer import Phase

        job = self._job
        self._believed = job.sequencer.board_state or self._believed
        self._last_status = self._robot.session.status() if self._robot is not None else None
        report = job.report()
        self._progress = (report.moves_done, report.moves_total)
        if phase is Phase.PAUSED:
            self._message = f"paused after {report.moves_done} of {report.moves_total} moves: Continue or Stop"
            return
        self._job = None
        if job.journal is not None:
            job.journal.close()
        if phase is Phase.DONE:
            self._message = f"done: {report.moves_done} of {report.moves_total} moves, board {report.final}"
        elif phase is Phase.DISCONNECTED:
            self._message = (
                f"stopped after {report.moves_done} of {report.moves_total} moves: the arm holds its pose; "
                + ("Resume finishes the run, or " if job.journal is not None else "")
                + "E-STOP, Clear and Home to start again"
            )
        else:
            self._message = f"run stopped in {phase.value} after {report.moves_done} of {report.moves_total} moves"
            self._error = job.sequencer.reason
        self._estop.clear()

    # --- the snapshot ------------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """What the page shows of the robot now (JSON-ready; ``t_report_ms`` is the wall time of the status)."""
        status = self._last_status
        job = self._job
        phase = job.sequencer.state.value if job is not None else ("idle" if self._robot is not None else "offline")
        board = self._believed
        stacks = [list(s) for s in board.stacks] if board is not None else []
        held = None
        moves_done, moves_total = self._progress
        eta_s = None
        if job is not None:
            seq = job.sequencer
            board = seq.board_state or board
            stacks = [list(s) for s in board.stacks] if board is not None else stacks
            moves_done, moves_total = seq.moves_done, job.plan.length
            self._progress = (moves_done, moves_total)
            if phase in HOLDING_PHASES and moves_done < moves_total:
                move = job.plan.move_at(moves_done)
                if stacks[move.src] and stacks[move.src][-1] == move.disk:
                    stacks[move.src].pop()
                    held = move.disk
            elapsed_s = time.monotonic() - self._run_started_s
            run_done = moves_done - job.first_k
            if run_done > 0:
                eta_s = round(elapsed_s / run_done * (moves_total - moves_done), 1)
        pulses = tuple(int(p) for p in status.pulses_us) if status is not None else ()
        faults = list(status.faults) if status is not None else []
        retransmits = int(getattr(self._robot.session, "retransmits", 0)) if self._robot is not None else 0
        return {
            "type": "robot",
            "port": self.port_url,
            "connected": self._robot is not None,
            "phase": phase,
            "busy": self._busy,
            "mode": status.mode if status is not None else "",
            "faults": fault_words(faults),
            "fault_names": faults,
            "message": self._message,
            "error": self._error,
            "board": stacks,
            "board_text": board.to_string() if board is not None else "",
            "held": held,
            "arm_mm": arm_polyline_mm(self.config, self.layout, pulses),
            "moves_done": moves_done,
            "moves_total": moves_total,
            "eta_s": eta_s,
            "retransmits": retransmits,
            "journal": self._journal_path,
            "t_report_ms": time.time() * 1000.0,
        }

    def _send_snapshot(self, *, force: bool = False) -> None:
        self._last_live_s = time.monotonic()
        self._publish(self.snapshot())
