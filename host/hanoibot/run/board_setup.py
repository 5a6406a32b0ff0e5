"""Setting a robot up for a plan: does the board hold the puzzle, and where does ``sim://`` put its disks.

Shared by ``hanoibot run``/``resume`` and the browser console, which play plans on the same :class:`Robot`.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..motion.robot import RobotConfig
from ..puzzle import Rules, State
from ..sim_url import SimSpec


def check_puzzle_fits_board(config: RobotConfig, n_disks: int, pegs: int) -> None:
    """ConfigError unless the robot's board has at least ``pegs`` pegs and ``n_disks`` disks."""
    source = str(config.source_path or "the robot config")
    if pegs > len(config.board.pegs):
        raise ConfigError(
            f"{pegs} pegs asked but {source} has {len(config.board.pegs)} [[board.pegs]]: add pegs or use --pegs"
        )
    if n_disks > config.board.disk_count:
        raise ConfigError(f"{n_disks} disks asked but {source} declares {config.board.disk_count} in [board]")


def sim_config_url(url: str, config_path: str | None) -> str:
    """``url``, and for ``sim://`` or ``vpico://`` the robot config ``config_path`` too (the simulated arm is then
    the config's: its chain, its channels, its speeds), unless the URL names its own; a board attached in another
    process (``vpico://?attach=PATH``) is left as it is. For the commands that open a robot without a plan."""
    spec = SimSpec.from_url(url)
    if spec is None or spec.is_attached or config_path is None:
        return url
    return spec.with_defaults(config=str(config_path)).to_url()


def sim_port_url(url: str, start: State, config_path: str | None, rules: Rules | None = None) -> str:
    """``url``, and for ``sim://`` or the virtual Pico's ``vpico://`` with the simulated disks placed as ``start``,
    the same robot config and rules (options the URL gives itself stay); a board attached in another process
    (``vpico://?attach=PATH``) is left as it is."""
    spec = SimSpec.from_url(url)
    if spec is None or spec.is_attached:  # a board in another process keeps its disks where they are
        return url
    placed = spec.with_defaults(
        board=start.to_string(),
        rules=None if rules is None else rules.name,
        config=None if config_path is None else str(config_path),
    )
    return placed.to_url()
