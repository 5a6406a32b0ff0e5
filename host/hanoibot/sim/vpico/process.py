"""The virtual Pico as a Python object: the Node harness (``harness.mjs``) in a child process, spoken to over
its stdin/stdout one JSON object per line, with the simulated arm and disks driven by its servo outputs.

:class:`VirtualPico` boots the vendored MicroPython UF2 with hanoibot's firmware files in its filesystem, bridges
the chip's USB CDC serial (:meth:`write`, :meth:`read_available`), and feeds every servo pulse the emulated
hardware outputs (read back from PWM slice or PCA9685 registers, every 10 ms of emulated time) to the virtual
servos and the disk physics of :mod:`hanoibot.sim.world`. Input obeys the board's 512-byte USB FIFO: a write
waits (bounded) until the firmware has taken enough bytes. The grip sensor is an ADC input (GP26, ADC0) whose
value comes from the world, and the servo rail sense a GPIO input (GP22) that :meth:`set_rail_powered` drives.

Two ways to run the chip. **Driven** (``driven=True``): the chip runs only when the host asks
(:meth:`VirtualPico.run_until`), so its emulated time is the host's clock (:class:`ChipClock`): the host's own work
costs no chip time, wall time plays no part, and with a ``seed`` a run replays exactly on any machine at any load
(a slow machine makes it slower, never different). **Real time** (the default): the chip runs by itself, capped at
wall time (or free), for a host on the wall clock behind a pty (``hanoibot emulate --pico``) as a board on USB.
"""

from __future__ import annotations

import contextlib
import json
import math
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hanoifw.rxframe import FrameReader

from ...errors import PortError
from ...link.codes import Kind
from ..servos import VirtualServos
from . import sensors
from .board_output import BoardTraceback, ChipClock, last_traceback
from .flash import PCA9685_CHANNELS, PWM_PINS, wiring  # noqa: F401 (named here too)
from .launch import VENDOR_DIR, harness_command
from .stsbus import bus_tick, make_pico_bus

#: The stock MicroPython image for the Pico, vendored with its licence (vendor/PROVENANCE.md).
UF2_PATH = VENDOR_DIR / "RPI_PICO-v1.27.0.uf2"
#: The board's USB CDC receive FIFO (rp2040js's host model), in bytes.
USB_FIFO_BYTES = 512
#: Longest a boot may take until the firmware's first output, in s of wall time (a shared, loaded machine).
BOOT_TIMEOUT_S = 120.0
#: Longest a boot may take until the firmware's first output, in s of emulated time (driven: MicroPython compiles
#: the firmware files at boot, about 1.4 s of chip time).
BOOT_CHIP_S = 20.0
#: A driven run may take this long in wall time per second of emulated time, on top of :data:`RUN_BASE_S`: the
#: emulator runs a busy chip at 0.1-0.4x real time; beyond that bound the harness is taken for hung.
RUN_WALL_PER_CHIP_S = 60.0
#: Wall time any driven run may take beyond its share per emulated second, in s.
RUN_BASE_S = 60.0

Event = dict[str, Any]


class VirtualPico:
    """One emulated Pico running the stock MicroPython image and hanoibot's firmware; a context manager.

    ``servo_driver`` ("pwm", "pca9685", or "sts": Feetech bus servos on UART0, :mod:`.stsbus`, with the fault options
    ``bus_options``) is written into the board's ``board_config.py`` and tells the harness what to model; ``driven``
    runs the chip only as far as :meth:`run_until` asks (its time is then the host's clock, :attr:`clock`; ``realtime``,
    ``slow`` and ``fast_boot`` do not apply), and ``seed`` (or None) seeds every random input of the chip (its ring
    oscillator, the grip sensor's noise); otherwise ``realtime`` caps emulated time at wall time (False: free-running,
    idle time skipped); with ``realtime``, ``slow`` (>= 1) caps it at 1/``slow`` of wall time instead (a chip that many
    times slower than a real RP2040, as on a busy machine; the emulator may be slower still); ``fast_boot`` lets each
    (re)boot run free until the board's first output or the host's first input (the cap applies from then on:
    MicroPython compiling the firmware at boot is ~1.4 s of chip time, and nothing times it); ``world`` (a
    :class:`~hanoibot.sim.world.SimWorld` or None) is moved by the servo pulses, and the board is wired for as many
    channels as its robot config has (its ``config``; 5 without a world); ``files`` replaces the firmware files (path on
    the board -> bytes); ``uf2`` another UF2 file.
    """

    def __init__(
        self,
        *,
        servo_driver: str = "pwm",
        realtime: bool = True,
        slow: float = 1.0,
        fast_boot: bool = True,
        world: Any = None,
        files: dict[str, bytes] | None = None,
        uf2: Path | None = None,
        on_event: Callable[[Event], None] | None = None,
        driven: bool = False,
        seed: int | None = None,
        bus_options: dict[str, str] | None = None,
    ) -> None:
        from .flash import files_on_flash

        self.servo_driver = servo_driver
        self.driven = driven
        self.seed = seed
        #: The host's clock when driven: the chip's emulated time (None when the chip runs in real time).
        self.clock: ChipClock | None = ChipClock(self) if driven else None
        self.realtime = realtime
        self.slow = slow
        self.fast_boot = fast_boot
        self.world = world
        self.on_event = on_event
        config = getattr(world, "config", None)
        names = tuple(config.channel_names()) if config is not None else None
        #: The board's servo channels (its robot config's), and their rp2 PWM pins and PCA9685 outputs.
        self.channels = len(names) if names is not None else len(PWM_PINS)
        self.pwm_pins, self.pca9685_channels = wiring(self.channels)
        if files is None:
            files = files_on_flash(servo_driver=servo_driver, channel_names=names)
        self.files = files
        self.uf2_path = Path(uf2) if uf2 is not None else UF2_PATH
        self.boots: list[Event] = []
        #: Ticks the chip ran on from without the world's answer (it waited its bound): the world trailed the chip.
        self.late_tocks = 0
        self.tracebacks: list[str] = []
        #: Emulated seconds from the latest boot to the firmware's first HELLO (None until it came).
        self.boot_to_hello_s: float | None = None
        #: True once the emulated USB host has enumerated the board's CDC port (since the latest boot).
        self.usb_connected = False
        self.time_s = 0.0
        self.pulses_us: list[float | None] = [None] * self.channels
        self.servos = VirtualServos(
            self.channels,
            now_s=lambda: self.time_s,
            max_speed_us_per_s=getattr(world, "max_speed_us_per_s", None),
            traits=getattr(world, "servo_traits", None),  # a randomized world's own servos
        )
        self.rail_powered = True
        self.bus = make_pico_bus(self, servo_driver, bus_options)  # bus servos (servo_driver "sts"), else None
        self._grip_state: tuple[bool, bool] | None = None
        self._rx = bytearray()
        self._console = bytearray()  # recent output, searched for tracebacks
        self._frames = FrameReader()  # the board's output as frames: each DONE is logged as "executed"
        self._sent = 0
        self._taken = 0
        self._lock = threading.Condition()
        self._stats: Event | None = None
        self._ran_ns: int | None = None  # driven: where the latest run ended (None while one is under way)
        #: Driven: called in the host's thread after each run (a campaign stops a "killed" host's code there: it
        #: sent nothing while the chip ran, so the run's end is as good a moment as any inside it).
        self.after_run: Callable[[], None] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self._stderr = b""
        if world is not None and hasattr(world, "attach"):
            world.attach(self)
        if world is not None and hasattr(world, "on_event"):
            world.on_event = self._log_world_event  # picks, places, drops and faults reach the event log

    # --- lifecycle ---------------------------------------------------------------------------------------
    def __enter__(self) -> VirtualPico:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self) -> None:
        """Build the flash image and power the chip up (returns at once; see :meth:`wait_for_output`)."""
        self._dir = tempfile.TemporaryDirectory(prefix="hanoibot-vpico-")
        command = harness_command(self, Path(self._dir.name))
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0
        )
        self._reader = threading.Thread(target=self._read_events, name="vpico-events", daemon=True)
        self._reader.start()
        self._send({"op": "gpio", "pin": sensors.RAIL_SENSE_PIN, "level": 1})

    def close(self) -> None:
        """Stop the emulator process (bounded wait) and remove its files."""
        process = self._process
        if process is not None and process.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                self._send({"op": "stop"})
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        if self._reader is not None:
            self._reader.join(timeout=5)
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    @property
    def is_running(self) -> bool:
        """True while the emulator process runs."""
        return self._process is not None and self._process.poll() is None

    # --- the USB serial ----------------------------------------------------------------------------------
    def write(self, data: bytes, *, timeout_s: float | None = 10.0) -> int:
        """Send ``data`` to the board's USB input, waiting while its 512-byte FIFO is full; returns the bytes
        sent (fewer than ``len(data)`` when ``timeout_s`` s passed first). Driven, the bytes wait in the harness
        and enter the FIFO as the firmware makes room while the chip runs: nothing waits here."""
        if self.driven:
            if not self.is_running:
                raise PortError(f"the virtual Pico has stopped: {self._stderr_line()}")
            with self._lock:
                self._sent += len(data)
            self._send({"op": "serial", "hex": bytes(data).hex()})
            return len(data)
        deadline_s = None if timeout_s is None else time.monotonic() + timeout_s
        sent = 0
        while sent < len(data):
            with self._lock:
                while self._sent - self._taken >= USB_FIFO_BYTES and self.is_running:
                    left_s = None if deadline_s is None else deadline_s - time.monotonic()
                    if left_s is not None and left_s <= 0:
                        return sent
                    self._lock.wait(0.05 if left_s is None else min(left_s, 0.05))
                room = USB_FIFO_BYTES - (self._sent - self._taken)
                chunk = data[sent : sent + room]
                self._sent += len(chunk)
            if not self.is_running:
                raise PortError(f"the virtual Pico has stopped: {self._stderr_line()}")
            self._send({"op": "serial", "hex": bytes(chunk).hex()})
            sent += len(chunk)
        return sent

    @property
    def in_flight(self) -> int:
        """Bytes sent to the board that its firmware has not taken from the USB FIFO yet."""
        with self._lock:
            return self._sent - self._taken

    @property
    def has_output(self) -> bool:
        """True while the board has sent bytes that :meth:`read_available` has not handed out."""
        with self._lock:
            return bool(self._rx)

    def read_available(self) -> bytes:
        """Everything the board sent since the last call."""
        with self._lock:
            data = bytes(self._rx)
            self._rx.clear()
            return data

    def wait_readable(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` s (wall; driven: emulated, the chip running meanwhile) until output is there;
        True if it is."""
        if self.driven:
            if not self._rx:
                self.run_until(self.time_s + max(timeout_s, 0.0), stop_on_output=True)
            with self._lock:
                return bool(self._rx)
        deadline_s = time.monotonic() + timeout_s
        with self._lock:
            while not self._rx and self.is_running:
                left_s = deadline_s - time.monotonic()
                if left_s <= 0:
                    break
                self._lock.wait(left_s)
            return bool(self._rx)

    def wait_connected(self, timeout_s: float = BOOT_TIMEOUT_S) -> None:
        """Wait until the board's USB serial port is enumerated (as a host sees a board plugged in)."""
        if self.driven:
            self._run_while(lambda: not self.usb_connected, "its USB port did not come up")
            return
        deadline_s = time.monotonic() + timeout_s
        with self._lock:
            while not self.usb_connected:
                left_s = deadline_s - time.monotonic()
                if left_s <= 0 or not self.is_running:
                    raise PortError(f"the virtual Pico's USB port did not come up within {timeout_s:g} s")
                self._lock.wait(min(left_s, 0.5))

    def wait_for_output(self, marker: bytes, timeout_s: float = BOOT_TIMEOUT_S, *, chip_s: float = BOOT_CHIP_S) -> None:
        """Wait until the board's output since the last boot contains ``marker``; PortError names what it said
        (driven: the chip runs until then, for at most ``chip_s`` s of its time)."""
        if self.driven:
            self._run_while(lambda: marker not in self._console, f"it did not print {marker!r}", chip_s)
            return
        deadline_s = time.monotonic() + timeout_s
        with self._lock:
            while marker not in self._console:
                if not self.is_running:
                    raise PortError(f"the virtual Pico has stopped: {self._stderr_line()}")
                if self.tracebacks:
                    raise BoardTraceback(self.tracebacks[-1])
                left_s = deadline_s - time.monotonic()
                if left_s <= 0:
                    said = self._console[-200:].decode("ascii", "replace")
                    raise PortError(
                        f"the virtual Pico did not print {marker!r} within {timeout_s:g} s; it said {said!r}"
                    )
                self._lock.wait(min(left_s, 0.5))

    def output_since_boot(self) -> bytes:
        """What the board has printed since its latest boot (its last 4 KiB)."""
        with self._lock:
            return bytes(self._console)

    # --- driven: the host is the clock --------------------------------------------------------------------
    def run_until(self, t_s: float, *, stop_on_output: bool = False) -> None:
        """Driven: run the chip until its emulated time is ``t_s`` (s), or, with ``stop_on_output``, until it
        sends output, whichever comes first; the world moves with it, tick by tick. PortError if the emulator
        stops, or takes longer than a generous wall-time bound (it is then hung)."""
        if not self.driven:
            raise PortError("run_until is for a driven virtual Pico (driven=True)")
        until_ns = math.ceil(t_s * 1e9)
        bound_s = RUN_BASE_S + RUN_WALL_PER_CHIP_S * max(t_s - self.time_s, 0.0)
        with self._lock:
            self._ran_ns = None
        self._send({"op": "run", "until_ns": until_ns, "stop_on_output": stop_on_output})
        deadline_s = time.monotonic() + bound_s
        with self._lock:
            while self._ran_ns is None:
                if not self.is_running:
                    raise PortError(f"the virtual Pico has stopped: {self._stderr_line()}")
                left_s = deadline_s - time.monotonic()
                if left_s <= 0:
                    raise PortError(f"the virtual Pico did not run to {t_s:.3f} s within {bound_s:g} s of wall time")
                self._lock.wait(min(left_s, 0.5))
            # A run that went the whole way ends exactly at t_s (ns to s in floating point may fall one ulp short)
            self.time_s = max(self._ran_ns / 1e9, t_s) if self._ran_ns >= until_ns else self._ran_ns / 1e9
        if self.after_run is not None:
            self.after_run()

    def _run_while(self, waiting: Callable[[], bool], what: str, chip_s: float = BOOT_CHIP_S) -> None:
        """Driven: run the chip in steps of 50 ms while ``waiting()`` says so, for at most ``chip_s`` s of emulated
        time; PortError names ``what`` did not happen (and a board traceback raises BoardTraceback)."""
        end_s = self.time_s + chip_s
        while True:
            with self._lock:
                if self.tracebacks:
                    raise BoardTraceback(self.tracebacks[-1])
                if not waiting():
                    return
                said = self._console[-200:].decode("ascii", "replace")
            if self.time_s >= end_s:
                raise PortError(f"the virtual Pico ran {chip_s:g} s and {what}; it said {said!r}")
            self.run_until(min(self.time_s + 0.05, end_s), stop_on_output=True)

    # --- the world around the board ----------------------------------------------------------------------
    def power_cycle(self) -> None:
        """Switch the board off and on: the chip boots again from its flash (a new boot id, cause ``power``) and a
        PCA9685 on it starts from its power-on state (every output off)."""
        self._send({"op": "power"})

    def set_rail_powered(self, powered: bool) -> None:
        """Switch the servo supply (the e-stop switch): the servos go limp and the rail-sense pin GP22 follows."""
        self.rail_powered = powered
        self._send({"op": "gpio", "pin": sensors.RAIL_SENSE_PIN, "level": 1 if powered else 0})
        if self.bus is not None:  # bus servos without a supply hear nothing from now on, not a tick later
            self._send(self.bus.registers_message())
        if not powered and self.world is not None:  # the gripper's current stops with its supply, not a tick later
            self._set_grip(driven=False, stalled=self.world.held_disk is not None)

    def press_reset(self) -> None:
        """Press the board's reset button (the RP2040's RUN pin): the chip reboots from its flash, GPIO PWM stops
        (the servos go limp), a PCA9685 keeps its pulses."""
        self._send({"op": "reset"})

    def latch_fault(self, name: str) -> None:
        """A collision or drop seen by the world: the real board cannot know it, so it is only logged."""
        self._log({"event": "world_fault", "fault": name})

    def stats(self, timeout_s: float = 10.0) -> Event:
        """The harness's counters: emulated time (us), CPU cycles executed, idle time (us), wall time (ms)."""
        with self._lock:
            self._stats = None
        self._send({"op": "stats"})
        deadline_s = time.monotonic() + timeout_s
        with self._lock:
            while self._stats is None:
                left_s = deadline_s - time.monotonic()
                if left_s <= 0 or not self.is_running:
                    raise PortError("the virtual Pico did not report its counters")
                self._lock.wait(left_s)
            return self._stats

    # --- internals ---------------------------------------------------------------------------------------
    def _send(self, message: Event) -> None:
        process = self._process
        if process is None or process.stdin is None:
            raise PortError("the virtual Pico is not running: call start() first")
        try:
            process.stdin.write((json.dumps(message) + "\n").encode())
        except BrokenPipeError as err:
            raise PortError(f"the virtual Pico has stopped: {self._stderr_line()}") from err

    def _read_events(self) -> None:
        """The reader thread: one harness event per line until the process ends."""
        process = self._process
        assert process is not None and process.stdout is not None
        for line in process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            self._on_event(event)
        if process.stderr is not None:
            self._stderr = process.stderr.read()
        with self._lock:
            self._lock.notify_all()

    def _on_event(self, event: Event) -> None:
        kind = event.get("ev")
        if kind == "tick":
            try:
                if self.bus is not None:
                    self._send(bus_tick(self, event))
                else:
                    self._on_tick(event["t_us"] / 1e6, event["pulses_us"], event.get("latched_us"))
            finally:
                with contextlib.suppress(PortError):  # the chip waits for this answer (lockstep) before it runs on
                    self._send({"op": "tock", "t_us": event["t_us"]})
            return
        if kind == "tock_late":  # the chip waited TOCK_WAIT_MS for a tick's answer and ran on: the world trailed it
            self.late_tocks += 1
            self._log({"event": "tock_late", "t_us": event.get("t_us")})
            return
        done: list[int] = []
        with self._lock:
            if kind == "serial":
                data = bytes.fromhex(event["hex"])
                frames = self._frames.feed(data)
                done = [int(f[0]) for k, _seq, _ack, f in frames if k == Kind.DONE and f and f[0].isdigit()]
                self._rx += data
                self._console += data
                if self.boot_to_hello_s is None and Kind.HELLO.encode() in self._console and self.boots:
                    self.boot_to_hello_s = event.get("t_us", 0) / 1e6 - self.boots[-1].get("t_us", 0) / 1e6
                self._find_traceback()
                del self._console[:-4096]
            elif kind == "taken":
                self._taken += int(event["n"])
            elif kind == "boot":
                self.boots.append(event)
                self.boot_to_hello_s = None
                self.usb_connected = False
                self._console.clear()  # the bytes lost with the chip came as "taken": the count stays exact
            elif kind == "connected":
                self.usb_connected = True
            elif kind == "stats":
                self._stats = event
            elif kind == "ran":
                self._ran_ns = int(event["t_ns"])
            self._lock.notify_all()
        for cmd_id in done:  # as the simulated board logs what it finished
            self._log({"event": "executed", "cmd_id": cmd_id})
        if kind == "boot":
            self.servos.release_all()
            self._frames = FrameReader()
            self._log({"event": "boot", "n": event["n"], "cause": event["cause"]})

    def _on_tick(self, t_s: float, pulses_us: list[float | None], latched_us: list[int | None] | None = None) -> None:
        """Every 10 ms of emulated time: the servos follow the pulses, the world moves, the grip ADC is updated.

        The chip waits for this to finish (the harness runs in lockstep), so the grip current the firmware reads
        never trails the world: a disk stalls the gripper at the emulated instant the fingers meet it."""
        self.time_s = t_s
        self.pulses_us = pulses_us
        for channel, pulse_us in enumerate(pulses_us):
            if pulse_us is None or not self.rail_powered:
                self.servos.release(channel)
            else:  # a new pulse took effect at its PWM slice's wrap, up to a tick before this one
                since_us = latched_us[channel] if latched_us is not None else None
                self.servos.set_pulse_us(channel, round(pulse_us), since_s=None if since_us is None else since_us / 1e6)
        if self.world is None:
            return
        horns = [None if p is None else round(p) for p in self.servos.positions_us()]
        self.world.on_tick(t_s, horns)
        self._set_grip(driven=horns[-1] is not None and self.rail_powered, stalled=self.world.held_disk is not None)

    def _set_grip(self, *, driven: bool, stalled: bool) -> None:
        """Tell the harness the gripper servo's state when it changes (it computes each ADC conversion from it)."""
        if (driven, stalled) != self._grip_state:
            self._grip_state = (driven, stalled)
            self._send({"op": "grip", "driven": driven, "stalled": stalled})

    def _find_traceback(self) -> None:
        """Keep the board's own traceback when MicroPython prints one (a firmware exception)."""
        traceback = last_traceback(self._console.decode("ascii", "replace"))
        if traceback is not None and (not self.tracebacks or self.tracebacks[-1] != traceback):
            self.tracebacks.append(traceback)

    def _log_world_event(self, event: Event) -> None:
        """A pick, place, drop or fault seen by the world, logged like the board's own events (as ``emulate`` does)."""
        record: Event = {"t_s": round(float(event.get("t_s", self.time_s)), 6), "source": "world"}
        record.update((key, value) for key, value in event.items() if key != "t_s")
        if self.on_event is not None:
            self.on_event(record)

    def _log(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event({"t_s": round(self.time_s, 6), **event})

    def _stderr_line(self) -> str:
        text = " ".join(self._stderr.decode("utf-8", "replace").split())
        return text[-300:] or "no error output"
