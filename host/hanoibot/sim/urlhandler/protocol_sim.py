"""``sim://`` for pyserial: a port whose far end is the simulated board, in-process, on a virtual clock.

URL: ``sim://[?option=value&...]`` (a :class:`~hanoibot.sim_url.SimSpec`) with the fault options ``flip``,
``drop``, ``insert``, ``dup`` (probabilities), ``seed``, ``reset_after`` (frames), the world options ``board``,
``config``, ``speed``, ``slow`` (the board's chip runs that many times slower than a real Pico: each frame and
control step costs chip time), and ``realtime=1`` to pace virtual time with the wall clock. A read that would block
advances virtual time in control ticks until data arrives or the (virtual) timeout expires, so a long run costs
only CPU time. The port is a :class:`~hanoibot.link.board_port.BoardPort`: its ``clock`` is the
:class:`~hanoibot.clock.VirtualClock` a session reads, its ``board`` the :class:`~hanoibot.sim.board.SimBoard`;
``.wire`` is the faulty wire between them.
"""

from __future__ import annotations

import time
from typing import Any, cast

from serial.serialutil import PortNotOpenError

from ...clock import VirtualClock
from ...link.board_port import DiskWorld
from ...sim_url import parse_spec
from ..board import SimBoard
from ..factory import make_wire
from ..wire import FaultyWire
from .simport import SimulatedPort


def parse_sim_url(url: str) -> dict[str, str]:
    """The query options of a ``sim://`` URL; ConfigError names an unknown, repeated or bad option."""
    return parse_spec(url, "sim").as_dict()


class Serial(SimulatedPort):
    """A pyserial port with a simulated board at the far end: made at the first open, kept across reopens."""

    scheme = "sim"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._clock = VirtualClock()
        self.wire: FaultyWire | None = None
        self.realtime = False
        self._wall_origin_s = 0.0
        self._virtual_origin_s = 0.0
        super().__init__(*args, **kwargs)

    @property
    def clock(self) -> VirtualClock:
        """The virtual clock the board runs on (and a session reads)."""
        return self._clock

    @property
    def board(self) -> SimBoard:
        """The simulated board behind this port (exists once the port is open)."""
        if self.wire is None:
            raise PortNotOpenError()
        return self.wire.board

    @property
    def world(self) -> DiskWorld | None:
        """The arm and disks the board drives (None for a bare board or before the first open)."""
        if self.wire is None or self.wire.board.world is None:
            return None
        return cast(DiskWorld, self.wire.board.world)  # a SimWorld shows its disks as DiskWorld says

    # --- SerialBase ----------------------------------------------------------------------------------
    def open(self) -> None:
        """Boot the simulated board as the URL's options say (first open), or reconnect to it."""
        spec = self._parse_url()
        self.realtime = spec.get("realtime") == "1"
        if self.wire is None:
            # The first open powers the board up; reopening only plugs the cable back in.
            self.wire = make_wire(spec.as_dict(), clock=self._clock)
        self._rx.clear()
        self._wall_origin_s = time.monotonic()
        self._virtual_origin_s = self._clock.now_s()
        self.is_open = True

    @property
    def out_waiting(self) -> int:
        """The simulated wire delivers writes at once."""
        return 0

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes; waits up to ``timeout`` seconds of *virtual* time (None = until data)."""
        if not self.is_open:
            raise PortNotOpenError()
        timeout_s = self._timeout
        deadline_s = None if timeout_s is None else self._clock.now_s() + timeout_s
        board = self.board
        self._pump()
        while len(self._rx) < size and (deadline_s is None or self._clock.now_s() < deadline_s):
            next_s = min(self._clock.now_s() + board.tick_s, board.next_frame_done_s)
            board.run_until(next_s if deadline_s is None else min(next_s, deadline_s))
            self._pace()
            self._pump()
        return self._take(size)

    def write(self, data: bytes) -> int:
        """Send ``data`` to the board at the current virtual time."""
        if not self.is_open or self.wire is None:
            raise PortNotOpenError()
        self.board.catch_up()
        payload = bytes(data)
        self.wire.write(payload)
        return len(payload)

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
        ahead_s = (self._clock.now_s() - self._virtual_origin_s) - (time.monotonic() - self._wall_origin_s)
        if ahead_s > 0:
            time.sleep(ahead_s)
        elif ahead_s < 0:
            self._wall_origin_s = time.monotonic()
            self._virtual_origin_s = self._clock.now_s()
