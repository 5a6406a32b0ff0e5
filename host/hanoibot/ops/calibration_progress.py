"""Where a calibration session stands, kept between runs of ``hanoibot calibrate`` so an interrupted one goes on.

Each peg is written into the robot config as soon as the person confirms it (through
:class:`~hanoibot.config.writer.ConfigWriter`); this record says which pegs of which config file a session has
confirmed, so the next ``hanoibot calibrate`` on that file starts at the first peg it has not. It lives in the
user's state folder (``$XDG_STATE_HOME/hanoibot/calibration/``, beside the journals), one small JSON file per
config file, and is removed once the session has ended (every peg confirmed and the grip step measured or
skipped). It is trusted only while the config file still holds the confirmed positions: a file edited since (by
hand, or by another calibration) starts a new session.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from .journals import runs_dir

#: How close a confirmed position must be to the file's, in mm (positions are saved to 0.1 mm).
SAME_MM = 0.05


def progress_dir() -> Path:
    """The folder of calibration records (beside the journals' folder; not created here)."""
    return runs_dir().parent / "calibration"


def progress_path(config: Path) -> Path:
    """The record of a session calibrating the robot config at ``config``."""
    key = str(config.resolve())
    return progress_dir() / f"{config.stem}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.json"


@dataclass
class CalibrationProgress:
    """The pegs (index -> (x_mm, y_mm)) a session confirmed and saved into ``config``; ``pegs_total`` pegs in all;
    ``started`` when the session began (UTC, ISO 8601)."""

    config: Path
    pegs_total: int
    confirmed: dict[int, tuple[float, float]] = field(default_factory=dict)
    started: str = ""

    @property
    def path(self) -> Path:
        """Where this record is kept."""
        return progress_path(self.config)

    @property
    def next_peg(self) -> int:
        """The first peg not yet confirmed (``pegs_total`` when every peg is)."""
        peg = 0
        while peg in self.confirmed:
            peg += 1
        return peg

    def confirm(self, peg: int, x_mm: float, y_mm: float) -> None:
        """Peg number ``peg`` (0 = A) was saved at (``x_mm``, ``y_mm``): record it (the file is written at once)."""
        self.confirmed[peg] = (x_mm, y_mm)
        if not self.started:
            self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self._write()

    def finish(self) -> None:
        """The session ended: forget it (the next calibration starts at the first peg)."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def _write(self) -> None:
        """Write the record (to a temporary file moved over it in one step)."""
        folder = self.path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        record = {
            "config": str(self.config.resolve()),
            "pegs_total": self.pegs_total,
            "confirmed": {str(peg): list(point) for peg, point in sorted(self.confirmed.items())},
            "started": self.started,
        }
        temporary = self.path.with_name(self.path.name + ".new")
        temporary.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, self.path)


def load_progress(config: Path, pegs_total: int) -> tuple[CalibrationProgress, str]:
    """The session under way on ``config`` (a fresh one when there is none) and, when an earlier record was found
    but cannot be trusted, why it was set aside ("" otherwise)."""
    fresh = CalibrationProgress(config, pegs_total)
    try:
        record = json.loads(fresh.path.read_text(encoding="utf-8"))
        confirmed = {int(peg): (float(x), float(y)) for peg, (x, y) in record["confirmed"].items()}
        started, total = str(record.get("started", "")), int(record["pegs_total"])
    except FileNotFoundError:
        return fresh, ""
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        fresh.finish()
        return fresh, "the record of an earlier calibration could not be read: starting at the first peg"
    if total != pegs_total:
        fresh.finish()
        return fresh, f"an earlier calibration was of {total} pegs, the config now has {pegs_total}: starting again"
    changed = [peg for peg, point in confirmed.items() if _moved(config, peg, point)]
    if changed:
        fresh.finish()
        return fresh, f"{config} changed since an earlier calibration saved its pegs: starting at the first peg"
    return CalibrationProgress(config, pegs_total, confirmed, started), ""


def saved_peg(config: Path, peg: int) -> tuple[float, float] | None:
    """Peg number ``peg``'s (x_mm, y_mm) as the file ``config`` holds them (None when it cannot say)."""
    try:
        pegs = tomllib.loads(config.read_text(encoding="utf-8"))["board"]["pegs"]
        return float(pegs[peg]["x_mm"]), float(pegs[peg]["y_mm"])
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, IndexError, TypeError, ValueError):
        return None


def _moved(config: Path, peg: int, point: tuple[float, float]) -> bool:
    """True when the file no longer holds ``point`` for peg number ``peg``."""
    saved = saved_peg(config, peg)
    return saved is None or any(abs(a - b) > SAME_MM for a, b in zip(saved, point, strict=True))
