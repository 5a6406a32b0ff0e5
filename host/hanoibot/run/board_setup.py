"""Setting a robot up for a plan: does the board hold the puzzle, and where does ``sim://`` put its disks.

Shared by ``hanoibot run``/``resume`` and the browser console, which play plans on the same :class:`Robot`.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, urlsplit

from ..errors import ConfigError
from ..motion.robot import RobotConfig
from ..puzzle import Rules, State


def check_board_fits(config: RobotConfig, n_disks: int, pegs: int) -> None:
    """ConfigError unless the robot's board has at least ``pegs`` pegs and ``n_disks`` disks."""
    source = str(config.source_path or "the robot config")
    if pegs > len(config.board.pegs):
        raise ConfigError(
            f"{pegs} pegs asked but {source} has {len(config.board.pegs)} [[board.pegs]]: add pegs or use --pegs"
        )
    if n_disks > config.board.disk_count:
        raise ConfigError(f"{n_disks} disks asked but {source} declares {config.board.disk_count} in [board]")


#: Ports whose far end is a simulated world the host sets up: ``sim://`` and the virtual Pico, ``vpico://``.
SIMULATED_SCHEMES = ("sim", "vpico")


def sim_port_url(url: str, start: State, config_path: str | None, rules: Rules | None = None) -> str:
    """``url``, and for ``sim://`` or ``vpico://`` with the simulated disks placed as ``start``, the same robot
    config and rules (options the URL gives itself stay)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in SIMULATED_SCHEMES:
        return url
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    extra = []
    if "board" not in options:
        extra.append(f"board={quote(start.to_string(), safe='')}")
    if rules is not None and "rules" not in options:
        extra.append(f"rules={quote(rules.name, safe='')}")
    if config_path is not None and "config" not in options:
        extra.append(f"config={quote(str(config_path), safe='')}")
    query = "&".join(q for q in (parts.query, *extra) if q)
    return f"{scheme}://{parts.netloc}?{query}" if query else f"{scheme}://{parts.netloc}"
