"""``vpico://`` for pyserial: a port whose far end is the virtual Pico (stock MicroPython on an emulated RP2040).

URL: ``vpico://[?option=value&...]`` (a :class:`~hanoibot.sim_url.SimSpec`) with ``servo=pwm|pca9685|sts`` (how
the virtual board drives its servos, written into its board_config.py; default pwm; ``sts``: Feetech bus servos on
its UART, :mod:`hanoibot.sim.vpico.stsbus`, with the bus faults ``silent``, ``corrupt`` and ``delay_us`` of
``sim://?servo=sts``), the world options ``board``,
``config``, ``speed``, ``world=0``/``world=random`` as for ``sim://``, the wire faults ``flip``, ``drop``,
``insert``, ``dup`` between the host and the board's USB port, and ``seed`` for every random stream (the world's,
the wire's and the chip's own: its ring oscillator and the grip sensor's noise). ``rerun=K`` (K >= 1) plays the
K-th rerun of the same world: the chip's and the link's random draws differ, the world (``seed``'s) is the same.

By default the chip runs in lockstep with the host on **chip time**: the port's ``clock`` is the chip's emulated
time (:class:`~hanoibot.sim.vpico.process.ChipClock`), a read that would block runs the chip until the board
answers or the timeout passes in chip time, and the host's own work costs none. A run is then the same on every
machine at any load, and with a ``seed`` it replays exactly. ``realtime=1`` runs the chip by itself instead,
capped at wall time as a board on USB (``slow=K``: at 1/K of a real RP2040's speed, K >= 1), and the host reads
the wall clock.

``vpico://?attach=PATH`` opens a virtual Pico on chip time in another process, served by ``hanoibot emulate --pico
--chip-time --link PATH`` (:mod:`hanoibot.sim.vpico.attach`): the board and its world live there and outlive the
host, as a board on USB does; only the wire faults and ``seed`` may go with ``attach``.

The first open boots the chip and returns once the firmware has announced itself (a firmware exception raises
:class:`~hanoibot.sim.vpico.process.BoardTraceback` with the board's traceback); reopening plugs the cable back
into the running board. The port is a :class:`~hanoibot.link.board_port.BoardPort` whose ``board`` is the
:class:`~hanoibot.sim.vpico.process.VirtualPico` (also ``.pico``).
"""

from __future__ import annotations

import time
import weakref
from typing import Any, cast

from serial.serialutil import PortNotOpenError, SerialException, SerialTimeoutException

from ...clock import Clock
from ...link.board_port import DiskWorld
from ..faults import ByteFaults, FaultSpec
from ..vpico.attach import RemotePico
from ..vpico.options import draw_seed, make_pico, parse_vpico_url
from ..vpico.process import VirtualPico
from .simport import SimulatedPort


class Serial(SimulatedPort):
    """A pyserial port with a virtual Pico at the far end: booted at the first open, kept across reopens."""

    scheme = "vpico"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.pico: VirtualPico | RemotePico | None = None
        self._to_board: ByteFaults | None = None
        self._to_host: ByteFaults | None = None
        super().__init__(*args, **kwargs)

    @property
    def board(self) -> VirtualPico | RemotePico | None:
        """The virtual Pico (None before the first open)."""
        return self.pico

    @property
    def clock(self) -> Clock | None:
        """The chip's emulated time, which the session then reads (None: the chip runs in real time)."""
        return None if self.pico is None else self.pico.clock

    @property
    def world(self) -> DiskWorld | None:
        """The simulated arm and disks the board's servo outputs move (None with ``world=0``)."""
        if self.pico is None or self.pico.world is None:
            return None
        return cast(DiskWorld, self.pico.world)

    # --- SerialBase ----------------------------------------------------------------------------------
    def open(self) -> None:
        """Boot the virtual Pico (first open; waits for the firmware's HELLO), or reconnect to it."""
        self._parse_url()
        options = parse_vpico_url(self.spec.to_url())
        if "attach" in options and (self.pico is None or not self.pico.is_running):
            if self._to_board is None:
                spec = FaultSpec.from_options(options)
                self._to_board = ByteFaults(spec, stream="to_board")
                self._to_host = ByteFaults(spec, stream="to_host")
            remote = RemotePico(options["attach"])  # plug into the board in the other process
            weakref.finalize(self, remote.close)
            self.pico = remote
        if self.pico is None:
            spec = FaultSpec.from_options(options)
            self._to_board = ByteFaults(spec, stream="to_board")
            self._to_host = ByteFaults(spec, stream="to_host")
            pico = make_pico(options)
            pico.start()
            weakref.finalize(self, pico.close)
            self.pico = pico
            try:
                pico.wait_for_output(b"HELLO")
            except BaseException:
                pico.close()
                self.pico = None
                raise
        self._rx.clear()
        self.is_open = True

    def close(self) -> None:
        """Unplug the cable: the board keeps running (one attached in another process runs its own moment on, as
        a board does when its host goes, then waits for the next host)."""
        if isinstance(self.pico, RemotePico):
            self.pico.close()
        super().close()

    @property
    def seed(self) -> int | None:
        """The seed of the link's random draws: the URL's (with its rerun), else (attached) the one the serving
        emulator gives this host, else None."""
        if self.spec.seed is None and isinstance(self.pico, RemotePico):
            return self.pico.seed
        return draw_seed(self.spec.as_dict())

    @property
    def dies_with_host(self) -> bool:
        """A board attached in another process outlives the host; one booted here does not."""
        return not isinstance(self.pico, RemotePico)

    @property
    def out_waiting(self) -> int:
        """Bytes sent that the board's firmware has not taken from its USB FIFO yet."""
        return 0 if self.pico is None else self.pico.in_flight

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes; waits up to ``timeout`` seconds (None = until data) of the chip's time (driven,
        the chip running meanwhile) or of the wall clock (real time)."""
        if not self.is_open or self.pico is None:
            raise PortNotOpenError()
        if self.pico.driven:
            return self._read_on_chip_time(self.pico, size)
        deadline_s = None if self._timeout is None else time.monotonic() + self._timeout
        self._pump()
        while len(self._rx) < size:
            left_s = 1.0 if deadline_s is None else deadline_s - time.monotonic()
            if left_s <= 0:
                break
            if not self.pico.is_running:
                raise SerialException("the virtual Pico has stopped")
            self.pico.wait_readable(left_s)
            self._pump()
        return self._take(size)

    def write(self, data: bytes) -> int:
        """Send ``data`` to the board, waiting (up to ``write_timeout`` s) while its USB FIFO is full."""
        if not self.is_open or self.pico is None or self._to_board is None:
            raise PortNotOpenError()
        payload = self._to_board.apply(bytes(data))
        sent = self.pico.write(payload, timeout_s=self._write_timeout)
        if sent < len(payload):
            raise SerialTimeoutException("Write timeout: the virtual Pico's USB input stayed full")
        return len(data)

    # --- internals -----------------------------------------------------------------------------------
    def _read_on_chip_time(self, pico: VirtualPico | RemotePico, size: int) -> bytes:
        """Driven: run the chip until ``size`` bytes came or the timeout passed in chip time."""
        deadline_s = None if self._timeout is None else pico.time_s + self._timeout
        self._pump()
        while len(self._rx) < size and (deadline_s is None or pico.time_s < deadline_s):
            pico.run_until(pico.time_s + 1.0 if deadline_s is None else deadline_s, stop_on_output=True)
            self._pump()
        return self._take(size)

    def _pump(self) -> None:
        """Collect what the board sent (through the wire's faults)."""
        if self.pico is None or self._to_host is None:
            return
        data = self.pico.read_available()
        if data:
            self._rx += self._to_host.apply(data)
