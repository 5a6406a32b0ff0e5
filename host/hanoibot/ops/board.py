"""Opening a robot for an operation, reading its status, and clearing a latch: the small operations."""

from __future__ import annotations

from ..config import RobotConfig, load_config
from ..errors import RunFault
from ..link.status import Mode, Status
from ..puzzle import Rules, State
from ..run.board_setup import check_puzzle_fits_board, sim_config_url, sim_port_url
from ..run.release import SILENCE_FAULTS, release_board
from ..run.robot import Robot
from ..sim_url import is_sim


def open_robot(
    port_url: str,
    config_path: str | None = None,
    *,
    config: RobotConfig | None = None,
    board: State | None = None,
    rules: Rules | None = None,
    watched: bool = False,
    diagnostic: bool = False,
) -> Robot:
    """The robot on ``port_url`` with the robot config at ``config_path`` (None: the default; ``config``: that
    config, already loaded), link open.

    A simulated board (``sim://``, ``vpico://``) gets that config's arm; with ``board`` its disks are placed so
    (``rules``: the puzzle's rules), after a ConfigError unless the robot's board holds them. ``watched``: a person
    watches the simulated arm, whose time then runs at wall speed. ``diagnostic`` as :meth:`Robot.open`.
    PortError, PortBusy (naming the holder), ProtocolMismatch or ConfigError before anything moves; the link is
    closed again on error.
    """
    config = config if config is not None else load_config(config_path)
    if board is not None:
        check_board(config, board)
        url = sim_port_url(port_url, board, config_path, rules)
    else:
        url = sim_config_url(port_url, config_path)
    if watched and is_sim(url) and "realtime=" not in url:
        url += ("&" if "?" in url else "?") + "realtime=1"
    robot = Robot(url, config)
    try:
        robot.open(diagnostic=diagnostic)
    except BaseException:
        robot.close()
        raise
    return robot


def check_board(config: RobotConfig, board: State) -> None:
    """ConfigError unless the robot's board (``config``) has the pegs and the disks of ``board``."""
    check_puzzle_fits_board(config, board.n_disks, board.pegs)


def status(robot: Robot) -> Status:
    """What the board says about itself now (nothing moves)."""
    return robot.session.status()


def rejoin(robot: Robot) -> Status:
    """After a board reset: a fresh session with the board (nothing is replayed); what it says about itself."""
    robot.session.resync()
    return robot.session.status()


def latched_faults(status: Status) -> list[str]:
    """The faults ``status`` shows latched, which refuse motion until a Clear (the board's silence is not one)."""
    return [fault for fault in status.faults if fault not in SILENCE_FAULTS]


def is_estopped(status: Status) -> bool:
    """True when the board holds a latched e-stop (nothing moves until a Clear)."""
    return status.mode is Mode.ESTOP


def clear(robot: Robot) -> tuple[str, ...]:
    """Release the board's latches and whatever an earlier command left queued or held (the queue is dropped
    first, so nothing that was queued before the latch runs after it); returns the faults that were latched."""
    return release_board(robot.session, clear=True)


def prepare_for_jogging(robot: Robot, *, configure: bool = True) -> None:
    """Take the board over (:func:`~hanoibot.run.release.release_board`: motion a stopped run left queued or held
    is dropped, and command ids it may have planned are skipped) without moving it, and with ``configure``
    configure an unconfigured board (its outputs start at the start pose); ``configure=False`` leaves it
    unconfigured (a bus calibration, whose servos go limp, moves nothing before it is done). RunFault while a
    fault other than host silence is latched, naming the command that releases it."""
    status = robot.session.status()
    latched = latched_faults(status)
    if latched:
        raise RunFault(f"the board has latched {', '.join(latched)}: release it with hanoibot home --clear")
    release_board(robot.session, clear=False)
    if configure and robot.session.status().mode is Mode.UNCONFIGURED:
        robot.session.configure(*robot.limits())
