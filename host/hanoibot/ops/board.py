"""Opening a robot for an operation, reading its status, and clearing a latch: the small operations."""

from __future__ import annotations

from ..config import load_config
from ..link.status import Status
from ..run.release import release_board
from ..run.robot import Robot


def open_robot(port_url: str, config_path: str | None = None) -> Robot:
    """The robot on ``port_url`` with the robot config at ``config_path`` (None: the default), link open.

    PortError, PortBusy (naming the holder), ProtocolMismatch or ConfigError before anything moves.
    """
    robot = Robot(port_url, load_config(config_path))
    robot.open()
    return robot


def status(robot: Robot) -> Status:
    """What the board says about itself now (nothing moves)."""
    return robot.session.status()


def clear(robot: Robot) -> tuple[str, ...]:
    """Release the board's latches and whatever an earlier command left queued or held (the queue is dropped
    first, so nothing that was queued before the latch runs after it); returns the faults that were latched."""
    return release_board(robot.session, clear=True)
