"""One process owns a port: a lock file per port, in the user's runtime directory, naming who holds it.

The lock is ``fcntl.flock`` on a small file keyed on the normalised port (a device path resolved, so
``/dev/serial/by-id/...`` and ``/dev/ttyACM0`` are one port; a URL such as ``vpico://?attach=PATH`` without its
options). The kernel drops the lock when the holder exits, however it exits, so a lock left by a dead process is
simply taken over. While held, the file says who holds it (pid, command line) and where its control socket is
(see :mod:`hanoibot.link.control`). Files live in ``$XDG_RUNTIME_DIR/hanoibot`` or, without one, in
``<tmp>/hanoibot-<uid>``; never beside the user's files. Lock files of a shared port are never deleted (deleting
a flock file lets two processes lock two different files of one name); releasing empties it.

A board that lives inside the process that opens it (``sim://``, ``vpico://`` without ``attach=``:
:func:`is_in_process`) is no port two processes could share: each has its own board, so each process takes a lock
file of its own (named by its pid, deleted when it lets go) and none is refused. The files still say who runs a
simulated board and where its control socket is, so ``hanoibot estop --port sim://`` from another terminal
reaches every simulated run of the user (:func:`in_process_holders`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from ..errors import PortBusy, PortError
from .control import ControlServer
from .port_schemes import board_in_process

#: Longest part of the port name kept readable in the lock file's name, in characters.
_NAME_CHARS = 40
#: How long to wait for a new holder to write its name into the lock file, in s.
_WRITE_GRACE_S = 0.05


class Holder(NamedTuple):
    """Who holds a port: process id, its command line, the port as it was given, and its control socket path."""

    pid: int
    command: str
    port: str
    control: str


def runtime_dir() -> Path:
    """The per-user directory for lock files and control sockets (created 0700; PortError if not ours)."""
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if base and os.path.isdir(base):
        root = Path(base) / "hanoibot"
    else:
        root = Path(tempfile.gettempdir()) / f"hanoibot-{os.getuid()}"
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        owner = root.stat().st_uid
    except OSError as err:
        raise PortError(f"cannot use the lock directory {str(root)!r}: {err.strerror or err}") from err
    if owner != os.getuid():
        raise PortError(f"the lock directory {str(root)!r} belongs to another user: expected one of our own")
    return root


def port_key(url: str) -> str:
    """The port ``url`` names, normalised: a device path resolved, a URL's scheme lower-case and options dropped."""
    if "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme.lower()}://{rest.split('?', 1)[0].rstrip('/')}"
    return os.path.realpath(url)


def is_in_process(url: str) -> bool:
    """True for a port whose board lives inside the process that opens it, as its registered scheme says
    (:mod:`~hanoibot.link.port_schemes`: ``sim://``, and ``vpico://`` without ``attach=``, a board another process
    serves). Each process that opens one has a board of its own, so two processes never share it: its lock is the
    process's own (:func:`lock_path`), never refused."""
    return board_in_process(url)


def lock_path(url: str) -> Path:
    """The lock file of the port ``url``: a readable name plus a short hash of the normalised port; for a board
    inside the process (:func:`is_in_process`) one per process, named by its pid."""
    key = port_key(url)
    readable = re.sub(r"[^A-Za-z0-9.-]+", "_", key).strip("_")[-_NAME_CHARS:]
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    if is_in_process(url):
        return runtime_dir() / f"port-{readable}-{digest}-pid{os.getpid()}.lock"
    return runtime_dir() / f"port-{readable}-{digest}.lock"


def in_process_holders(url: str) -> list[Holder]:
    """The other processes of this user that run a board of their own on ``url``'s scheme (``sim://``: every
    simulated board; see :func:`is_in_process`), as their lock files say; a file whose process has ended (its
    lock free) is passed over."""
    own = lock_path(url)
    prefix = own.name[: own.name.rindex("-pid") + len("-pid")]
    holders = []
    for path in sorted(own.parent.glob(f"{prefix}*.lock")):
        if path == own or not _is_locked(path):
            continue
        holder = read_holder(path)
        if holder is not None:
            holders.append(holder)
    return holders


def _is_locked(path: Path) -> bool:
    """True while a process holds the lock file at ``path``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def command_line() -> str:
    """How this process was started, as a person would type it (``hanoibot run -n 5``)."""
    program = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"
    if program in ("__main__.py", "hanoibot"):
        return shlex.join(["hanoibot", *sys.argv[1:]])
    if program == "-c":
        return shlex.join(["python", "-c", *sys.argv[1:]])  # the code itself is not in argv
    return shlex.join([program, *sys.argv[1:]])


def busy_message(url: str, holder: Holder | None) -> str:
    """The one line for a port someone else holds (who, and what to do)."""
    who = "another process" if holder is None else f"`{holder.command}` (pid {holder.pid})"
    port = port_key(url) if "://" in url else url  # a URL without the options a command may have added
    return f"port {port} is in use by {who}; stop it first or run `hanoibot estop --port {port}`"


class _Claim:
    """This process's hold on one port: the locked file, how many users in the process share it, the control
    socket (two sessions of one process on ``sim://`` are two simulated boards, so they share the claim)."""

    def __init__(self, fd: int, control: ControlServer | None) -> None:
        self.fd = fd
        self.users = 1
        self.control = control


#: The ports this process holds, by lock file.
_CLAIMS: dict[Path, _Claim] = {}


class PortLock:
    """The lock of one port; :meth:`acquire` takes it (and opens the control socket) or raises PortBusy naming
    the holder; a context manager."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.path = lock_path(url)
        self._claim: _Claim | None = None

    @property
    def is_held(self) -> bool:
        """True while this object holds the lock."""
        return self._claim is not None

    @property
    def control(self) -> ControlServer | None:
        """The control socket this process listens on for the port (None if none could be made, or not held)."""
        return self._claim.control if self._claim is not None else None

    @property
    def control_path(self) -> Path:
        """Where the holder's control socket lives (beside the lock file)."""
        return self.path.with_suffix(".sock")

    def acquire(self) -> None:
        """Take the lock, listen on the control socket and write who holds it; PortBusy if another process has it."""
        if self._claim is not None:
            return
        claim = _CLAIMS.get(self.path)
        if claim is not None:
            claim.users += 1
            self._claim = claim
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = read_holder(self.path)
            if holder is None:  # the holder may have locked the file and not yet written it
                time.sleep(_WRITE_GRACE_S)
                holder = read_holder(self.path)
            raise PortBusy(busy_message(self.url, holder), holder=holder) from None
        try:
            control: ControlServer | None = ControlServer(self.control_path)
        except OSError:
            control = None  # e.g. a path too long for a Unix socket: estop then writes to the port itself
        record = {
            "pid": os.getpid(),
            "command": command_line(),
            "port": self.url,
            "control": str(control.path) if control is not None else "",
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
        self._claim = _CLAIMS[self.path] = _Claim(fd, control)

    def release(self) -> None:
        """Let go of the port; the last user in the process closes the control socket and empties the lock file
        (the file stays; see the module doc)."""
        claim, self._claim = self._claim, None
        if claim is None:
            return
        claim.users -= 1
        if claim.users:
            return
        _CLAIMS.pop(self.path, None)
        if claim.control is not None:
            claim.control.close()
        with contextlib.suppress(OSError):
            os.ftruncate(claim.fd, 0)
            if is_in_process(self.url):  # a file of this process's own name: nobody else ever locks it
                self.path.unlink()
        os.close(claim.fd)

    def __enter__(self) -> PortLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def read_holder(path: Path) -> Holder | None:
    """Who the lock file at ``path`` says holds it (None if it says nothing readable)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        return Holder(int(record["pid"]), str(record["command"]), str(record["port"]), str(record["control"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
