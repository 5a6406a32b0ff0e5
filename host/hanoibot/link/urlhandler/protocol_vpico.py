"""``vpico://`` for pyserial: a port whose far end is the virtual Pico (stock MicroPython on an emulated RP2040).

URL: ``vpico://[?option=value&...]`` (a :class:`~hanoibot.sim.spec.SimSpec`) with ``servo=pwm|pca9685`` (how the
virtual board drives its servos, written into its board_config.py; default pwm), ``realtime=1|0`` (cap emulated
time at wall time, default 1; 0 runs free), ``slow=K`` (cap the chip at 1/K of a real RP2040's speed, K >= 1: a
busy machine, made repeatable), the world options ``board``, ``config``, ``speed``, ``world=0`` as for ``sim://``,
and the wire faults ``flip``, ``drop``, ``insert``, ``dup``, ``seed`` between the host and the board's USB port. The
first open boots the chip and returns once the firmware has announced itself (a firmware exception raises
:class:`~hanoibot.sim.vpico.process.BoardTraceback` with the board's traceback); reopening plugs the cable back
into the running board. Times are wall-clock seconds. The port is a :class:`~hanoibot.link.board_port.BoardPort`
whose ``board`` is the :class:`~hanoibot.sim.vpico.process.VirtualPico` (also ``.pico``).
"""

from __future__ import annotations

import time
import weakref
from typing import Any, cast

from serial.serialutil import PortNotOpenError, SerialException, SerialTimeoutException

from ...errors import ConfigError
from ...sim.factory import chip_slowdown, make_world
from ...sim.faults import ByteFaults, FaultSpec
from ...sim.vpico.flash import SERVO_DRIVERS
from ...sim.vpico.process import VirtualPico
from ..board_port import DiskWorld
from .simport import SimulatedPort, parse_spec


def parse_vpico_url(url: str) -> dict[str, str]:
    """The query options of a ``vpico://`` URL; ConfigError names an unknown, repeated or bad option."""
    options = parse_spec(url, "vpico").as_dict()
    if "slow" in options:
        chip_slowdown(options["slow"])
    if options.get("servo", "pwm") not in SERVO_DRIVERS:
        raise ConfigError(f"vpico:// option servo={options['servo']!r} is invalid: expected pwm or pca9685")
    return options


def make_pico(options: dict[str, str], **kwargs: Any) -> VirtualPico:
    """A (not yet started) virtual Pico with the world and wiring the options ask for."""
    FaultSpec.from_options(options)  # checks the fault options before anything starts
    return VirtualPico(
        servo_driver=options.get("servo", "pwm"),
        realtime=options.get("realtime", "1") == "1",
        slow=chip_slowdown(options["slow"]) if "slow" in options else 1.0,
        world=make_world(options),
        **kwargs,
    )


class Serial(SimulatedPort):
    """A pyserial port with a virtual Pico at the far end: booted at the first open, kept across reopens."""

    scheme = "vpico"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.pico: VirtualPico | None = None
        self._to_board: ByteFaults | None = None
        self._to_host: ByteFaults | None = None
        super().__init__(*args, **kwargs)

    @property
    def board(self) -> VirtualPico | None:
        """The virtual Pico (None before the first open)."""
        return self.pico

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

    @property
    def out_waiting(self) -> int:
        """Bytes sent that the board's firmware has not taken from its USB FIFO yet."""
        return 0 if self.pico is None else self.pico.in_flight

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes; waits up to ``timeout`` seconds (wall clock; None = until data)."""
        if not self.is_open or self.pico is None:
            raise PortNotOpenError()
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
    def _pump(self) -> None:
        """Collect what the board sent (through the wire's faults)."""
        if self.pico is None or self._to_host is None:
            return
        data = self.pico.read_available()
        if data:
            self._rx += self._to_host.apply(data)
