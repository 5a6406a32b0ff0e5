"""The one place that writes a robot config: edits are collected, applied to the TOML with tomlkit (its comments
and layout kept), the result is validated exactly as it will be loaded, and only then is the file written (to a
temporary file beside it, moved over it in one step: a crash leaves the old file or the new one, never half).

``hanoibot calibrate`` (pegs and grip threshold) and ``hanoibot init`` save through :class:`ConfigWriter`.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..motion.robot import RobotConfig
from .robot_config import is_packaged_config, parse_config


class ConfigWriter:
    """Edits to the robot config read from ``source``; :meth:`save` writes them (to ``source`` or another file)."""

    def __init__(self, source: Path) -> None:
        self.source = source
        try:
            self._text = source.read_text(encoding="utf-8")
        except OSError as err:
            raise ConfigError(f"cannot read robot config {str(source)!r}: {err.strerror or err}") from err
        self._pegs_mm: dict[int, tuple[float, float]] = {}
        self._grip_threshold_u16: int | None = None

    @property
    def has_edits(self) -> bool:
        """True once anything was set."""
        return bool(self._pegs_mm) or self._grip_threshold_u16 is not None

    def set_peg(self, index: int, x_mm: float, y_mm: float) -> None:
        """Peg number ``index`` (0 = A) stands at (``x_mm``, ``y_mm``), rounded to 0.1 mm."""
        self._pegs_mm[index] = (round(x_mm, 1), round(y_mm, 1))

    def forget_peg(self, index: int) -> None:
        """Drop the edit of peg number ``index`` (the config's own position stands again)."""
        self._pegs_mm.pop(index, None)

    def set_grip_threshold(self, threshold_u16: int) -> None:
        """``[gripper] grip_threshold_u16``: the grip sensor reading (0..65535) above which a disk is held."""
        self._grip_threshold_u16 = int(threshold_u16)

    def text(self) -> str:
        """The config's TOML with every edit applied."""
        import tomlkit

        document = tomlkit.parse(self._text)
        pegs: Any = document["board"]["pegs"]
        for index, (x_mm, y_mm) in sorted(self._pegs_mm.items()):
            if not 0 <= index < len(pegs):
                raise ConfigError(f"[board.pegs] has {len(pegs)} pegs: there is no peg number {index + 1} to set")
            pegs[index]["x_mm"] = x_mm
            pegs[index]["y_mm"] = y_mm
        if self._grip_threshold_u16 is not None:
            gripper: Any = document["gripper"]
            gripper["grip_threshold_u16"] = self._grip_threshold_u16
        return tomlkit.dumps(document)

    def save(self, target: Path | None = None) -> RobotConfig:
        """Validate the edited config as it would be loaded from ``target`` (default: the source) and write it
        there in one step; returns the config as loaded. ConfigError (nothing written) when it would not load
        or when ``target`` is the packaged config (it lies inside the installed package)."""
        path = target if target is not None else self.source
        if is_packaged_config(path):
            raise ConfigError(
                f"{path} is the robot config packaged with hanoibot and is never written: "
                "run hanoibot init for a config of your own, or pass --output FILE"
            )
        text = self.text()
        config = parse_config(text.encode(), source_path=path)  # never write a config that would not load
        write_atomically(path, text)
        return config


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, replaced in one step."""
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as temp:
            temp.write(text)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, _mode_for(path))
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise


def _mode_for(path: Path) -> int:
    """The permission bits ``path`` has, or for a new file what the umask leaves of 0o666."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
