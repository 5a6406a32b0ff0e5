"""``sim://`` for pyserial: a port whose far end is the simulated board, in-process, on a virtual clock.

URL: ``sim://[?option=value&...]`` with the fault options ``flip``, ``drop``, ``insert``, ``dup`` (probabilities),
``seed``, ``reset_after`` (frames), the world options ``board``, ``config``, ``speed``, ``slow`` (the board's chip
runs that many times slower than a real Pico: each frame and control step costs chip time), and ``realtime=1`` to pace
virtual time with the wall clock. A read that would block advances virtual time in control ticks until data
arrives or the (virtual) timeout expires, so a long run costs only CPU time. The port offers ``.board`` (the
:class:`~hanoibot.sim.board.SimBoard`), ``.wire`` and ``.clock`` (the :class:`~hanoibot.clock.VirtualClock` a
session should read). Registered by importing :mod:`hanoibot.link`.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from ...clock import VirtualClock
from ...errors import ConfigError
from ...sim.board import SimBoard
from ...sim.factory import BOARD_OPTIONS, FAULT_OPTIONS, WORLD_OPTIONS, make_wire
from ...sim.wire import FaultyWire

KNOWN_OPTIONS = (*FAULT_OPTIONS, *WORLD_OPTIONS, *BOARD_OPTIONS, "realtime")


def parse_sim_url(url: str) -> dict[str, str]:
    """The query options of a ``sim://`` URL; ConfigError names an unknown, repeated or bad option."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "sim" or parts.netloc or parts.path not in ("", "/"):
        raise ConfigError(f"port URL {url!r} is not a sim:// URL: expected sim://[?option=value&...]")
    options: dict[str, str] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name not in KNOWN_OPTIONS:
            raise ConfigError(f"sim:// option {name!r} is unknown: expected one of {', '.join(KNOWN_OPTIONS)}")
        if name in options:
            raise ConfigError(f"sim:// option {name!r} is given twice: expected it at most once")
        options[name] = value
    if options.get("realtime", "0") not in ("0", "1"):
        raise ConfigError(f"sim:// option realtime={options['realtime']!r} is invalid: expected 0 or 1")
    return options


class Serial(SerialBase):
    """A pyserial port with a simulated board at the far end: made at the first open, kept across reopens."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.clock = VirtualClock()
        self.wire: FaultyWire | None = None
        self.realtime = False
        self._rx = bytearray()
        self._wall_origin_s = 0.0
        self._virtual_origin_s = 0.0
        super().__init__(*args, **kwargs)

    @property
    def board(self) -> SimBoard:
        """The simulated board behind this port (exists once the port is open)."""
        if self.wire is None:
            raise PortNotOpenError()
        return self.wire.board

    # --- SerialBase ----------------------------------------------------------------------------------
    def open(self) -> None:
        """Boot the simulated board as the URL's options say (first open), or reconnect to it."""
        if self.is_open:  # type: ignore[has-type]
            raise SerialException("sim:// port is already open")
        if self._port is None:
            raise SerialException("sim:// port must be configured before it is opened")
        options = parse_sim_url(self._port)
        self.realtime = options.get("realtime") == "1"
        if self.wire is None:
            # The first open powers the board up; reopening only plugs the cable back in.
            self.wire = make_wire(options, clock=self.clock)
        self._rx.clear()
        self._wall_origin_s = time.monotonic()
        self._virtual_origin_s = self.clock.now_s()
        self.is_open = True

    def close(self) -> None:
        """Disconnect from the board (the board object stays readable on :attr:`wire`)."""
        self.is_open = False

    def _reconfigure_port(self, force_update: bool = False) -> None:
        """Baud rate and framing mean nothing to the simulated wire."""

    def _update_dtr_state(self) -> None:
        """No modem lines on the simulated wire."""

    def _update_rts_state(self) -> None:
        """No modem lines on the simulated wire."""

    def _update_break_state(self) -> None:
        """No break condition on the simulated wire."""

    @property
    def in_waiting(self) -> int:
        """Bytes that can be read at once (after running the board at the current virtual time)."""
        self._pump()
        return len(self._rx)

    @property
    def out_waiting(self) -> int:
        """The simulated wire delivers writes at once."""
        return 0

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes; waits up to ``timeout`` seconds of *virtual* time (None = until data)."""
        if not self.is_open:
            raise PortNotOpenError()
        timeout_s = self._timeout
        deadline_s = None if timeout_s is None else self.clock.now_s() + timeout_s
        board = self.board
        self._pump()
        while len(self._rx) < size and (deadline_s is None or self.clock.now_s() < deadline_s):
            next_s = min(self.clock.now_s() + board.tick_s, board.next_frame_done_s)
            board.run_until(next_s if deadline_s is None else min(next_s, deadline_s))
            self._pace()
            self._pump()
        data = bytes(self._rx[:size])
        del self._rx[:size]
        return data

    def write(self, data: bytes) -> int:
        """Send ``data`` to the board at the current virtual time."""
        if not self.is_open or self.wire is None:
            raise PortNotOpenError()
        self.board.catch_up()
        payload = bytes(data)
        self.wire.write(payload)
        return len(payload)

    def reset_input_buffer(self) -> None:
        """Forget what the board sent and nobody read yet."""
        self._pump()
        self._rx.clear()

    def reset_output_buffer(self) -> None:
        """Nothing waits in the output direction."""

    # --- internals -----------------------------------------------------------------------------------
    def _pump(self) -> None:
        """Run the board at the current time and collect what it sent."""
        if self.wire is None:
            return
        self.wire.board.catch_up()
        self.wire.board.step()
        self._rx += self.wire.read()

    def _pace(self) -> None:
        """With ``realtime=1``, sleep so that virtual time does not run ahead of the wall clock.

        Virtual time that fell behind (the host was idle, or busy) is never made up at full speed: the pacing starts
        again from now, so the arm never moves faster than it would on a real board."""
        if not self.realtime:
            return
        ahead_s = (self.clock.now_s() - self._virtual_origin_s) - (time.monotonic() - self._wall_origin_s)
        if ahead_s > 0:
            time.sleep(ahead_s)
        elif ahead_s < 0:
            self._wall_origin_s = time.monotonic()
            self._virtual_origin_s = self.clock.now_s()
