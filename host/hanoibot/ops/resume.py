"""Resuming a journaled run: which recovery it needs, decided once for the CLI and the console.

Same board boot: :func:`~hanoibot.run.recovery.resume_same_boot` (the board says which command ids finished).
A reset board (new boot id): the operator confirms where the disks are (``board``, or ``ask``), the rest is
replanned (:func:`~hanoibot.run.recovery.resume_after_reset`); but when its servos held the arm through the reset
with the moving disk in the gripper (:mod:`.held_reset`), that move is finished first (:func:`carry_on_held_disk`)
and nobody need say where the disks are. After ``home`` recorded where it put the disks, the
rest is replanned from there. A ``sim://`` board lives only as long as the process that made it, so resuming on
``sim://`` starts a new simulated board with the disks where the journal last saw them, and says so: every
recovery can be rehearsed on the simulator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..config import load_config
from ..errors import IllegalMove, JournalError, RunFault, StateError
from ..link.status import Fault
from ..planner.base import Plan
from ..planner.colour_run import ColourRunPlan
from ..puzzle import State, peg_letter
from ..puzzle.colours import colours_of
from ..run.board_setup import sim_port_url
from ..run.journal import Journal, JournalLog, load_journal
from ..run.recovery import (
    ResumePoint,
    check_journal,
    last_known_board,
    recorded_board,
    resume_after_reset,
    resume_same_boot,
)
from ..run.release import release_board
from ..run.robot import Robot
from ..run.runner import MoveListener, Run
from ..sim_url import ONE_OFF_OPTIONS, SimSpec, is_sim
from .held_reset import disk_held_through_reset
from .home import DisksAtStop, put_down_held

#: Asks the operator a question and returns the answer line (None when nobody can answer).
Ask = Callable[[str], str | None]


@dataclass(frozen=True)
class ResumeRequest:
    """What to resume: the run's ``journal``, on ``port`` (None: the journal's), with the robot config at
    ``config_path`` (None: the journal's), ``board`` where the disks are now (a state string, after a reset) and
    ``clear`` to release a latched e-stop."""

    journal: Path
    port: str | None = None
    config_path: str | None = None
    board: str | None = None
    clear: bool = False


@dataclass
class Resumption:
    """A run ready to go on: ``robot`` (open) and ``journal`` (locked) belong to it until :meth:`close`.

    ``point`` says where it goes on; ``said`` what was decided that the user should know ("" if nothing).
    """

    robot: Robot
    journal: Journal
    point: ResumePoint
    plan: Plan
    said: str = ""

    def run(self, on_move_done: MoveListener | None = None) -> Run:
        """The run that goes on from :attr:`point`."""
        return self.point.run(self.robot, self.journal, on_move_done=on_move_done)

    def start_options(self) -> dict[str, bool]:
        """How that run starts (homing and CONFIG only after a reset)."""
        return self.point.start_options()

    def close(self) -> None:
        """Close the journal and the link."""
        self.journal.close()
        self.robot.close()


@dataclass(frozen=True)
class Finished:
    """The journal's run finished: nothing to resume."""

    journal: Path
    moves_done: int


def parse_board(text: str, pegs: int, option: str = "--board") -> State:
    """The state ``text`` on ``pegs`` pegs; StateError naming ``option``."""
    try:
        return State.parse(text, pegs=pegs)
    except StateError as err:
        raise StateError(f"{option}: {err}") from None


def check_colour_board(text: str, board: State, plan: ColourRunPlan) -> None:
    """StateError naming ``--board`` when its numbered disks are no board of the coloured puzzle's set."""
    if board.n_disks != plan.start.n_disks:
        raise StateError(
            f"--board {text}: {board.n_disks} disks, expected the {plan.start.n_disks} coloured disks of the run"
        )
    try:
        colours_of(board.stacks, plan.per_size)
    except StateError as err:
        raise StateError(f"--board {text}: {err}") from None


def last_known_state(log: JournalLog, plan: Plan) -> State:
    """Where the journal last saw the disks: where ``home`` put them, else after its confirmed moves (a disk
    that was moving is counted on the peg it came from)."""
    return recorded_board(log) or plan.state_at(log.moves_done)


def journal_board(path: Path, config_hash: str) -> State:
    """Where the run journaled in ``path`` last saw the disks (:func:`last_known_state`); JournalError for a
    journal of another robot config (``config_hash``) or plan."""
    log = load_journal(path)
    return last_known_state(log, check_journal(log, config_hash, str(path)))


def resume_request(path: Path, robot: Robot, believed: State | None) -> ResumeRequest:
    """Resuming the run journaled in ``path`` on the open ``robot``: on the same board boot as the journal's, as
    the board says; after a reset (another boot), from ``believed``, the board as the host believes it (None:
    :func:`open_resume`'s own rule)."""
    same_boot = load_journal(path).boot_id == robot.boot_id
    return ResumeRequest(path, board=None if same_boot or believed is None else believed.to_string())


def ask_board(log: JournalLog, plan: Plan, why: str, ask: Ask | None) -> State:
    """Ask where the disks are now, showing where the journal last saw them (JournalError when nobody can)."""
    last = last_known_board(log, plan)
    answer = ask(f"{why}. Where are the disks now (last known: {last})? ") if ask is not None else None
    if not answer:
        raise JournalError(f"{why}: confirm where the disks are with --board STATE (last known: {last})")
    return parse_board(answer.strip(), int(log.plan_spec["pegs"]))


def without_board(url: str) -> str:
    """A sim:// URL without ``board=`` (the confirmed board replaces it) and one-off faults (``reset_after=``)."""
    spec = SimSpec.from_url(url)
    return url if spec is None else spec.without("board", *ONE_OFF_OPTIONS).to_url()


def sim_board_from_journal(port: str, journal: Path, config_path: str | None = None) -> tuple[str, str]:
    """A ``sim://`` URL whose new simulated board has the disks where ``journal``'s run last saw them, and that
    sentence; ``port`` unchanged when it already names a board (``board=``)."""
    spec = SimSpec.from_url(port)
    if spec is not None and "board" in dict(spec.options):
        return port, ""
    log = load_journal(journal)
    config = load_config(config_path or log.config_path or None)
    plan = check_journal(log, config.config_hash, str(journal))
    board = last_known_state(log, plan)
    url = sim_port_url(port, board, config_path or log.config_path or None, plan.rules)
    return url, f"a new simulated board, its disks placed where the journal last saw them: {board}"


def carry_on_held_disk(
    robot: Robot, log: JournalLog, plan: Plan, journal: Journal, board: State | None, *, clear: bool = False
) -> tuple[State, str] | None:
    """After a reset whose servos held the arm with the moving disk still in the gripper
    (:func:`~hanoibot.ops.held_reset.disk_held_through_reset`): finish that move (lift clear, carry the disk to the
    peg it was going to, put it down there), record where the disks now are in ``journal``, and return them with
    a sentence saying so. None when there was nothing to carry (nothing moved).

    A board that booted with its e-stop latched (the latch of an in-process board outlives it,
    :mod:`hanoibot.link.urlhandler.bus_latch`) is released only with ``clear``; without it a RunFault names the
    command, and nothing moves.
    """
    if Fault.ESTOP in robot.session.status().faults:
        if not clear:
            raise RunFault(
                f"the board has latched {Fault.ESTOP}: nothing moved; look at the arm, then release it and go on "
                f"with: hanoibot resume --journal {journal.path} --clear"
            )
        release_board(robot.session, clear=True)
    entry = log.open_move
    held = disk_held_through_reset(robot, log, plan, first_cmd_id=log.last_cmd_id + 1, board=board)
    if held is None or entry is None:
        return None
    state, disk, source = held
    target = entry.move.dst
    try:
        after = state.apply(entry.move, plan.rules)
    except IllegalMove as err:
        raise JournalError(f"the gripper holds disk {disk} (its load) but its move cannot be finished: {err}") from None
    put_down_held(robot, DisksAtStop(state, disk, source), target, robot.session.last_sent_cmd + 1)
    journal.record_board(after.to_string())
    said = (
        f"the servos held the arm through the restart and the gripper still held disk {disk} (its load): "
        f"carried it on to peg {peg_letter(target)} as its move meant; the disks are now {after}"
    )
    return after, said


def open_resume(request: ResumeRequest, ask: Ask | None = None, *, robot: Robot | None = None) -> Resumption | Finished:
    """Check the journal against the robot, open the board and decide where the run goes on (nothing moves yet).

    ``robot``: a robot the caller holds open (the console's), used as it is; else one is opened on the port.
    JournalError for a journal of another robot config or plan, or a reset board nobody confirmed; RunFault for
    a board that cannot go on as it is (a latched e-stop without ``clear``, a disk in a reset arm's gripper).
    """
    log = load_journal(request.journal)
    pegs = int(log.plan_spec["pegs"])
    board = parse_board(request.board, pegs) if request.board else recorded_board(log)
    if log.end_status == "done":
        return Finished(request.journal, log.moves_done)
    config_path = request.config_path or log.config_path or None
    config = robot.config if robot is not None else load_config(config_path)
    plan = check_journal(log, config.config_hash, str(request.journal))
    if isinstance(plan, ColourRunPlan):
        config = config.with_colour_disks(plan.sizes, plan.per_size)
        if request.board and board is not None:
            check_colour_board(request.board, board, plan)
    said = ""
    own = robot is None
    if robot is None:
        port = request.port or log.port or "sim://"
        if is_sim(port):
            # An in-process simulated board never outlives its host: a new one, placed as the journal last saw it.
            if board is None:
                board = last_known_state(log, plan)
                said = f"a new simulated board, its disks placed where the journal last saw them: {board}"
            port = sim_port_url(without_board(port), board, config_path, plan.rules)
        robot = Robot(port, config)
    try:
        robot.open()
        journal = Journal.open_append(request.journal)
    except BaseException:
        if own:
            robot.close()
        raise
    try:
        if robot.boot_id == log.boot_id and board is None:
            point = resume_same_boot(log, plan, robot, journal, clear=request.clear)
        else:
            carried = carry_on_held_disk(robot, log, plan, journal, board, clear=request.clear)
            if carried is not None:
                board, said = carried
            why = f"the board was reset (boot {log.boot_id} -> {robot.boot_id})"
            board = board or ask_board(log, plan, why, ask)
            point = resume_after_reset(log, plan, robot, board, clear=request.clear, journal=str(request.journal))
    except BaseException:
        journal.close()
        if own:
            robot.close()
        raise
    return Resumption(robot, journal, point, plan, said)
