"""The board's main loop and the small pure helpers of ``main.py``, kept here so they are tested.

``serve`` runs the controller at a fixed control period: read what arrived, feed it, step, write the replies,
feed the hardware watchdog (only here, so a hung loop resets the board). The hardware watchdog is started at the
first CONFIG, not at boot: an unconfigured board drives no servo, and this way ``mpremote`` (which stops main.py
with Ctrl-C) can update a freshly booted board before a watchdog that cannot be stopped resets it.

Ctrl-C (byte 0x03) is data here, never MicroPython's keyboard interrupt: ``serve`` turns that off for good
(``kbd_intr(-1)``), because one flipped bit on a UART turns a frame's ``C`` (0x43) into 0x03, and a board dropped
into its REPL stays silent until someone resets it (before the first CONFIG no watchdog runs). ``serve`` stops
only at a Ctrl-C that comes right after another byte no frame holds (a control byte other than the newline), and
only while every output is off: mpremote sends ``\r\x03`` (then ``\r\x01`` for its raw REPL), a person at a
terminal presses Ctrl-C twice; one corrupted byte is never two. It then latches ESTOP and returns "interrupted", so
the REPL comes up and reads what followed the Ctrl-C (:class:`StreamPort` stops reading right after a 0x03).
While an output is on every Ctrl-C is read as noise and dropped (frames never contain 0x03), so nothing stops a
moving or holding arm that way: ``hanoibot home --release`` first.

Input is read and handled in small chunks (32 bytes, under one frame) only until the next control step is due, so a
burst of frames (a host filling the motion queue, or a host faster than a slow board) waits in the USB buffer
instead of delaying the step: motion is stepped every period, never in jumps of many periods' worth. Input that
wakes the loop between two steps is answered at once (ACK, PONG) without a step of its own: a step costs about
50 000 cycles on an RP2040, and the motion needs one per period only.

When the board is idle (nothing queued, nothing received in this loop) the garbage collector runs at most once
a second. While the arm moves, frame handling still makes some garbage (about 13 bytes per input byte: each line's
bytes object, its CRC and the replies' formatting; the heap has about 200 KB free): after every
COLLECT_EVERY_RX_BYTES of input
the collection runs right after a control step, so the next step is late by at most the collection (about 7 ms)
instead of MicroPython collecting by itself at whatever allocation finds the heap full, in the middle of input
handling. (Counting input is cheap; asking ``gc.mem_free()`` walks the whole heap, a few ms each time.)
"""

import binascii

from hanoifw.sensing import GRIP_SAMPLE_MS

GC_EVERY_MS = 1000  # least time between two idle garbage collections
COLLECT_EVERY_RX_BYTES = 2048  # input handled between two collections at most (also while moving): ~50 KB garbage
READ_CHUNK_BYTES = 32  # input read and handled at once: under one MOVE frame, a few ms of work at 125 MHz
SAMPLE_EVERY_MS = GRIP_SAMPLE_MS  # where no timer samples the grip current, the loop does this often while it waits
CTRL_C = 3  # the byte of Ctrl-C (mpremote sends b"\r\x03" to stop a program)
NEWLINE = 10  # the one control byte a frame holds

_RESET_CAUSES = (
    ("PWRON_RESET", "power"),
    ("HARD_RESET", "hard"),
    ("WDT_RESET", "wdt"),
    ("DEEPSLEEP_RESET", "deepsleep"),
    ("SOFT_RESET", "soft"),
)


def reset_cause_name(cause: int, machine: object) -> str:
    """Return the name (power, hard, wdt, deepsleep, soft, unknown) of ``machine.reset_cause()`` value ``cause``;
    ``machine`` is the module, passed in because the constants differ between ports."""
    for attr, name in _RESET_CAUSES:
        value = getattr(machine, attr, None)
        if value is not None and value == cause:
            return name
    return "unknown"


def start_grip_timer(controller, make_timer, ticks_ms, *, period_ms: int = GRIP_SAMPLE_MS):
    """Sample ``controller``'s grip sensor from a timer every ``period_ms`` ms; returns the timer, or None (no
    sensor, or no timer could be made: the loop in :func:`serve` samples then).

    ``make_timer(period_ms, callback, hard)`` makes and starts a periodic ``machine.Timer`` (``main.py``): a hard
    callback first (rp2: it runs in an interrupt, on time, also during a garbage collection), then a soft one
    (esp32 refuses ``hard=True`` with ValueError; its timer schedules the callback and wakes the loop from its
    poll wait). Each call takes one sample at ``ticks_ms()``; the loop and the control step stop sampling first,
    so only the timer writes the meter's readings."""
    if controller.grip_sensor is None:
        return None
    callback = controller.grip_timer_callback(ticks_ms)
    controller.grip_timed = True
    for hard in (True, False):
        try:
            return make_timer(period_ms, callback, hard)
        except Exception:  # this port has no such timer (or none left): try the next kind, then the loop
            pass
    controller.grip_timed = False
    return None


def grip_timer_maker(timer_class, platform: str):
    """``main.py``'s ``make_timer`` for :func:`start_grip_timer`: makes a periodic ``timer_class`` (``machine.Timer``)
    on ``platform`` (``sys.platform``). rp2 has soft timers only (id -1), whose hard callbacks run in an interrupt;
    esp32 has hardware timers 0..3 and runs every callback as a scheduled one that wakes the loop from its poll
    wait. A hard timer is asked for with ``hard=True``, a soft one without the keyword (soft is every port's
    default): MicroPython before 1.26 on rp2 and before 1.27 on esp32 has no ``hard`` keyword at all, and refuses
    ``hard=False`` too (TypeError), which left the loop sampling on an esp32 with 1.26, in 10 ms ticks."""
    timer_id = 0 if platform == "esp32" else -1
    periodic = timer_class.PERIODIC

    def make_timer(period_ms, callback, hard):
        if hard:
            return timer_class(timer_id, mode=periodic, period=period_ms, callback=callback, hard=True)
        return timer_class(timer_id, mode=periodic, period=period_ms, callback=callback)

    return make_timer


def make_boot_id(random_bytes: bytes) -> str:
    """Return the boot id: the first 4 of ``random_bytes`` (from ``os.urandom``) as 8 lower-case hex digits."""
    if len(random_bytes) < 4:
        raise ValueError("%d random bytes: expected at least 4" % len(random_bytes))
    return binascii.hexlify(random_bytes[:4]).decode()


def is_stray(byte: int) -> bool:
    """True for a byte no frame holds: a control byte other than the newline (a frame's tolerated ``\r`` comes
    right before its newline, never before a Ctrl-C)."""
    return byte < 0x20 and byte != NEWLINE


class StreamPort:
    """USB serial on MicroPython: ``rx``/``tx`` are ``sys.stdin.buffer``/``sys.stdout.buffer`` and ``poller`` a
    ``select.poll()`` with ``sys.stdin`` registered for reading.

    Reading allocates nothing per byte (the firmware allocates little in its loop): readiness is asked with
    ``poller.ipoll``, which reuses its result, and each byte is read with ``rx.readinto`` into a one-byte buffer
    made here, then copied into the preallocated receive buffer. One byte at a time because a MicroPython stream's
    ``readinto`` of a longer buffer waits until the whole buffer is filled; ``poll`` only promises that one byte is
    there. A read stops right after a Ctrl-C (0x03): if it stops the loop, what follows it (mpremote's
    ``\r\x01``) is left for the REPL.
    """

    def __init__(self, poller, rx, tx, *, max_read_bytes: int = READ_CHUNK_BYTES) -> None:
        self._poller = poller
        self._rx = rx
        self._tx = tx
        self._buf = bytearray(max_read_bytes)
        self._view = memoryview(self._buf)
        self._byte = bytearray(1)

    def _readable(self, timeout_ms: int) -> bool:
        """True if a byte can be read, waiting at most ``timeout_ms`` for one (no allocation: ipoll)."""
        for _ in self._poller.ipoll(timeout_ms):
            return True
        return False

    def read_available(self) -> "bytes | memoryview":
        """Return the bytes that can be read without blocking (at most ``max_read_bytes``).

        The result is a view of the receive buffer, valid until the next call (``serve`` feeds it to the
        controller at once); ``b""`` when nothing arrived. One call allocates only that view, whatever its length.
        Each byte costs a poll and a read (about 4 700 cycles on an RP2040, most of it the USB stack they both
        run): the loop is written out, without a call of its own per byte.
        """
        if not self._readable(0):  # nothing came (the usual case): return before making any bound method
            return b""
        n = 0
        buf = self._buf
        limit = len(buf)
        byte = self._byte
        ipoll = self._poller.ipoll  # a bound method is a heap object: made only when there are bytes to read
        readinto = self._rx.readinto
        while n < limit:
            ready = False
            for _ in ipoll(0):
                ready = True
                break
            if not ready or not readinto(byte):
                break
            buf[n] = byte[0]
            n += 1
            if byte[0] == CTRL_C:  # the loop decides at once whether it stops here (nothing after it read)
                break
        if n == 0:
            return b""
        return self._view[:n]

    def wait(self, timeout_ms: int) -> bool:
        """Wait until bytes arrive or ``timeout_ms`` passes; True if bytes can be read."""
        return self._readable(timeout_ms)

    def write(self, data: bytes) -> None:
        """Send ``data`` to the host."""
        self._tx.write(data)


def serve(
    controller,
    port,
    clock,
    *,
    make_wdt=None,
    period_ms: int = 10,
    max_loops: int = -1,
    kbd_intr=None,
    collect=None,
    sample_every_ms: int = SAMPLE_EVERY_MS,
) -> str:
    """Run ``controller`` every ``period_ms`` (waking early when bytes arrive) until Ctrl-C or ``max_loops``.

    ``clock`` has ``ticks_ms``, ``ticks_add`` and ``ticks_diff`` (the ``time`` module); ``port`` has
    ``read_available`` (which returns at most up to and including the first Ctrl-C, as :class:`StreamPort` does),
    ``wait`` and ``write``; ``make_wdt`` (or None) is called once, when the controller is
    first configured, and returns an object with ``feed`` (a ``machine.WDT``). ``kbd_intr`` (or None) is
    ``micropython.kbd_intr``: given -1 once, at the start (Ctrl-C is data: see the module doc). ``collect`` (or None) is
    ``gc.collect``, called when idle, and right after a step once COLLECT_EVERY_RX_BYTES of input were handled
    since the last collection. With a grip sensor that no timer samples (:func:`start_grip_timer` found none),
    the wait between two steps is cut into slices of at most ``sample_every_ms``, each followed by a grip-current
    sample (``port.wait`` returns True when input came: the loop then handles it at once); the readings then come
    late while frames are handled or garbage collected, and the grip meter gives no verdict for such a frame.
    Returns "interrupted" after a Ctrl-C right after another stray byte while every output is off, or after a
    KeyboardInterrupt (ESTOP latched, every output off), or "stopped" after ``max_loops`` loops.
    """
    sampling = controller.grip_sensor is not None and not controller.grip_timed
    sample_ms = sample_every_ms
    next_ms = clock.ticks_ms()  # the first step at once: it announces the boot (HELLO)
    collected_ms = clock.ticks_ms()
    rx_bytes = 0  # input handled since the last collection
    loops = 0
    wdt = None
    before = NEWLINE  # the byte read before the current chunk
    if kbd_intr is not None:
        kbd_intr(-1)  # a 0x03 comes in as data: this loop decides whether it stops
    try:
        while loops != max_loops:
            loops += 1
            received = False
            data = port.read_available()
            while data:  # handle input chunk by chunk until the control step is due; the rest waits
                received = True
                n = len(data)
                rx_bytes += n
                controller.feed(data)
                last = data[n - 1]
                if last == CTRL_C and is_stray(data[n - 2] if n > 1 else before) and not controller.is_driving:
                    raise KeyboardInterrupt  # mpremote's or a person's Ctrl-C, never one corrupted byte
                before = last
                if sampling:  # a loop busy with input samples the grip current between chunks
                    controller.sample_sensors(clock.ticks_ms())
                if clock.ticks_diff(clock.ticks_ms(), next_ms) >= 0:
                    break
                data = port.read_available()
            now_ms = clock.ticks_ms()
            stepped = clock.ticks_diff(next_ms, now_ms) <= 0
            if stepped:  # the periodic step: run it and schedule the next one
                out = controller.step_view(now_ms)
                next_ms = clock.ticks_add(next_ms, period_ms)
                if clock.ticks_diff(next_ms, now_ms) <= 0:  # overran: do not try to catch up
                    next_ms = clock.ticks_add(now_ms, period_ms)
            else:  # woken early by input: answer it at once; motion waits for its period
                out = controller.replies_view()
            if out:
                port.write(out)
            if wdt is None and make_wdt is not None and controller.is_configured:
                wdt = make_wdt()
            if wdt is not None:
                wdt.feed()
            if collect is not None:
                idle = not received and not controller.motion.is_busy
                if (stepped and rx_bytes >= COLLECT_EVERY_RX_BYTES) or (
                    idle and clock.ticks_diff(clock.ticks_ms(), collected_ms) >= GC_EVERY_MS
                ):
                    collect()
                    collected_ms = clock.ticks_ms()
                    rx_bytes = 0
            wait_ms = clock.ticks_diff(next_ms, clock.ticks_ms())
            if sampling:  # wait in short slices, sampling the grip current in each: the mean spans the frame
                while wait_ms > 0:
                    if port.wait(wait_ms if wait_ms < sample_ms else sample_ms):
                        break  # input: handle it at once
                    controller.sample_sensors(clock.ticks_ms())
                    wait_ms = clock.ticks_diff(next_ms, clock.ticks_ms())
            elif wait_ms > 0:
                port.wait(wait_ms)
    except KeyboardInterrupt:
        # The Ctrl-C read above, or MicroPython's keyboard interrupt where nobody turned it off (kbd_intr None):
        # switch every output off, so no pin is left pulsing (or frozen high) with no loop behind it.
        controller.release()
        controller.estop()
        controller.report_status()  # tell the host at once
        port.write(controller.step(clock.ticks_ms()))
        return "interrupted"
    return "stopped"
