"""``vpico://`` for pyserial: a port whose far end is the virtual Pico (stock MicroPython on an emulated RP2040).

URL: ``vpico://[?option=value&...]`` with ``servo=pwm|pca9685`` (how the virtual board drives its servos,
written into its board_config.py; default pwm), ``realtime=1|0`` (cap emulated time at wall time, default 1;
0 runs free), ``slow=K`` (cap the chip at 1/K of a real RP2040's speed, K >= 1: a busy machine, made
repeatable), the world options ``board``, ``config``, ``speed``, ``world=0`` as for ``sim://``, and the wire
faults ``flip``, ``drop``, ``insert``, ``dup``, ``seed`` between the host and the board's USB port. The first
open boots the chip and returns once the firmware has announced itself (a firmware exception raises
:class:`~hanoibot.sim.vpico.process.BoardTraceback` with the board's traceback); reopening plugs the cable back
into the running board. Times are wall-clock seconds. The port offers ``.pico`` (the
:class:`~hanoibot.sim.vpico.process.VirtualPico`) and ``.world`` (its disks, or None).
"""

from __future__ import annotations

import time
import weakref
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from serial.serialutil import PortNotOpenError, SerialBase, SerialException, SerialTimeoutException

from ...errors import ConfigError
from ...sim.factory import FAULT_OPTIONS, WORLD_OPTIONS, chip_slowdown, make_world
from ...sim.faults import ByteFaults, FaultSpec
from ...sim.vpico.flash import SERVO_DRIVERS
from ...sim.vpico.process import VirtualPico

KNOWN_OPTIONS = (
    *(name for name in FAULT_OPTIONS if name != "reset_after"),
    *WORLD_OPTIONS,
    "servo",
    "realtime",
    "slow",
)


def parse_vpico_url(url: str) -> dict[str, str]:
    """The query options of a ``vpico://`` URL; ConfigError names an unknown, repeated or bad option."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "vpico" or parts.netloc or parts.path not in ("", "/"):
        raise ConfigError(f"port URL {url!r} is not a vpico:// URL: expected vpico://[?option=value&...]")
    options: dict[str, str] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name not in KNOWN_OPTIONS:
            raise ConfigError(f"vpico:// option {name!r} is unknown: expected one of {', '.join(KNOWN_OPTIONS)}")
        if name in options:
            raise ConfigError(f"vpico:// option {name!r} is given twice: expected it at most once")
        options[name] = value
    if options.get("realtime", "1") not in ("0", "1"):
        raise ConfigError(f"vpico:// option realtime={options['realtime']!r} is invalid: expected 0 or 1")
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


class Serial(SerialBase):
    """A pyserial port with a virtual Pico at the far end: booted at the first open, kept across reopens."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.pico: VirtualPico | None = None
        self._rx = bytearray()
        self._to_board: ByteFaults | None = None
        self._to_host: ByteFaults | None = None
        super().__init__(*args, **kwargs)

    @property
    def world(self) -> Any:
        """The simulated arm and disks the board's servo outputs move (None with ``world=0``)."""
        return None if self.pico is None else self.pico.world

    # --- SerialBase ----------------------------------------------------------------------------------
    def open(self) -> None:
        """Boot the virtual Pico (first open; waits for the firmware's HELLO), or reconnect to it."""
        if self.is_open:  # type: ignore[has-type]
            raise SerialException("vpico:// port is already open")
        if self._port is None:
            raise SerialException("vpico:// port must be configured before it is opened")
        options = parse_vpico_url(self._port)
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
        """Unplug (the board keeps running); the emulator stops when this port object goes away."""
        self.is_open = False

    def _reconfigure_port(self, force_update: bool = False) -> None:
        """Baud rate and framing mean nothing to USB CDC."""

    def _update_dtr_state(self) -> None:
        """DTR/RTS are not passed to the virtual board."""

    def _update_rts_state(self) -> None:
        """DTR/RTS are not passed to the virtual board."""

    def _update_break_state(self) -> None:
        """No break condition on USB CDC."""

    @property
    def in_waiting(self) -> int:
        """Bytes that can be read at once."""
        self._pump()
        return len(self._rx)

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
        data = bytes(self._rx[:size])
        del self._rx[:size]
        return data

    def write(self, data: bytes) -> int:
        """Send ``data`` to the board, waiting (up to ``write_timeout`` s) while its USB FIFO is full."""
        if not self.is_open or self.pico is None or self._to_board is None:
            raise PortNotOpenError()
        payload = self._to_board.apply(bytes(data))
        timeout_s = self._write_timeout
        sent = self.pico.write(payload, timeout_s=timeout_s)
        if sent < len(payload):
            raise SerialTimeoutException("Write timeout: the virtual Pico's USB input stayed full")
        return len(data)

    def reset_input_buffer(self) -> None:
        """Forget what the board sent and nobody read yet."""
        self._pump()
        self._rx.clear()

    def reset_output_buffer(self) -> None:
        """Bytes already in the board's USB FIFO cannot be taken back."""

    # --- internals -----------------------------------------------------------------------------------
    def _pump(self) -> None:
        if self.pico is None or self._to_host is None:
            return
        data = self.pico.read_available()
        if data:
            self._rx += self._to_host.apply(data)
