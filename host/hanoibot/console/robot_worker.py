"""The console's robot: one thread owns the link and calls the same operations (:mod:`hanoibot.ops`) as the CLI.

The web side never touches the serial link. It calls :meth:`RobotWorker.submit` with a command name (connect,
run, pause, continue, stop, resume, home, clear, play_move, answer, calibrate, disconnect); the worker runs them one at
a time and publishes a snapshot of what the host knows (the board as the robot believes it, the arm's pulses, progress,
faults) through ``publish`` after every change and at most every :data:`LIVE_PERIOD_S` while the arm moves.

:meth:`RobotWorker.estop` follows :mod:`hanoibot.ops.gate`: it preempts (the run's link sends ESTOP within one
control period, an idle worker does it before anything else), every command issued before it is discarded (the page
is told which), and nothing moves until a Clear issued after it. Without a connected arm it goes through
:func:`hanoibot.ops.stop.estop` (the control socket of another hanoibot process that holds the port).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import BoardReset, HanoiError
from ..ops import board as ops_board
from ..ops.follow import Follow, Kind, Outcome
from ..ops.gate import Discarded, StopGate, Ticket
from ..ops.lost_disk import LostDisk
from ..ops.stop import estop, stop_fast
from ..planner.base import Plan
from ..puzzle import Move, State
from .calibration_desk import CalibrationDesk
from .planning import arm_move_plan, arm_plan, refuse_coloured
from .robot_view import (
    ESTOP_RECOVERY,
    RESET_WORDS,
    arm_polyline_mm,
    board_json,
    config_geometry,
    connect_words,
    estop_words,
    run_words,
    status_json,
)

#: Why a run the page's E-STOP stopped ended, as its journal and the page say it.
ESTOP_REASON = "E-stop pressed on the console"

#: Most time between two live snapshots while the arm moves, and while idle, in s.
LIVE_PERIOD_S = 0.05
IDLE_PERIOD_S = 0.25
#: The phase the page shows while no run is followed and the board holds a latched e-stop.
ESTOPPED_PHASE = Outcome.ESTOPPED.word

Publish = Callable[[dict[str, Any]], object]


class RobotWorker:
    """The robot on ``port_url`` (``config_path`` or the default robot), driven from one thread.

    Runs started from the page are journaled into ``journal_dir`` (default: the state folder, see
    :mod:`hanoibot.ops.journals`); Resume and Home go on from the newest stopped run of the port there.
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
        self.gate = StopGate()
        self._publish = publish
        self._commands: queue.Queue[tuple[Ticket, dict[str, Any]]] = queue.Queue()
        self._robot: Any = None
        self._follow: Follow | None = None
        self._believed: State | None = None
        self._last_status: Any = None
        self._last_live_s = 0.0
        self._message = ""
        self._error = ""
        self._busy = ""
        self._journal_path = ""
        #: After a reset that let a carried disk go: that disk, until the person says where it lies.
        self._question: LostDisk | None = None
        self.desk = CalibrationDesk()  # the calibration page's, while one is open
        self._progress = (0, 0)  # moves done and planned of the last run, kept after it ends
        self._remote_estops_seen = 0  # e-stops `hanoibot estop` asked for through the port's control socket
        self._closing = False
        self._thread = threading.Thread(target=self._loop, name="hanoibot-console-robot", daemon=True)
        self._thread.start()

    # --- the web side ---------------------------------------------------------------------------------
    def submit(self, name: str, **options: Any) -> None:
        """Queue command ``name`` for the worker (pause acts at the next segment boundary of a run)."""
        ticket = self.gate.issue(name)
        if name in ("pause", "stop") and self._follow is not None:
            self._follow.request_pause()  # a Stop while the arm moves: hold at the segment boundary, then stop
            if name == "pause":
                return
        self._commands.put((ticket, options))

    def estop(self) -> None:
        """E-stop (any thread): preempts everything queued, which is discarded; see the module doc."""
        self.gate.press()
        flushed: list[str] = []
        while True:
            try:
                ticket, _ = self._commands.get_nowait()
            except queue.Empty:
                break
            if ticket.name != "estop":
                flushed.append(ticket.name)
        self._commands.put((self.gate.issue("estop"), {"flushed": flushed}))

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop the worker (the board's watchdog then holds the arm) and close the link."""
        self._closing = True
        self._commands.put((Ticket("disconnect", 1 << 62), {}))
        self._thread.join(timeout_s)

    # --- the worker thread ------------------------------------------------------------------------------
    def _loop(self) -> None:
        self._send_snapshot(force=True)
        while True:
            try:
                ticket, options = self._commands.get(timeout=IDLE_PERIOD_S)
            except queue.Empty:
                if self.gate.wanted.is_set():
                    self._latch_estop([])
                self._idle_poll()
                continue
            self._error = ""
            if ticket.name != "calibrate":
                self.desk.stop()  # anything else (an e-stop too) ends a calibration; what it saved stays saved
            try:
                if ticket.name == "estop" or self.gate.wanted.is_set():
                    self._latch_estop(options.pop("flushed", []) if ticket.name == "estop" else [])
                if ticket.name != "estop":
                    self.gate.admit(ticket)
                    getattr(self, f"_do_{ticket.name}")(**options)
            except Discarded as err:
                self._error = str(err)
            except BoardReset as err:
                self._after_reset(err)
            except (HanoiError, OSError) as err:
                self._error = str(err)
            except Exception as err:  # the worker must outlive any one command
                self._error = f"{type(err).__name__}: {err}"
            if self.gate.wanted.is_set():  # pressed while that command ran: latch (and say so) before the next
                self._latch_estop([])
            self._busy = ""
            self._send_snapshot(force=True)
            if self._closing:
                return

    def _idle_poll(self) -> None:
        """While connected and idle: ask the board's status (keeps the link alive) and show it."""
        if self._robot is None:
            return
        try:
            self._last_status = ops_board.status(self._robot)
            self._note_remote_estop()
        except BoardReset as err:
            self._after_reset(err)
        except (HanoiError, OSError) as err:
            self._error = f"the board does not answer: {err}"
        self._send_snapshot(force=True)

    def _after_reset(self, err: BoardReset) -> None:
        """The board was reset: start a fresh session with it (nothing is replayed) and say what to do; when it let
        a carried disk go, ask where that disk lies before anything runs from the board the host believes."""
        follow = self._follow
        unsure = follow.unsure_move if follow is not None else None
        if follow is not None:
            self._believed = follow.board
        if unsure is not None:
            self._question = LostDisk(unsure)
        self._end_job()
        if self._robot is not None:
            try:
                self._last_status = ops_board.rejoin(self._robot)
            except (HanoiError, OSError) as again:
                self._error = f"the board was reset and does not answer: {again}"
                return
        self._error = f"{RESET_WORDS} ({err})"

    def _tick(self) -> None:
        """Between control periods of a run: a live snapshot at most every LIVE_PERIOD_S, and at once when a move
        has finished (so the page sees every move count even when the simulated arm runs faster than wall time)."""
        follow = self._follow
        move_finished = follow is not None and follow.moves_done != self._progress[0]
        if self._robot is not None and (move_finished or time.monotonic() - self._last_live_s >= LIVE_PERIOD_S):
            self._last_status = ops_board.status(self._robot)
            self._note_remote_estop()
            self._send_snapshot(force=True)

    def _note_remote_estop(self) -> None:
        """``hanoibot estop`` from another process reached the board through this console's link: the same
        e-stop as the page's (everything queued before it is discarded; nothing moves until a Clear after it)."""
        asked = self._robot.session.estop_requests if self._robot is not None else 0
        if asked > self._remote_estops_seen:
            self._remote_estops_seen = asked
            self.estop()

    def _need_robot(self) -> Any:
        if self._robot is None:
            raise HanoiError("the arm is not connected: press Connect first")
        return self._robot

    # --- e-stop -----------------------------------------------------------------------------------------
    def _latch_estop(self, flushed: list[str]) -> None:
        """Latch the e-stop on the board (or reach whoever holds the port) and say only what the board confirmed."""
        robot, follow = self._robot, self._follow
        try:
            result = estop(self.port_url, self.config_path, robot=robot, follow=follow, reason=ESTOP_REASON)
            if follow is not None and not follow.is_paused:
                self._followed()  # the paused run ended e-stopped
        except BoardReset as err:
            self.gate.latched()
            self._after_reset(err)
            return
        except (HanoiError, OSError) as err:
            self.gate.latched()
            self._error = f"E-STOP not confirmed by the board: {err}; cut servo power with the hardware e-stop"
            return
        self.gate.latched()
        if robot is not None:
            self._last_status = ops_board.status(robot)
        self._message, error = estop_words(result, flushed)
        self._error = error or self._error

    # --- commands ---------------------------------------------------------------------------------------
    def _do_connect(self, state: str = "", pegs: int = 3) -> None:
        believed = State.parse(state, pegs=pegs) if state else State.tower(3, 0, len(self.config.board.pegs))
        ops_board.check_board(self.config, believed)
        self._question = None  # the page's board says where every disk is
        known = self._believed if self._robot is not None else None
        if self._robot is not None:
            if self._follow is not None:
                raise HanoiError("a run is paused: press Continue or Stop before changing the arm's board")
            simulator = self._robot.simulator
            if simulator is None or not simulator.dies_with_host:  # its disks stay where they are
                self._believed = believed
                self._message = connect_words(self.port_url, known, believed, kept=True)
                return
            self._do_disconnect()  # a simulated board is made with its disks: make a new one
        self._busy = "connecting"
        self._send_snapshot(force=True)
        robot = ops_board.open_robot(self.port_url, self.config_path, config=self.config, board=believed, watched=True)
        stop_fast(robot, self.gate, ESTOP_REASON, self._tick)
        self._robot = robot
        self._remote_estops_seen = robot.session.estop_requests
        self._believed = believed
        self._last_status = ops_board.status(robot)
        self._message = connect_words(self.port_url, known, believed, kept=False)

    def _do_calibrate(self, action: str = "", **options: Any) -> None:
        """One action of the calibration page (:mod:`.calibration_desk`); the board is polled between actions."""
        self.desk.actions += 1
        self._believed_or_fail()  # connected, no run paused
        self._refuse_while_latched("Calibration")
        self._busy = "calibrating"
        self._send_snapshot(force=True)
        self._message = self.desk.act(self._robot, action, options)
        self._last_status = ops_board.status(self._robot)

    def _do_pause(self) -> None:
        raise HanoiError("nothing is running: Pause acts on a run")

    def _do_disconnect(self) -> None:
        self._end_job()
        if self._robot is not None:
            self._robot.close()
        self._robot = None
        self._last_status = None
        self._message = "disconnected"

    def _do_clear(self) -> None:
        robot = self._need_robot()
        self._end_job()
        cleared = ops_board.clear(robot)
        self._last_status = ops_board.status(robot)
        said = f"{', '.join(cleared)} cleared" if cleared else "nothing was latched"
        self._message = f"{said}: press Home or Resume before running"

    def _do_home(self) -> None:
        from ..ops.home import home

        robot = self._need_robot()
        if self._follow is not None:
            raise HanoiError("a run is paused: press Continue or Stop first")
        self._refuse_while_latched("Home")
        self._busy = "homing"
        self._send_snapshot(force=True)
        journal = self._stopped_journal()
        result = home(robot, clear=False, journal_path=journal)
        self._last_status = ops_board.status(robot)
        if not result.is_home:
            raise HanoiError(f"homing failed: {result.failed}")
        if result.put_down and journal is not None:
            from ..ops.resume import journal_board

            self._believed = journal_board(journal, self.config.config_hash)
        self._message = f"the arm is home{f'; {result.put_down}' if result.put_down else ''}"

    def _do_run(self, rules: str = "classic", goal: str = "", pegs: int = 3) -> None:
        refuse_coloured(rules)
        self._refuse_while_asked()
        believed = self._believed_or_fail()
        self._refuse_while_latched("Run")
        self._play(arm_plan(believed, rules, goal, pegs), journaled=True)

    def _do_play_move(self, disk: int, src: int, dst: int, rules: str = "classic") -> None:
        refuse_coloured(rules)
        self._refuse_while_asked()
        believed = self._believed_or_fail()
        self._refuse_while_latched("Play my move")
        self._play(arm_move_plan(believed, rules, Move(disk, src, dst)), journaled=False)

    def _refuse_while_latched(self, what: str) -> None:
        """HanoiError, in the page's words, while the board holds a latched e-stop or fault: ``what`` (Run, Home,
        ...) would be refused by the board, and the way back is the page's Clear, not a terminal command."""
        robot = self._need_robot()
        status = ops_board.status(robot)
        self._last_status = status
        latched = ops_board.latched_faults(status)
        if latched:
            raise HanoiError(f"the board has latched {', '.join(latched)}: {what} waits. {ESTOP_RECOVERY}")

    def _believed_or_fail(self) -> State:
        self._need_robot()
        if self._follow is not None:
            raise HanoiError("a run is paused: press Continue or Stop first")
        if self._believed is None:
            raise HanoiError("the arm's board is unknown: press Connect first")
        return self._believed

    def _play(self, plan: Plan, *, journaled: bool) -> None:
        """Run ``plan`` on the arm through :func:`hanoibot.ops.start.open_run` (journaled unless one move)."""
        from ..ops.start import RunRequest, open_run

        robot = self._need_robot()
        request = RunRequest(
            plan,
            self.config,
            self.port_url,
            self.config_path,
            journal_folder=self.journal_dir,
            journaled=journaled,
        )
        started = open_run(request, robot=robot, board_state=self._believed)
        self._journal_path = str(started.journal.path) if started.journal is not None else self._journal_path
        self._start(started.job, f"running {plan.length} moves")

    def _do_answer(self, peg: str = "") -> None:
        """The person says on which peg the disk the reset let go lies: the arm's board puts it there."""
        question = self._question
        if question is None:
            raise HanoiError("nothing was asked: no disk's place is in doubt")
        self._believed = question.placed(self._believed_or_fail(), peg)
        self._question = None
        self._message = f"the arm's board is now {self._believed}: Home, or Resume the run"

    def _refuse_while_asked(self) -> None:
        """HanoiError while the page's question about a disk's place is open."""
        if self._question is not None:
            raise HanoiError(
                f"first answer where disk {self._question.disk} lies (take it out of the gripper by hand if it "
                "is still there)"
            )

    def _do_resume(self) -> None:
        """Finish the newest stopped run of this port, every move exactly once (as the CLI's ``hanoibot resume``:
        same board boot, or the board as the robot believes it after a reset)."""
        from ..ops.resume import Finished, open_resume, resume_request

        robot = self._need_robot()
        self._refuse_while_asked()
        if self._follow is not None:
            raise HanoiError("a run is paused: press Continue to go on with it")
        self._refuse_while_latched("Resume")
        path = self._stopped_journal()
        if path is None:
            raise HanoiError(f"no stopped run of {self.port_url} to resume: every journaled run there finished")
        resumption = open_resume(resume_request(path, robot, self._believed), robot=robot)
        if isinstance(resumption, Finished):
            raise HanoiError(f"nothing to resume: the run in {path.name} finished")
        self._journal_path = str(path)
        point = resumption.point
        message = f"resuming {path.name} at move {point.first_k + 1} of {point.plan.length}"
        self._start(resumption.run(), message, **resumption.start_options())

    def _stopped_journal(self) -> Path | None:
        """The journal of the newest run of this port that did not finish (None when there is none)."""
        from ..ops.journals import latest_stopped

        entry = latest_stopped(self.port_url, folder=self.journal_dir)
        return entry.path if entry is not None else None

    def _start(self, job: Any, message: str, **start_options: bool) -> None:
        """Follow ``job`` (made by :mod:`hanoibot.ops.start` or :mod:`hanoibot.ops.resume`) from its start; if
        starting raises, the run is forgotten (its journal closed), so the worker stays usable and e-stoppable."""
        follow = self._follow = Follow(job, self._on_event)
        self._busy = "running"
        self._message = message
        self._send_snapshot(force=True)
        try:
            follow.start(**start_options)
        except BaseException:
            self._follow = None
            raise
        self._followed()

    def _on_event(self, event: Any) -> None:
        """A continued run: the pause's message is over."""
        if event.kind is Kind.CONTINUED:
            self._busy = "running"
            self._message = event.words
            self._send_snapshot(force=True)

    def _do_continue(self) -> None:
        if self._follow is None:
            raise HanoiError("nothing is paused: Continue follows a Pause")
        self._follow.go_on()
        self._followed()

    def _do_stop(self) -> None:
        if self._follow is None:
            raise HanoiError("nothing is paused or running: Stop ends a paused run")
        self._follow.stop()
        self._followed()

    def _end_job(self) -> None:
        """Forget the run the page followed (a paused one ends stopped, its journal closed)."""
        follow, self._follow = self._follow, None
        self.desk.stop()
        if follow is not None:
            follow.end()

    def _followed(self) -> None:
        """After the followed run stopped streaming: keep it while paused, else end it and say how it ended."""
        follow = self._follow
        assert follow is not None and follow.last is not None
        self._believed = follow.board
        kind = follow.last.kind
        try:
            self._last_status = ops_board.status(self._robot) if self._robot is not None else None
        except BoardReset as err:
            self._after_reset(err)
            return
        except (HanoiError, OSError) as err:  # the link failed: the run is over all the same
            self._error = f"the board does not answer: {err}"
            kind = Kind.FAULT if kind is Kind.PAUSED else kind
        event = follow.last
        self._progress = (event.moves_done, event.moves_total)
        if kind is not Kind.PAUSED:
            self._end_job()
        self._message, self._error = run_words(event, kind, self._error, journaled=follow.journal_path is not None)

    # --- the snapshot ------------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """What the page shows of the robot now (JSON-ready; ``t_report_ms`` is the wall time of the status)."""
        status = self._last_status
        follow = self._follow
        phase = follow.phase_name if follow is not None else ("idle" if self._robot is not None else "offline")
        if follow is None and status is not None and ops_board.is_estopped(status):
            phase = ESTOPPED_PHASE  # not "idle": nothing moves until a Clear
        board, carried, eta_s = self._believed, None, None
        if follow is not None:
            board, carried, eta_s = follow.board, follow.carried(), follow.eta_s()
            self._progress = (follow.moves_done, follow.moves_total)
        retransmits = int(getattr(self._robot.session, "retransmits", 0)) if self._robot is not None else 0
        return {
            "type": "robot",
            "port": self.port_url,
            "connected": self._robot is not None,
            "phase": phase,
            "busy": self._busy,
            **status_json(status, self.config, self.layout),
            "message": self._message,
            "error": self._error,
            **board_json(board, carried),
            "moves_done": self._progress[0],
            "moves_total": self._progress[1],
            "eta_s": eta_s,
            "retransmits": retransmits,
            "journal": self._journal_path,
            "question": self._question.to_json() if self._question is not None else None,
            **self.desk.snapshot_json(len(self.config.board.pegs)),
            "pulses_us": [int(p) for p in status.pulses_us] if status is not None else [],
            "t_report_ms": time.time() * 1000.0,
        }

    def _send_snapshot(self, *, force: bool = False) -> None:
        self._last_live_s = time.monotonic()
        self._publish(self.snapshot())
