"""The e-stop latch of a board run in the host's process (``feetech://``), kept beside the user's journals so that it
outlives the process, as a board's latch outlives the host that set it.

A MicroPython board keeps ESTOP latched until a CLEAR, whichever host comes and goes; the servos hold the pose
meanwhile. The board of ``feetech://`` lives in a hanoibot process, so without this the latch would end with that
process (the run that was e-stopped exits, or ``hanoibot estop`` opened a free port, latched it and closed it) and
the next command would meet a board that lets the arm move without anyone having said ``--clear``; the servos,
which hold the pose on their own power, would have been stopped by nothing. :class:`BusLatch` writes one small
file per bus device while ESTOP is latched and removes it on CLEAR; the next board on that device boots with ESTOP
latched. The folder is ``$XDG_STATE_HOME/hanoibot/feetech`` (``~/.local/state/hanoibot/feetech`` without it).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from pathlib import Path

#: Characters of the device's name kept readable in the file's name.
NAME_CHARS = 40


def latch_dir() -> Path:
    """The folder of the latch files (created when one is written)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "hanoibot" / "feetech"


class BusLatch:
    """The e-stop latch file of the bus adapter ``device`` (a device path, resolved through symlinks, or a pyserial
    URL)."""

    def __init__(self, device: str) -> None:
        key = device if "://" in device else os.path.realpath(device)
        readable = re.sub(r"[^A-Za-z0-9.-]+", "_", key).strip("_")[-NAME_CHARS:]
        self.path = latch_dir() / f"{readable}-{hashlib.sha256(key.encode()).hexdigest()[:8]}.estop"
        self._latched: bool | None = None

    def is_latched(self) -> bool:
        """True when a board on this device was left with ESTOP latched."""
        return self.path.exists()

    def keep(self, latched: bool) -> None:
        """Record that ESTOP is (``latched``) or is not latched now; only a change touches the file. OSError (a
        state folder that cannot be written) is not raised: the board goes on, the latch then lives in it alone."""
        if latched == self._latched:
            return
        self._latched = latched
        with contextlib.suppress(OSError):
            if latched:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.path.write_text("ESTOP\n", encoding="ascii")
            else:
                self.path.unlink(missing_ok=True)
