"""The firmware's own board run on the host: its controller, serve loop and bus servo driver, in a thread, driving
Feetech servos through a USB bus adapter opened with pyserial (``feetech://``, :mod:`.protocol_feetech`).

Nothing of the firmware is rewritten here: :class:`~hanoifw.controller.Controller` takes the frames,
:func:`hanoifw.board.serve` steps it every :data:`CONTROL_PERIOD_MS` on the host's monotonic clock, paced
(:class:`PacedTicks`: a thread that was not run for a while finds its time moved on by 4 ms at most), with
the watchdog, HOST_LOST, e-stop and fault latches as on a board, and :class:`~hanoifw.busservos.BusServos` speaks
to the servos through :class:`SerialUart`, a ``machine.UART`` made of a pyserial port. The link's bytes go
between the host's session and the controller through :class:`HostPipe`, as through a board's USB serial.

A USB adapter switches the line's direction itself (no echo, no direction pin: ``echo=False``). The servos keep
their torque and goal when this board stops (the host process ends, is killed, or closes the port): like a board
reset, the next one reads back what each servo holds and reports it held. An e-stop latched on this board stays
latched for the next one on the same adapter (:mod:`.bus_latch`), until a CLEAR.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import serial
from hanoifw import feetech, protocol
from hanoifw.board import make_boot_id, serve
from hanoifw.busservos import BusGripLoad, BusServos
from hanoifw.controller import Controller
from hanoifw.sensing import GRIP_SAMPLE_MS
from hanoifw.ticks import ticks_add_ms, ticks_diff_ms

from .bus_latch import BusLatch

#: The control period of the shipped board_config.py (CONTROL_PERIOD_MS), in ms.
CONTROL_PERIOD_MS = 10
#: MOVEs the board buffers and host silence (ms) before it holds the pose (board_config.py's QUEUE_DEPTH and
#: HOST_WATCHDOG_MS), and how far apart (ms) servos are switched on after CONFIG (ENABLE_STAGGER_MS).
QUEUE_DEPTH = 8
HOST_WATCHDOG_MS = 300
ENABLE_STAGGER_MS = 200
#: Longest one read of the adapter may block, in s: the driver only asks for bytes that have arrived.
ADAPTER_READ_TIMEOUT_S = 0.0
#: Longest a control step waits for a servo's answer before it counts as missed, in s, and how often it looks
#: meanwhile. 25 control periods: an answer comes within a ms on the bus, but a USB adapter and a loaded host may
#: hand it over tens of ms late; the step is late then (the grip meter is sampled meanwhile, the motion goes on
#: from the board's time). A servo that does not answer is SERVO_SILENT after 3 such waits, as on a board (0.75 s).
#: At 0.1 s, runs on the simulated adapter (a thread of another process, on a machine loaded 9-12 deep on two
#: cores) ended in SERVO_SILENT: that thread went unscheduled for up to 180 ms, three times in a row.
ANSWER_WAIT_S = 0.25
#: How long into such a wait the board's time keeps pace with the wall clock (the grip meter sampled), in s: one
#: control period, as an adapter's usual latency. Beyond it the board's time stands still (nothing reads its clock,
#: and :class:`PacedTicks` then moves it on by one step at most): the motion waits for the late answer instead of
#: jumping ahead along its path by the whole wait, which servos catching up at full speed would cut short (the
#: simulated arm, a thread starved on a loaded machine, carried a disk into a peg that way).
KEEP_PACE_S = CONTROL_PERIOD_MS / 1000
ANSWER_POLL_S = 0.0002
#: Most the board's time moves on from one reading of its clock to the next, in ms: two grip samples apart, so the
#: grip meter's readings cover its frames (no two more than two sample periods apart) also after the thread was not
#: run for a while; the serve loop reads the clock at least every sample period while it runs.
MAX_TICK_STEP_MS = 2 * GRIP_SAMPLE_MS
#: How long the boot waits for each servo's answer when it reads back what the servos hold, in ms (each of its
#: tries). A USB adapter and a loaded host hand an answer over tens of ms late (as :data:`ANSWER_WAIT_S` says); a
#: servo read as not answering counts as limp, and a board that holds only some of its servos makes the next
#: command start from a pose the arm is not in.
BOOT_ANSWER_MS = 200
#: The interpreter's thread switch interval while a board runs here, in s (Python's default is 5 ms): the board's
#: thread gets its turn within a ms of asking, even while the host plans.
SWITCH_INTERVAL_S = 0.001


class BoardStopped(Exception):
    """The board was told to stop: its serve loop ends (not a KeyboardInterrupt: the servos are left holding)."""


class PacedTicks:
    """``time``'s ticks for :func:`hanoifw.board.serve` on the host's monotonic clock (ms, wrapping as
    MicroPython's), never advancing more than ``max_step_ms`` from one reading to the next.

    A host is no real-time system: the board's thread may not run for tens of ms (the planner has the interpreter,
    the machine is loaded). On the plain clock the motion would then jump ahead, each servo chasing its goal at its
    own speed limit, and the joints would part from the planned path; the grip meter would find a gap in its
    readings and give no verdict. Paced, the board's time stands still while it is not run: the motion takes
    longer, as on a slow board, and stays on its path."""

    def __init__(self, max_step_ms: int = MAX_TICK_STEP_MS) -> None:
        self._max_step_s = max_step_ms / 1000
        self._wall_s = time.monotonic()
        self._board_s = 0.0

    def ticks_ms(self) -> int:
        wall_s = time.monotonic()
        self._board_s += min(wall_s - self._wall_s, self._max_step_s)
        self._wall_s = wall_s
        return int(ticks_add_ms(0, int(self._board_s * 1000)))

    @staticmethod
    def ticks_add(ticks: int, delta_ms: int) -> int:
        return int(ticks_add_ms(ticks, delta_ms))

    @staticmethod
    def ticks_diff(later: int, earlier: int) -> int:
        return int(ticks_diff_ms(later, earlier))


class SerialUart:
    """A ``machine.UART`` for :class:`~hanoifw.busservos.BusServos` made of the pyserial port ``port`` (opened with
    a zero read timeout): ``write``, ``any``, ``readinto(buf, n)``, ``flush``."""

    def __init__(self, port: serial.SerialBase) -> None:
        self.port = port

    def write(self, data: bytes | bytearray | memoryview) -> int:
        return self.port.write(bytes(data)) or 0

    def any(self) -> int:
        return int(self.port.in_waiting)

    def readinto(self, buf: bytearray, nbytes: int | None = None) -> int | None:
        n = len(buf) if nbytes is None else min(nbytes, len(buf))
        data = self.port.read(n)
        if not data:
            return None
        buf[: len(data)] = data
        return len(data)

    def flush(self) -> None:
        self.port.flush()


class PatientBus:
    """``bus`` (a :class:`~hanoifw.busservos.BusServos` on ``uart``) whose :meth:`poll` first waits, up to
    ``wait_s``, for the answer to the READ sent at the poll before: on a MicroPython board it comes within a control
    step, byte by byte; through a USB adapter it comes in one burst, a few ms late (the adapter's latency timer,
    the host's scheduler). Everything else is the bus's own."""

    def __init__(self, bus: BusServos, uart: SerialUart, wait_s: float = ANSWER_WAIT_S) -> None:
        self._bus = bus
        self._uart = uart
        self._wait_s = wait_s
        self._answer_bytes = 6 + feetech.FEEDBACK_BYTES  # FF FF id len error, the block, the checksum
        #: Called every grip sample period while it waits (the controller's ``sample_sensors`` at the board's
        #: time), as the serve loop samples while it waits between steps.
        self.sample: Callable[[], None] | None = None
        #: Called at every poll, once per control step (the board keeps its e-stop latch, :mod:`.bus_latch`).
        self.on_poll: Callable[[], None] | None = None

    def poll(self, now_ms: int = 0) -> None:
        """Wait for the awaited answer (bounded), sampling the grip meter meanwhile, then the bus's own poll."""
        bus = self._bus
        if self.on_poll is not None:
            self.on_poll()
        if bus.awaits_answer():
            start_s = sampled_s = time.monotonic()
            while self._uart.any() < self._answer_bytes and time.monotonic() - start_s < self._wait_s:
                time.sleep(ANSWER_POLL_S)
                now_s = time.monotonic()
                if self.sample is not None and now_s - sampled_s >= GRIP_SAMPLE_MS / 1000:
                    if now_s - start_s > KEEP_PACE_S:
                        continue  # a late answer: the board's time stands still until it comes (module doc)
                    sampled_s = now_s
                    self.sample()
        bus.poll(now_ms)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bus, name)


class HostPipe:
    """The board's USB serial, seen from its serve loop (``read_available``, ``wait``, ``write``) and from the host's
    port (:meth:`feed`, :meth:`take`): two byte queues and one condition."""

    def __init__(self, max_read_bytes: int = 32) -> None:
        self._to_board = bytearray()
        self._to_host = bytearray()
        self._ready = threading.Condition()
        self._max_read_bytes = max_read_bytes
        self.stopping = False
        #: Why the board stopped by itself (the adapter failed), for the host's next read.
        self.error: BaseException | None = None

    # --- the board's side ------------------------------------------------------------------------------------
    def read_available(self) -> bytes:
        """What the host sent and the board has not read, at most ``max_read_bytes`` at once."""
        with self._ready:
            if self.stopping:
                raise BoardStopped()
            data = bytes(self._to_board[: self._max_read_bytes])
            del self._to_board[: len(data)]
            return data

    def wait(self, timeout_ms: int) -> bool:
        """Wait until the host sends or ``timeout_ms`` passes; True if there are bytes to read."""
        with self._ready:
            if not self._to_board and not self.stopping:
                self._ready.wait(timeout_ms / 1000)
            if self.stopping:
                raise BoardStopped()
            return bool(self._to_board)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """The board's replies, for the host."""
        with self._ready:
            self._to_host += data
            self._ready.notify_all()

    # --- the host's side -------------------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Bytes the host writes to the board."""
        with self._ready:
            self._to_board += data
            self._ready.notify_all()

    def take(self, size: int, timeout_s: float | None) -> bytes:
        """Up to ``size`` bytes from the board, waiting up to ``timeout_s`` (None: until some come) for the first."""
        deadline_s = None if timeout_s is None else time.monotonic() + timeout_s
        with self._ready:
            while not self._to_host and self.error is None:
                left_s = None if deadline_s is None else deadline_s - time.monotonic()
                if left_s is not None and left_s <= 0:
                    break
                self._ready.wait(left_s)
            if not self._to_host and self.error is not None:
                raise serial.SerialException(f"the servo bus failed: {self.error}")
            data = bytes(self._to_host[:size])
            del self._to_host[: len(data)]
            return data

    def waiting(self) -> int:
        """Bytes from the board the host can read now."""
        with self._ready:
            if not self._to_host and self.error is not None:
                raise serial.SerialException(f"the servo bus failed: {self.error}")
            return len(self._to_host)

    def stop(self, error: BaseException | None = None) -> None:
        """End the serve loop at its next read or wait (``error``: why, for the host)."""
        with self._ready:
            self.stopping = True
            if error is not None:
                self.error = error
            self._ready.notify_all()


class BusBoard:
    """The firmware's board on the host, its servos ``ids`` (one per channel, gripper last) on the bus adapter at
    ``device`` (a device path or pyserial URL) at ``baud``; ``steps_per_turn`` 4096 (STS) or 1024 (SCS)."""

    def __init__(
        self, device: str, ids: Sequence[int], *, baud: int = 1_000_000, steps_per_turn: int = 4096, echo: bool = False
    ) -> None:
        self.device = device
        self.ids = tuple(ids)
        self.baud = baud
        self.steps_per_turn = steps_per_turn
        self.echo = echo
        self.pipe = HostPipe()
        self.controller: Controller | None = None
        self.servos: BusServos | None = None
        self._adapter: serial.SerialBase | None = None
        self._thread: threading.Thread | None = None
        self.ticks = PacedTicks()
        self.latch = BusLatch(device)

    def start(self) -> None:
        """Open the adapter, read what the servos hold, boot the controller and serve it in a thread.
        SerialException (or OSError) when the adapter cannot be opened."""
        adapter = serial.serial_for_url(
            self.device, baudrate=self.baud, timeout=ADAPTER_READ_TIMEOUT_S, do_not_open=True
        )
        if "://" not in self.device:
            adapter.exclusive = True  # no other program may drive these servos meanwhile (flock on the device)
        adapter.open()
        self._adapter = adapter
        try:
            adapter.reset_input_buffer()
            uart = SerialUart(adapter)
            servos = BusServos(uart, self.ids, steps_per_turn=self.steps_per_turn, echo=self.echo)
            held_us = servos.read_held_us(lambda ms: time.sleep(ms / 1000), timeout_ms=BOOT_ANSWER_MS)
            channels = len(self.ids)
            patient = PatientBus(servos, uart)
            self.controller = Controller(
                patient,
                channels=channels,
                boot_id=make_boot_id(os.urandom(4)),
                reset_cause="power",
                queue_depth=QUEUE_DEPTH,
                watchdog_ms=HOST_WATCHDOG_MS,
                grip_sensor=BusGripLoad(servos),
                held_us=held_us,
                stagger_ms=ENABLE_STAGGER_MS,
                enable_order=tuple(reversed(range(channels))),  # light joints first, as board_config.py
            )
        except BaseException:
            adapter.close()
            raise
        self.servos = servos
        controller, ticks, latch = self.controller, self.ticks, self.latch
        if latch.is_latched():  # a board before this one on these servos was left e-stopped: so is this one
            controller.estop()
        patient.sample = lambda: controller.sample_sensors(ticks.ticks_ms())
        patient.on_poll = lambda: latch.keep(protocol.FAULT_ESTOP in controller.faults)
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
        self._thread = threading.Thread(target=self._serve, name=f"feetech board {self.device}", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        assert self.controller is not None
        try:
            serve(self.controller, self.pipe, self.ticks, period_ms=CONTROL_PERIOD_MS)
        except BoardStopped:
            pass
        except (serial.SerialException, OSError) as err:  # the adapter went away: the host hears of it
            self.pipe.stop(err)

    def stop(self) -> None:
        """Stop serving and close the adapter; the servos keep holding what they were last told."""
        self.pipe.stop()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        if self.controller is not None:  # as the board leaves it: an e-stop latched last is kept
            self.latch.keep(protocol.FAULT_ESTOP in self.controller.faults)
        if self._adapter is not None:
            self._adapter.close()
            self._adapter = None


def parse_ids(text: str) -> tuple[int, ...]:
    """Bus ids joined by commas (one per channel), each 0..253; ValueError naming the text otherwise."""
    try:
        ids = tuple(int(part) for part in text.split(","))
    except ValueError:
        ids = ()
    if not 1 <= len(ids) <= 12 or not all(0 <= i <= feetech.MAX_ID for i in ids) or len(set(ids)) != len(ids):
        raise ValueError(f"ids={text!r}: expected 1 to 12 different bus ids 0..{feetech.MAX_ID} joined by commas")
    return ids
