"""The port owner's control socket: how ``hanoibot estop`` reaches the process that holds the port.

The holder of a port (see :mod:`hanoibot.link.port_lock`) listens on a Unix socket beside its lock file. A client
connects and sends one line, ``estop``; the holder's link sends ESTOP to the board at once and answers one line
when the board confirms the latch (``estopped``), or ``closed`` if it let go of the port first. Everything here is
non-blocking on the holder's side (it polls between link reads) and bounded on the client's.
"""

from __future__ import annotations

import contextlib
import socket
import time
from pathlib import Path

#: The one request a client may send.
ESTOP_REQUEST = b"estop\n"
#: Answers: the board latched the e-stop; the holder closed the port before the board confirmed it.
ESTOPPED = "estopped"
CLOSED = "closed"
#: Longest the holder waits for a client's request line once it has accepted the connection, in s.
_REQUEST_READ_S = 0.2
#: Longest request line read, in bytes.
_MAX_REQUEST = 64


class ControlServer:
    """A listening Unix socket at ``path`` (a stale socket file there is replaced); a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # left by a holder that died: the caller holds the port's lock now
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(path))
            sock.listen(4)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        self._sock: socket.socket | None = sock
        self._waiting: list[socket.socket] = []

    @property
    def is_waiting(self) -> bool:
        """True while an e-stop request waits for the board to confirm the latch."""
        return bool(self._waiting)

    def take_estop_requests(self) -> int:
        """Accept every pending connection and read its request; returns how many new e-stop requests came."""
        count = 0
        while self._sock is not None:
            try:
                conn, _ = self._sock.accept()
            except OSError:  # BlockingIOError: nobody is waiting
                break
            try:
                conn.settimeout(_REQUEST_READ_S)
                request = conn.recv(_MAX_REQUEST)
            except OSError:
                conn.close()
                continue
            if request.strip() == ESTOP_REQUEST.strip():
                self._waiting.append(conn)
                count += 1
            else:
                _send_line(conn, "unknown request: expected estop")
        return count

    def answer(self, word: str) -> None:
        """Tell every waiting client ``word`` (ESTOPPED or CLOSED) and hang up on them."""
        waiting, self._waiting = self._waiting, []
        for conn in waiting:
            _send_line(conn, word)

    def close(self) -> None:
        """Answer CLOSED to anyone still waiting, stop listening and remove the socket file."""
        self.answer(CLOSED)
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()
            with contextlib.suppress(OSError):
                self.path.unlink()

    def __enter__(self) -> ControlServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def ask_estop(path: str, timeout_s: float) -> str | None:
    """Ask the port holder listening at ``path`` to e-stop the arm; its answer, or None if there was none within
    ``timeout_s`` s (nobody listening, or the holder hung; a run answers also at its pause prompt)."""
    deadline_s = time.monotonic() + timeout_s
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout_s)
            sock.connect(path)
            sock.sendall(ESTOP_REQUEST)
            answer = b""
            while not answer.endswith(b"\n"):
                left_s = deadline_s - time.monotonic()
                if left_s <= 0:
                    return None
                sock.settimeout(left_s)
                chunk = sock.recv(_MAX_REQUEST)
                if not chunk:
                    break
                answer += chunk
    except OSError:
        return None
    return answer.decode(errors="replace").strip() or None


def _send_line(conn: socket.socket, text: str) -> None:
    """Send one line to a client and hang up (it may have gone already)."""
    with contextlib.suppress(OSError):
        conn.settimeout(_REQUEST_READ_S)
        conn.sendall(text.encode() + b"\n")
    conn.close()
