"""Starting a run: check the plan fits the robot, open the board, take it over, journal it (by default).

:func:`open_run` does everything that can refuse before the front end shows anything (a board that does not hold
the puzzle, a latched fault, a disk in the gripper, a journal that cannot be written), so a refused run prints
one line and no progress header. The front end then starts :attr:`Started.job` and follows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..config import RobotConfig
from ..planner.base import Plan
from ..puzzle import Move, Rules, State
from ..run.journal import Journal
from ..run.robot import Robot
from ..run.runner import MoveListener, Run, take_over
from .board import open_robot
from .journals import new_journal


class OneMovePlan(Plan):
    """A plan of exactly one move (the console's ``Play my move on the arm``)."""

    method = "one-move"

    def __init__(self, start: State, move: Move, rules: Rules) -> None:
        super().__init__(start, start.apply(move, rules), rules, 1)
        self._move = move

    def move_at(self, k: int) -> Move:
        """The move (``k`` must be 0)."""
        self.check_index(k)
        return self._move


@dataclass(frozen=True)
class RunRequest:
    """A run of ``plan`` on ``port`` with ``config`` (read from ``config_path``, None: the default robot).

    ``journal_path`` names the journal (None: a new one in the state folder, :mod:`.journals`);
    ``journal_folder`` puts that default one elsewhere; ``journaled`` False runs without one (one move from the
    console's board game).
    """

    plan: Plan
    config: RobotConfig
    port: str = "sim://"
    config_path: str | None = None
    journal_path: str | None = None
    journal_folder: Path | None = None
    journaled: bool = True


@dataclass
class Started:
    """A run ready to start: ``robot`` (open, taken over) and ``journal`` belong to it until :meth:`close`."""

    robot: Robot
    job: Run
    journal: Journal | None

    def close(self) -> None:
        """Close the journal and the link."""
        if self.journal is not None:
            self.journal.close()
        self.robot.close()


def open_run(
    request: RunRequest,
    *,
    robot: Robot | None = None,
    board_state: State | None = None,
    on_move_done: MoveListener | None = None,
) -> Started:
    """Open (or use the open ``robot``), take the board over and make the run; nothing moves yet.

    ``board_state`` is where the disks are (None: the plan's start). A ``robot`` given was opened with its board
    (:func:`~hanoibot.ops.board.open_robot` checked that it holds the puzzle).

    ConfigError when the robot's board cannot hold the plan; RunFault for a latched fault or a disk in the
    gripper; JournalError for a journal that cannot be made. On error a robot this call opened is closed again.
    """
    plan = request.plan
    own = robot is None
    if robot is None:
        robot = open_robot(request.port, request.config_path, config=request.config, board=plan.start, rules=plan.rules)
    try:
        robot.open()  # a robot given may not be open yet
        take_over(robot)
        journal = _journal(request, robot.port_url)
    except BaseException:
        if own:
            robot.close()
        raise
    job = Run(robot, plan, journal=journal, board_state=board_state, on_move_done=on_move_done)
    job.taken_over = True
    return Started(robot, job, journal)


def _journal(request: RunRequest, port_url: str) -> Journal | None:
    """The run's journal as ``request`` asks: its file, a new default one, or none."""
    if not request.journaled:
        return None
    if request.journal_path is not None:
        return Journal.create(request.journal_path)
    return new_journal(request.port or port_url, folder=request.journal_folder)
