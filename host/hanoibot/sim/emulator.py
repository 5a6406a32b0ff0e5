"""The simulated board behind a pseudo-terminal, in wall-clock time: what ``hanoibot emulate`` runs.

The host opens the pty's slave side like any serial port and cannot tell it from a board. The emulator keeps
its own handle on the slave open, so the host may close and reopen the port at will (a host-side unplug).
:meth:`PtyEmulator.replug` closes the pty and makes a new one (the cable was pulled and put back; the board
keeps power and keeps running), and re-points the stable symlink ``link_path`` at it so a reconnecting host
finds it. :meth:`PtyEmulator.power_cycle` reboots the board instead. The loop runs the board's control ticks on
the wall clock and answers input as soon as it arrives. With ``baud`` set, both directions carry at most
``baud / 10`` bytes per second (:class:`~hanoibot.sim.uart.PacedLine`), like a UART; without it the pty's own
speed sets the pace.
"""

from __future__ import annotations

import contextlib
import os
import select
import time
import tty
from pathlib import Path

from ..errors import PortError
from .uart import PacedLine
from .wire import FaultyWire

#: Largest chunk read from the pty at once, in bytes.
_READ_BYTES = 4096


class PtyEmulator:
    """Serve a :class:`FaultyWire` (and its board) on a raw-mode pty until :meth:`stop` is called."""

    def __init__(self, wire: FaultyWire, *, link_path: str | None = None, baud: int | None = None) -> None:
        self.wire = wire
        self._to_board = PacedLine(baud) if baud is not None else None
        self._to_host = PacedLine(baud) if baud is not None else None
        self.link_path = Path(link_path) if link_path is not None else None
        self._master_fd = -1
        self._slave_fd = -1
        self.device_path = ""
        self._stopping = False
        self._replug_pending = False
        self._reset_pending = False
        self._origin_s = time.monotonic() - wire.board.clock.now_s()
        if self.link_path is not None and self.link_path.exists() and not self.link_path.is_symlink():
            raise PortError(
                f"--link {str(self.link_path)!r} already exists and is not a symlink: "
                "expected a free path (hanoibot never replaces a file it did not make)"
            )
        self._make_pty()

    @property
    def port_path(self) -> str:
        """The path a host should open: the stable symlink when there is one, else the pty itself."""
        return str(self.link_path) if self.link_path is not None else self.device_path

    # --- requests (safe to call from a signal handler: they only set flags) --------------------------
    def stop(self) -> None:
        """Ask the loop to finish."""
        self._stopping = True

    def request_replug(self) -> None:
        """Ask the loop to pull the cable and plug it back in (a new pty; the board keeps running)."""
        self._replug_pending = True

    def request_power_cycle(self) -> None:
        """Ask the loop to reboot the board (new boot id)."""
        self._reset_pending = True

    # --- the loop ------------------------------------------------------------------------------------
    def serve(self) -> None:
        """Run until :meth:`stop`; every control tick on time, input answered at once."""
        board = self.wire.board
        try:
            while not self._stopping:
                if self._replug_pending:
                    self._replug_pending = False
                    self.replug()
                if self._reset_pending:
                    self._reset_pending = False
                    board.reset("power")
                wait_s = max(0.0, self._next_wake_s() - time.monotonic())
                with contextlib.suppress(InterruptedError):
                    readable, _, _ = select.select([self._master_fd], [], [], wait_s)
                if readable:
                    self._receive()
                self._deliver()
                board.run_until(time.monotonic() - self._origin_s)
                self._transmit()
        finally:
            self.close()

    def replug(self) -> None:
        """Close the pty (the host sees the port vanish) and open a new one at the same symlink."""
        self._close_pty()
        self._make_pty()

    def close(self) -> None:
        """Close the pty and remove the symlink, if it still is ours (a symlink to our pty)."""
        device_path = self.device_path
        self._close_pty()
        if self.link_path is not None and self.link_path.is_symlink():
            with contextlib.suppress(OSError):
                if os.readlink(self.link_path) == device_path:
                    self.link_path.unlink()

    # --- internals -----------------------------------------------------------------------------------
    def _make_pty(self) -> None:
        """Open a raw pty pair and point the symlink at its slave."""
        self._master_fd, self._slave_fd = os.openpty()
        tty.setraw(self._slave_fd)
        os.set_blocking(self._master_fd, False)
        self.device_path = os.ttyname(self._slave_fd)
        if self.link_path is not None:
            temporary = self.link_path.with_name(self.link_path.name + ".new")
            try:
                with contextlib.suppress(FileNotFoundError):
                    temporary.unlink()
                temporary.symlink_to(self.device_path)
                temporary.replace(self.link_path)
            except OSError as err:
                self._close_pty()
                raise PortError(
                    f"--link {str(self.link_path)!r} cannot be made: {err.strerror}; expected a writable folder"
                ) from err

    def _close_pty(self) -> None:
        """Close both sides of the pty."""
        for fd in (self._master_fd, self._slave_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master_fd = self._slave_fd = -1

    def _next_wake_s(self) -> float:
        """Monotonic time of the next control tick (or event of the board's loop), or the next paced byte, whichever
        is first."""
        wake_s = self._origin_s + self.wire.board.next_wake_s
        for line in (self._to_board, self._to_host):
            due_s = None if line is None else line.next_due_s()
            if due_s is not None:
                wake_s = min(wake_s, due_s)
        return wake_s

    def _receive(self) -> None:
        """Take what the host wrote: straight to the board, or onto the paced line towards it."""
        try:
            data = os.read(self._master_fd, _READ_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            # EIO: no process has the slave open; nothing to read.
            return
        if self._to_board is not None:
            self._to_board.push(data, time.monotonic())
            return
        self._feed(data)

    def _deliver(self) -> None:
        """Hand the board the paced bytes that have arrived by now."""
        if self._to_board is not None:
            data = self._to_board.due(time.monotonic())
            if data:
                self._feed(data)

    def _feed(self, data: bytes) -> None:
        """Move ``data`` into the board and let it answer at the current time."""
        board = self.wire.board
        board.run_until(time.monotonic() - self._origin_s)
        self.wire.write(data)
        board.step()
        self._transmit()

    def _transmit(self) -> None:
        """Send what the board said (paced, if so set); if the host is not reading and the pty is full, the bytes
        are lost."""
        data = self.wire.read()
        if self._to_host is not None:
            now_s = time.monotonic()
            self._to_host.push(data, now_s)
            data = self._to_host.due(now_s)
        while data:
            try:
                written = os.write(self._master_fd, data)
            except (BlockingIOError, InterruptedError, OSError):
                return
            data = data[written:]
