"""The one place that writes a robot config: edits are collected, applied to the TOML with tomlkit (its comments
and layout kept), the result is validated exactly as it will be loaded, and only then is the file written (to a
temporary file beside it, moved over it in one step: a crash leaves the old file or the new one, never half).

``hanoibot calibrate`` (pegs, grip threshold, and from the bus each servo's calibration and pulse limits) and
``hanoibot init`` save through :class:`ConfigWriter`.
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
        self._servo_keys: dict[str, dict[str, float | int]] = {}
        self._servo_notes: dict[str, str] = {}
        self._joint_limits: dict[str, tuple[float, float]] = {}

    @property
    def has_edits(self) -> bool:
        """True once anything was set."""
        return (
            bool(self._pegs_mm) or self._grip_threshold_u16 is not None or bool(self._servo_keys or self._joint_limits)
        )

    def set_joint_limits(self, name: str, min_deg: float, max_deg: float) -> None:
        """The arm joint ``name``'s ``min_deg`` and ``max_deg`` (``[arm.<name>]``, or its ``[[arm.joints]]`` entry)."""
        self._joint_limits[name] = (min_deg, max_deg)

    def set_servo_calibration(self, name: str, offset_deg: float, direction: int, us_per_deg: float) -> None:
        """``[servos.<name>]``'s linear calibration: ``offset_deg`` (rounded to 0.01 deg), ``direction`` (1 or -1)
        and ``us_per_deg`` (rounded to 0.0001); a ``points_deg_us`` calibration there is replaced."""
        keys = self._servo_keys.setdefault(name, {})
        keys.update(offset_deg=round(offset_deg, 2), direction=int(direction), us_per_deg=round(us_per_deg, 4))

    def set_servo_limits(self, name: str, min_us: int, max_us: int, note: str = "") -> None:
        """``[servos.<name>]``'s pulse limits in µs, with ``note`` as a comment on ``min_us`` (how they were found)."""
        self._servo_keys.setdefault(name, {}).update(min_us=int(min_us), max_us=int(max_us))
        if note:
            self._servo_notes[name] = note

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
        for name, keys in self._servo_keys.items():
            servos: Any = document["servos"]
            if name not in servos:
                raise ConfigError(f"[servos] has no servo {name!r} to set")
            table = servos[name]
            if "offset_deg" in keys and "points_deg_us" in table:
                del table["points_deg_us"]
                table.setdefault("center_us", 1500)
            for key, value in keys.items():
                table[key] = value
            if name in self._servo_notes:
                table["min_us"].comment(self._servo_notes[name])
        for name, (min_deg, max_deg) in self._joint_limits.items():
            joint = _joint_table(document, name)
            joint["min_deg"], joint["max_deg"] = min_deg, max_deg
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


def _joint_table(document: Any, name: str) -> Any:
    """The table of arm joint ``name``: ``[arm.<name>]`` or the ``[[arm.joints]]`` entry of that name."""
    arm = document.get("arm", {})
    if name in arm:
        return arm[name]
    for joint in arm.get("joints", []):
        if joint.get("name") == name:
            return joint
    raise ConfigError(f"[arm] has no joint {name!r} to set the limits of")


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
