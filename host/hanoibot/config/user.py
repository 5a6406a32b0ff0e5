"""The user's own settings, so ``--port`` and ``--config`` need not be typed on every command.

They live in the user's config folder, ``$XDG_CONFIG_HOME/hanoibot`` (default ``~/.config/hanoibot``), written by
``hanoibot init``: ``robot.toml`` (their robot, a copy of the shipped one to calibrate), ``settings.toml``
(``port = "..."``, the remembered port) and, optionally, ``board_config.py`` (their board's wiring, which
``hanoibot deploy`` copies to the board instead of the shipped one).

One rule for every command (:func:`resolve_port`, :func:`resolve_config`): an option given on the command line,
else the environment (``HANOIBOT_PORT``, ``HANOIBOT_CONFIG``), else the user's folder, else the shipped defaults
(``sim://`` and the robot of :func:`~hanoibot.config.default_config_path`).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from ..errors import ConfigError
from .robot_config import default_config_path

#: Environment variables that stand for ``--port`` and ``--config``.
PORT_ENV = "HANOIBOT_PORT"
CONFIG_ENV = "HANOIBOT_CONFIG"
#: The port when nothing names one: the simulated robot.
DEFAULT_PORT = "sim://"
#: File names in the user's config folder.
ROBOT_FILE = "robot.toml"
SETTINGS_FILE = "settings.toml"
BOARD_CONFIG_FILE = "board_config.py"


def config_home() -> Path:
    """The user's hanoibot config folder: ``$XDG_CONFIG_HOME/hanoibot``, else ``~/.config/hanoibot``."""
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "hanoibot"


def user_config_path() -> Path:
    """Where ``hanoibot init`` puts the user's robot config (it may not exist yet)."""
    return config_home() / ROBOT_FILE


def user_board_config() -> Path | None:
    """The user's board wiring (``board_config.py`` in their config folder), or None when they have none."""
    path = config_home() / BOARD_CONFIG_FILE
    return path if path.is_file() else None


def remembered_port() -> str | None:
    """The port ``hanoibot init --port`` remembered, or None (a damaged settings file is a ConfigError)."""
    path = config_home() / SETTINGS_FILE
    try:
        settings = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f'{path} cannot be read: {err}; expected port = "URL" (hanoibot init writes it)') from err
    port = settings.get("port")
    if port is not None and (not isinstance(port, str) or not port.strip()):
        raise ConfigError(f"{path}: port = {port!r} is not a port: expected a serial port or pyserial URL")
    return port


def remember_port(port: str) -> Path:
    """Write ``port`` as the remembered port; returns the settings file."""
    path = config_home() / SETTINGS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    escaped = port.replace("\\", "\\\\").replace('"', '\\"')
    comment = "# Written by hanoibot init: the port every command uses unless told another.\n"
    path.write_text(f'{comment}port = "{escaped}"\n', encoding="utf-8")
    return path


def resolve_port(given: str | None) -> str:
    """The port a command uses: ``given`` (``--port``), else ``$HANOIBOT_PORT``, else the remembered port, else
    ``sim://``."""
    return resolve_port_from(given)[0]


def resolve_port_from(given: str | None) -> tuple[str, str]:
    """The port a command uses (:func:`resolve_port`) and, in words, which step of the rule named it."""
    if given:
        return given, "--port"
    from_env = os.environ.get(PORT_ENV, "").strip()
    if from_env:
        return from_env, f"${PORT_ENV}"
    remembered = remembered_port()
    if remembered:
        return remembered, "the port hanoibot init remembered"
    return DEFAULT_PORT, "no port set: the simulator"


def resolve_config(given: str | Path | None) -> Path:
    """The robot config a command uses: ``given`` (``--config``), else ``$HANOIBOT_CONFIG`` (which must exist),
    else the user's ``robot.toml`` when there is one, else the shipped robot."""
    if given:
        return Path(given)
    from_env = os.environ.get(CONFIG_ENV, "").strip()
    if from_env:
        path = Path(from_env).expanduser()
        if not path.is_file():
            raise ConfigError(f"{CONFIG_ENV}={from_env!r} names no file: expected a robot config TOML")
        return path
    user = user_config_path()
    return user if user.is_file() else default_config_path()
