"""The firmware's own main loop on a port model, in virtual time: what a simulated board with ``?port=`` runs.

``main.py`` ends by starting the grip timer (:func:`hanoifw.board.start_grip_timer`, with the port's
``machine.Timer``) and calling :func:`hanoifw.board.serve`, which loops until Ctrl-C: read the serial input,
feed the controller, step it every control period, write the replies, feed the watchdog, wait in ``poll``.
:class:`BoardLoop` runs that same code, unchanged, against a :class:`~hanoibot.sim.ports.PortModel`: its clock is
the board's virtual time in whole ms (``time.ticks_ms``), its ``poll`` waits end when the port would end them
(at a FreeRTOS tick on esp32, at a timer interrupt, at serial input on a USB port; :mod:`hanoibot.sim.ports`),
its timers fire at their expiry times, and ``kbd_intr`` decides, as MicroPython's serial drivers do, whether a
0x03 byte is input or a KeyboardInterrupt. The firmware's code takes no time of its own (a real board spends some
100 µs per step: the waits and ticks are what this model is about).

``serve`` blocks in its waits, so it runs in a thread of its own that takes turns with the simulator: the
simulator hands it the turn when its wait ends and waits until it asks for the next wait (or returns). Exactly
one of the two runs at any moment, so a run is as deterministic as any other on ``sim://``. A board reset ends the
thread (its wait raises :class:`LoopHalted`, which ``serve`` does not catch), and so does the board being dropped:
the thread holds the controller and the loop only weakly (a parked thread's stack is a root for the garbage
collector, and the controller reaches the whole board through its sensors), and a finalizer wakes it to end.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from hanoifw.board import grip_timer_maker, serve, start_grip_timer
from hanoifw.ticks import TICKS_PERIOD

from .ports import PortModel, TimerModel

#: board_config.py's HARDWARE_WDT_MS: the hardware watchdog main.py starts at the first CONFIG, in ms.
HARDWARE_WDT_MS = 2000
#: Ctrl-C, MicroPython's keyboard interrupt character (``micropython.kbd_intr(3)``).
CTRL_C = 3
_TICKS_MASK = TICKS_PERIOD - 1


class LoopHalted(BaseException):
    """Raised inside the firmware's loop to end its thread: the board was reset (not an error of the firmware)."""


class _Turns:
    """A thread running ``target`` that takes turns with its caller: :meth:`resume` runs it until it calls
    :meth:`block` (or ends) and returns what it asked for; :meth:`block` returns what the next :meth:`resume`
    hands it (an exception is raised there instead)."""

    def __init__(self, target: Callable[[], Any], name: str) -> None:
        self._target = target
        self._to_thread = threading.Semaphore(0)
        self._to_caller = threading.Semaphore(0)
        self._reply: Any = None
        self._request: tuple[str, Any] = ("none", None)
        self._halted = False
        self.is_done = False
        self.thread = threading.Thread(target=self._main, name=name, daemon=True)

    def start(self) -> tuple[str, Any]:
        """Run the target until its first :meth:`block` (or its end)."""
        self.thread.start()
        self._to_caller.acquire()
        return self._request

    def resume(self, reply: Any) -> tuple[str, Any]:
        """Hand ``reply`` to the blocked target and run it until it blocks again (or ends)."""
        self._reply = reply
        self._to_thread.release()
        self._to_caller.acquire()
        return self._request

    def halt_soon(self) -> None:
        """End the parked target without waiting for it (a finalizer's call: it never blocks)."""
        self._halted = True
        self._to_thread.release()

    def block(self, request: Any) -> Any:
        """In the target: hand the turn back with ``request``; returns the reply the next resume gives."""
        self._request = ("block", request)
        self._to_caller.release()
        self._to_thread.acquire()
        if self._halted:
            raise LoopHalted
        reply = self._reply
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def _main(self) -> None:
        try:
            self._request = ("done", self._target())
        except LoopHalted:
            self._request = ("halted", None)
        except BaseException as err:  # a firmware bug: the simulator raises it in the caller
            self._request = ("error", err)
        finally:
            self.is_done = True
            self._to_caller.release()


class _Watchdog:
    """``machine.WDT``: the board resets ``timeout_ms`` after the latest :meth:`feed` (``now_us``: board time)."""

    def __init__(self, now_us: Callable[[], int], timeout_ms: int) -> None:
        self._now_us = now_us
        self.timeout_us = timeout_ms * 1000
        self.fed_us = now_us()

    def feed(self) -> None:
        """Restart the countdown."""
        self.fed_us = self._now_us()


class _Ticks:
    """The ``time`` module for ``serve``: ``ticks_ms`` of the board's virtual time (wrapping at 2**30)."""

    def __init__(self, now_us: Callable[[], int]) -> None:
        self._now_us = now_us

    def ticks_ms(self) -> int:
        return (self._now_us() // 1000) & _TICKS_MASK

    def ticks_add(self, ticks: int, delta: int) -> int:
        return (ticks + delta) & _TICKS_MASK

    def ticks_diff(self, later: int, earlier: int) -> int:
        diff = (later - earlier) & _TICKS_MASK
        return diff - TICKS_PERIOD if diff & (TICKS_PERIOD >> 1) else diff


class _SerialPort:
    """The board's serial input and output as ``serve`` reads and writes them (``hanoifw.board.StreamPort``'s
    interface): :meth:`read_available` takes what has arrived, up to and including a Ctrl-C; :meth:`wait` hands
    the turn back to the simulator until the port's wait would end. It holds its loop weakly (module doc)."""

    def __init__(self, loop: weakref.ReferenceType[BoardLoop]) -> None:
        self._loop_ref = loop

    @property
    def _loop(self) -> BoardLoop:
        loop = self._loop_ref()
        if loop is None:
            raise LoopHalted
        return loop

    def read_available(self) -> bytes:
        loop = self._loop
        loop.raise_pending_interrupt()
        data = loop.rx
        if not data:
            return b""
        cut = data.find(CTRL_C)
        end = min(len(data), 32 if cut < 0 else min(cut + 1, 32))  # StreamPort's READ_CHUNK_BYTES
        chunk = bytes(data[:end])
        del data[:end]
        return chunk

    def wait(self, timeout_ms: int) -> bool:
        return bool(self._loop.turns.block(timeout_ms))

    def write(self, data: Any) -> None:
        self._loop.write(bytes(data))


class BoardLoop:
    """``main.py``'s grip timer and ``serve`` loop for ``controller`` on ``port`` (a
    :class:`~hanoibot.sim.ports.PortModel`), on the board's virtual time ``now_us()`` (integer µs).

    The simulator drives it by events: :meth:`next_event_us` is when it must run next (a timer expiry, the end of
    the loop's wait, a FreeRTOS tick), :meth:`run_due` runs what is due at ``now_us()``; :meth:`arrive` puts
    serial input in (at ``now_us()``). Everything the board sends goes to ``write``. ``period_ms`` is the control
    period; ``wdt_ms`` (or None) the hardware watchdog's timeout, started at the first CONFIG as main.py does.
    """

    def __init__(
        self,
        controller: Any,
        port: PortModel,
        *,
        now_us: Callable[[], int],
        write: Callable[[bytes], None],
        period_ms: int,
        wdt_ms: int | None = HARDWARE_WDT_MS,
    ) -> None:
        self.controller = controller
        self.port = port
        self.now_us = now_us
        self.write = write
        self.rx = bytearray()  # the serial input ring: arrived, not yet read
        self.result: str | None = None  # what serve returned ("interrupted"): the board is at its REPL
        self.watchdog: _Watchdog | None = None
        self.timers: list[tuple[TimerModel, list[int]]] = []  # each running timer and [its next expiry in µs]
        self.interrupt_char = CTRL_C  # MicroPython's default, until main.py turns it off
        self._interrupt_pending = False  # a keyboard interrupt scheduled: raised in the loop at its next wake
        self._wait: tuple[int, int, int] | None = None  # the loop's wait: (start in ms, timeout in ms, next wake µs)
        self._input_wake_us: int | None = None  # input arrived during the wait; it wakes the loop then
        self._firing_us: int | None = None  # while a timer's callback runs: its expiry (µs), the time it fired
        self.grip_timer = start_grip_timer(
            controller, grip_timer_maker(port.timer_class(self._start_timer), port.platform), self._ticks_ms
        )

        # What the loop's thread holds: weak references to the controller and to this loop (module doc).
        loop_ref = weakref.ref(self)
        weak_controller = weakref.proxy(controller)

        def make_wdt() -> _Watchdog:
            watchdog = _Watchdog(now_us, wdt_ms or 0)
            loop = loop_ref()
            if loop is not None:
                loop.watchdog = watchdog
            return watchdog

        def kbd_intr(char: int) -> None:
            loop = loop_ref()
            if loop is not None:
                loop.interrupt_char = char

        def run() -> str:
            serial = _SerialPort(loop_ref)
            watchdog = None if wdt_ms is None else make_wdt
            ticks = _Ticks(now_us)
            return serve(weak_controller, serial, ticks, make_wdt=watchdog, period_ms=period_ms, kbd_intr=kbd_intr)

        self.turns = _Turns(run, name=f"board-loop-{port.name}")
        self._dropped = weakref.finalize(self, self.turns.halt_soon)
        self._handle(self.turns.start())

    # --- what the simulator asks -----------------------------------------------------------------------
    @property
    def is_serving(self) -> bool:
        """True while ``serve`` runs (False once it returned: the board is at its REPL, or halted)."""
        return not self.turns.is_done

    def next_event_us(self) -> int | None:
        """Board time (µs) of the next thing to run: a timer expiry, a wake of the loop's wait; None: nothing."""
        times = [expiry[0] for timer, expiry in self.timers if timer.is_running]
        if self._wait is not None:
            times.append(self._wait[2])
            if self._input_wake_us is not None:
                times.append(self._input_wake_us)
        return min(times) if times else None

    def run_due(self) -> None:
        """Run everything due at ``now_us()``: timer callbacks (each timer interrupt also wakes the loop's wait),
        then the wait's end if it has come."""
        now = self.now_us()
        woken = False
        for timer, expiry in list(self.timers):
            while timer.is_running and expiry[0] <= now:
                # A board catching up on a clock the host advanced fires each expiry at its own time, as the
                # chip's timer did then, not all at once now.
                self._firing_us = expiry[0]
                expiry[0] += timer.period_ms * 1000
                assert timer.callback is not None
                try:
                    timer.callback(timer)  # hard: in the interrupt; soft (esp32): scheduled, run as the loop wakes
                finally:
                    self._firing_us = None
                woken = True
        if self._wait is not None:
            if self._wait[2] <= now:
                woken = True
            if self._input_wake_us is not None and self._input_wake_us <= now:
                woken = True
                self._input_wake_us = None
            if woken:
                reply = self._check_wait(now)
                if reply is not None:
                    self._handle(self.turns.resume(reply))

    def arrive(self, data: bytes) -> None:
        """Serial input reaches the board now: into the input ring, except a Ctrl-C while the keyboard interrupt is
        on (MicroPython's USB and UART drivers take it out and schedule a KeyboardInterrupt)."""
        if not data or not self.is_serving:
            return  # at the REPL the bytes go to the REPL, which answers nothing a host can read
        now = self.now_us()
        if self.interrupt_char == CTRL_C and CTRL_C in data:
            data = data.replace(b"\x03", b"")
            self._interrupt_pending = True
        self.rx += data
        if self._wait is not None and self.port.input_wakes:
            self._input_wake_us = now

    def stop(self) -> None:
        """The board is reset: its timers stop and its loop ends."""
        for timer, _expiry in self.timers:
            timer.deinit()
        self.timers = []
        self._wait = None
        self._dropped.detach()
        if not self.turns.is_done:
            self.turns.resume(LoopHalted())

    @property
    def watchdog_deadline_us(self) -> int | None:
        """When the hardware watchdog resets the board unless fed (None: not started)."""
        return None if self.watchdog is None else self.watchdog.fed_us + self.watchdog.timeout_us

    def raise_pending_interrupt(self) -> None:
        """In the loop: a scheduled KeyboardInterrupt is raised at the next bytecode (here: the next port call)."""
        if self._interrupt_pending:
            self._interrupt_pending = False
            raise KeyboardInterrupt

    # --- internals -------------------------------------------------------------------------------------
    def _ticks_ms(self) -> int:
        """The grip timer's ``ticks_ms``: its expiry's while its callback runs, else the board's time."""
        now_us = self.now_us() if self._firing_us is None else self._firing_us
        return (now_us // 1000) & _TICKS_MASK

    def _start_timer(self, timer: TimerModel) -> None:
        """A timer the firmware made: its first expiry one period from now."""
        self.timers.append((timer, [self.now_us() + timer.period_ms * 1000]))

    def _next_wake_us(self, now: int, left_ms: int) -> int:
        """When the loop's wait, still ``left_ms`` from its end by the ms ticks, next wakes by itself: esp32 at the
        next FreeRTOS tick (``ulTaskNotifyTake(pdFALSE, 1)``); rp2 when those ms have passed, to the µs
        (``mp_wfe_or_timeout``)."""
        tick = self.port.tick_us
        if not tick:
            return now + left_ms * 1000
        phase = self.port.tick_phase_us
        return phase + ((now - phase) // tick + 1) * tick

    def _handle(self, request: tuple[str, Any]) -> None:
        """Act on what the loop asked for when it handed the turn back (a wait, or its end), as long as its waits
        end at once."""
        while True:
            kind, value = request
            if kind == "error":
                raise value
            if kind == "done":
                self._serve_returned(value)
            if kind != "block":
                return
            reply = self._start_wait(int(value))
            if reply is None:
                return
            request = self.turns.resume(reply)

    def _start_wait(self, timeout_ms: int) -> Any:
        """``poll.ipoll(timeout_ms)``: its answer at once (input there, or no time to wait), else None: it ends at
        the first wake that finds input, or whose ms ticks show ``timeout_ms`` passed."""
        now = self.now_us()
        self._input_wake_us = None
        self._wait = (now // 1000, timeout_ms, now)
        return self._check_wait(now)

    def _check_wait(self, now: int) -> Any:
        """At a wake of the loop's wait (modselect.c's loop: poll the input, then the elapsed ms): what the wait
        returns if it is over (True: input; False: timed out; a KeyboardInterrupt to raise), else None (it sleeps
        on until its next wake)."""
        assert self._wait is not None
        start_ms, timeout_ms, _wake = self._wait
        left_ms = timeout_ms - (now // 1000 - start_ms)
        if self._interrupt_pending:  # raised by the mp_handle_pending of the wait's hook
            self._interrupt_pending = False
            reply: Any = KeyboardInterrupt()
        elif self.rx:
            reply = True
        elif left_ms <= 0:
            reply = False
        else:
            self._wait = (start_ms, timeout_ms, self._next_wake_us(now, left_ms))
            return None
        self._wait = None
        self._input_wake_us = None
        return reply

    def _serve_returned(self, result: str) -> None:
        """``serve`` returned (a Ctrl-C with every output off): main.py says so, stops the grip timer, and the
        REPL comes up."""
        self.result = result
        self._wait = None
        if self.grip_timer is not None:
            self.grip_timer.deinit()
        if result == "interrupted":
            self.write(b"hanoibot: Ctrl-C: stopped with every servo output off; REPL follows\r\n")
        version = ".".join(str(part) for part in self.port.micropython)
        self.write(f"MicroPython v{version} on {self.port.chip}\r\n>>> ".encode())
