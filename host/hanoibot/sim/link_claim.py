"""One emulator per ``--link`` path: a second ``hanoibot emulate --link L`` is refused, naming the first.

Without it a second emulator re-pointed the first one's symlink at its own pty (hosts that opened ``L`` then
reached the second board) and deleted the link when it ended, so the first board became unreachable. The claim
is ``fcntl.flock`` on a small file in the user's runtime directory (:func:`hanoibot.link.port_lock.runtime_dir`)
keyed on the link's absolute path (its folder resolved, the link itself not: it is ours to re-point); the kernel
drops it when the emulator exits however it exits, so a link left by a killed emulator is taken over. While held
the file says who holds it, as a port's lock file does.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import time
from pathlib import Path

from ..errors import PortBusy
from ..link.port_lock import Holder, command_line, read_holder, runtime_dir

#: Longest part of the link's path kept readable in the claim file's name, in characters.
_NAME_CHARS = 40
#: How long to wait for a new holder to write its name into the claim file, in s.
_WRITE_GRACE_S = 0.05


def link_key(link: str | Path) -> str:
    """``link`` as one name for every way of writing it: absolute, its folder resolved, the link itself not."""
    path = Path(os.path.abspath(link))
    return str(Path(os.path.realpath(path.parent)) / path.name)


def claim_path(link: str | Path) -> Path:
    """The claim file of the link path ``link``."""
    key = link_key(link)
    readable = re.sub(r"[^A-Za-z0-9.-]+", "_", key).strip("_")[-_NAME_CHARS:]
    return runtime_dir() / f"link-{readable}-{hashlib.sha256(key.encode()).hexdigest()[:8]}.lock"


def in_use_message(link: str | Path, holder: Holder | None) -> str:
    """The one line for a link path another emulator serves."""
    who = "another hanoibot emulate" if holder is None else f"`{holder.command}` (pid {holder.pid})"
    return f"--link {link} is in use by {who}: stop it first, or give another --link path"


class LinkClaim:
    """This process's claim on the link path ``link``; :meth:`acquire` takes it or raises PortBusy naming the
    emulator that has it. A context manager."""

    def __init__(self, link: str | Path) -> None:
        self.link = link
        self.path = claim_path(link)
        self._fd = -1

    def acquire(self) -> None:
        """Take the claim and write who holds it; PortBusy (one line) when another process has it."""
        if self._fd >= 0:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = read_holder(self.path)
            if holder is None:  # it may have taken the claim and not yet written its name
                time.sleep(_WRITE_GRACE_S)
                holder = read_holder(self.path)
            raise PortBusy(in_use_message(self.link, holder), holder=holder) from None
        record = {"pid": os.getpid(), "command": command_line(), "port": link_key(self.link), "control": ""}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Let go of the link path (the file stays, emptied: see :mod:`hanoibot.link.port_lock`)."""
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.ftruncate(fd, 0)
            os.close(fd)

    def __enter__(self) -> LinkClaim:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
