"""Where runs are journaled by default: one file per run in the user's state folder, named by port and time.

The folder is ``$XDG_STATE_HOME/hanoibot/runs`` (``~/.local/state/hanoibot/runs`` without it). A file's name
holds the port (normalised as the port lock does: options dropped, a device path resolved) and the UTC time the
run started, so the newest stopped run of a port is found without flags (``resume``, ``home``), and
``hanoibot runs`` lists them newest first. ``--journal FILE`` still names a file of the user's choice.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..errors import HanoiError, JournalError
from ..link.port_lock import port_key
from ..run.journal import Journal, JournalLog, load_journal
from ..run.outcome import Outcome, word_of_status

#: Readable characters of the port kept in a journal's file name.
_NAME_CHARS = 32
#: The UTC start time in a journal's file name.
STAMP_FORMAT = "%Y%m%dT%H%M%S%fZ"


def runs_dir() -> Path:
    """The folder of default journals (not created here)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "hanoibot" / "runs"


def port_tag(port_url: str) -> str:
    """The part of a journal's file name that names the port: readable, plus a short hash of the normalised port."""
    key = port_key(port_url)
    readable = re.sub(r"[^A-Za-z0-9.-]+", "_", key).strip("_")[-_NAME_CHARS:]
    return f"{readable}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def new_journal(port_url: str, *, folder: Path | None = None, now: datetime | None = None) -> Journal:
    """A new journal for a run on ``port_url`` in ``folder`` (default :func:`runs_dir`, created 0700 if missing)."""
    folder = folder if folder is not None else runs_dir()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        raise JournalError(f"cannot create the journal folder {str(folder)!r}: {err.strerror or err}") from None
    stamp = (now or datetime.now(UTC)).strftime(STAMP_FORMAT)
    return Journal.create(folder / f"{port_tag(port_url)}-{stamp}.journal")


@dataclass(frozen=True)
class RunEntry:
    """One journaled run: its file, its port as recorded, how it ended (``ended`` in words), its progress and when
    it started (from the file's name; None for a name without a time)."""

    path: Path
    port: str
    ended: str
    moves_done: int
    moves_total: int
    started: datetime | None = None

    @property
    def port_name(self) -> str:
        """The port as the user named it: a device path as given (a link path stays the link, not the pty behind
        it), a URL without the options the run added (``sim://``, not its board and config)."""
        if "://" in self.port:
            return port_key(self.port)
        return self.port

    @property
    def is_stopped(self) -> bool:
        """True when the run did not finish (resume or home can go on from it)."""
        return self.ended != Outcome.DONE.word


def _entry(path: Path) -> RunEntry | None:
    """The run in ``path`` (None for a file that is no readable journal with a plan)."""
    try:
        log: JournalLog = load_journal(path)
    except HanoiError:
        return None
    ended = word_of_status(log.end_status)
    total = int(log.plan_spec.get("length", 0))
    return RunEntry(path, log.port, ended, log.moves_done, total, started_at(path))


def _started(path: Path) -> str:
    """The start stamp in a journal's file name (sorts by time)."""
    return path.stem.rpartition("-")[2]


def started_at(path: Path) -> datetime | None:
    """When the run journaled in ``path`` started (UTC), read from the file's name; None if it holds no time."""
    try:
        return datetime.strptime(_started(path), STAMP_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None


def list_runs(port_url: str | None = None, *, folder: Path | None = None) -> list[RunEntry]:
    """Every journaled run in ``folder`` (default :func:`runs_dir`), newest first; only those of ``port_url``
    when given."""
    folder = folder if folder is not None else runs_dir()
    if not folder.is_dir():
        return []
    pattern = f"{port_tag(port_url)}-*.journal" if port_url is not None else "*.journal"
    entries = (_entry(path) for path in sorted(folder.glob(pattern), key=_started, reverse=True))
    return [entry for entry in entries if entry is not None]


def latest_stopped(port_url: str, *, folder: Path | None = None) -> RunEntry | None:
    """The newest run on ``port_url`` that did not finish, or None when its newest run finished (or it has none)."""
    runs = list_runs(port_url, folder=folder)
    return runs[0] if runs and runs[0].is_stopped else None


def journal_for(port_url: str, given: str | None) -> Path | None:
    """The journal a recovery command works on: ``given`` (``--journal FILE``), else the newest stopped run on
    ``port_url`` (None when there is none)."""
    if given is not None:
        if not given.strip():
            raise JournalError("--journal is empty: expected the journal file of the run that stopped")
        return Path(given)
    entry = latest_stopped(port_url)
    return entry.path if entry is not None else None
