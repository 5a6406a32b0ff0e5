"""The virtual Pico's USB serial on a pseudo-terminal: what ``hanoibot emulate --pico`` serves.

A host program (``hanoibot``, ``mpremote``, a serial terminal) opens the pty like ``/dev/ttyACM0``. Bytes from
the host reach the board only as fast as its firmware empties the 512-byte USB FIFO: while the FIFO is full the
bridge stops reading the pty, the kernel's pty buffer fills and the host's writes wait, as with a real board.
"""

from __future__ import annotations

import contextlib
import os
import select
import tty
from pathlib import Path

from ...errors import PortError
from .process import USB_FIFO_BYTES, VirtualPico

#: How often the bridge looks at the board's output when the host is quiet, in s.
POLL_S = 0.005


class PicoPty:
    """Serve a started :class:`VirtualPico` on a raw-mode pty until :meth:`stop`; ``link_path`` (optional)
    is kept pointing at the pty."""

    def __init__(self, pico: VirtualPico, *, link_path: str | None = None) -> None:
        self.pico = pico
        self.link_path = Path(link_path) if link_path is not None else None
        self._stopping = False
        self._replug = False
        self._power_cycle = False
        self._master_fd = self._slave_fd = -1
        self.device_path = ""
        self._plug_in()

    def _plug_in(self) -> None:
        """A new pty, with the symlink pointed at it."""
        self._master_fd, self._slave_fd = os.openpty()
        tty.setraw(self._slave_fd)
        os.set_blocking(self._master_fd, False)
        self.device_path = os.ttyname(self._slave_fd)
        if self.link_path is not None:
            try:
                with contextlib.suppress(FileNotFoundError):
                    self.link_path.unlink()
                self.link_path.symlink_to(self.device_path)
            except OSError as err:
                self.close()
                raise PortError(
                    f"--link {str(self.link_path)!r} cannot be made: {err.strerror}; expected a writable folder"
                ) from err

    @property
    def port_path(self) -> str:
        """The path a host should open: the symlink when there is one, else the pty."""
        return str(self.link_path) if self.link_path is not None else self.device_path

    def stop(self) -> None:
        """Ask :meth:`serve` to return (safe from a signal handler)."""
        self._stopping = True

    def request_replug(self) -> None:
        """Ask :meth:`serve` to pull the virtual cable and plug it back in: a new pty behind the same symlink, the
        board keeps running (safe from a signal handler)."""
        self._replug = True

    def request_power_cycle(self) -> None:
        """Ask :meth:`serve` to switch the board off and on (safe from a signal handler)."""
        self._power_cycle = True

    def serve(self) -> None:
        """Copy bytes both ways until :meth:`stop` or the board's emulator ends."""
        try:
            while not self._stopping and self.pico.is_running:
                if self._replug:
                    self._replug = False
                    self._unplug()
                    self._plug_in()
                if self._power_cycle:
                    self._power_cycle = False
                    self.pico.power_cycle()
                room = USB_FIFO_BYTES - self.pico.in_flight
                readers = [self._master_fd] if room > 0 else []
                with contextlib.suppress(InterruptedError):
                    readable, _, _ = select.select(readers, [], [], POLL_S)
                    if readable:
                        self._from_host(room)
                self._to_host(self.pico.read_available())
        finally:
            self.close()

    def _unplug(self) -> None:
        """Close the pty (the host sees its port vanish)."""
        for fd in (self._master_fd, self._slave_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._master_fd = self._slave_fd = -1

    def close(self) -> None:
        """Close the pty and remove the symlink."""
        self._unplug()
        if self.link_path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.link_path.unlink()

    def _from_host(self, room: int) -> None:
        try:
            data = os.read(self._master_fd, room)
        except (BlockingIOError, InterruptedError, OSError):
            return  # EIO: no process has the slave open
        if data:
            self.pico.write(data, timeout_s=None)

    def _to_host(self, data: bytes) -> None:
        """Send the board's output; if the host is not reading and the pty is full, the bytes are lost."""
        while data:
            try:
                written = os.write(self._master_fd, data)
            except (BlockingIOError, InterruptedError, OSError):
                return
            data = data[written:]
