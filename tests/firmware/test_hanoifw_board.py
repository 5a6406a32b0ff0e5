"""Main-loop helper tests with fake ports, clocks and watchdogs (also run under MicroPython)."""

from fwfakes import (
    CONTROL_PERIOD_MS,
    CountingGrip,
    FakeClock,
    FakeSerialIn,
    FakeSerialPoller,
    FakeServos,
    config_fields,
    heap_bytes_during,
)
from hanoifw import protocol as p
from hanoifw.board import (
    COLLECT_EVERY_RX_BYTES,
    SAMPLE_EVERY_MS,
    StreamPort,
    make_boot_id,
    reset_cause_name,
    serve,
    start_grip_timer,
)
from hanoifw.controller import Controller
from hanoifw.rxframe import FrameReader


class FakeMachine:
    PWRON_RESET = 1
    HARD_RESET = 2
    WDT_RESET = 3
    DEEPSLEEP_RESET = 4
    SOFT_RESET = 5


class NoDeepSleepMachine:  # RP2040 has no DEEPSLEEP_RESET
    PWRON_RESET = 1
    WDT_RESET = 3


def test_reset_causes_are_named_per_port():
    names = [reset_cause_name(code, FakeMachine) for code in (1, 2, 3, 4, 5, 99)]
    assert names == ["power", "hard", "wdt", "deepsleep", "soft", "unknown"]
    assert reset_cause_name(4, NoDeepSleepMachine) == "unknown"
    assert reset_cause_name(3, NoDeepSleepMachine) == "wdt"


def test_boot_id_is_eight_hex_digits_of_the_random_bytes():
    assert make_boot_id(b"\x00\xab\x10\xff\x99") == "00ab10ff"
    try:
        make_boot_id(b"\x01")
    except ValueError as err:
        assert "1 random bytes" in str(err)
    else:
        raise AssertionError("accepted 1 byte")


class FakeStream:
    def __init__(self):
        self.written = b""

    def write(self, data):
        self.written += data


def stream_port(data, max_read_bytes=512):
    rx = FakeSerialIn(data)
    return StreamPort(FakeSerialPoller(rx), rx, FakeStream(), max_read_bytes=max_read_bytes), rx


def test_stream_port_reads_what_is_there_without_blocking():
    port, rx = stream_port(b"x" * 700)
    assert bytes(port.read_available()) == b"x" * 512
    assert bytes(port.read_available()) == b"x" * 188
    assert port.read_available() == b""
    assert rx.calls == 700, "one byte per readinto: a longer one would block on a real stream"
    port.write(b"hi")
    port.wait(7)
    assert port._tx.written == b"hi" and port._poller.timeouts == [7]


def test_stream_port_stops_reading_right_after_a_ctrl_c():
    # What follows a Ctrl-C that stops the loop is the REPL's (mpremote's b"\r\x01" for its raw REPL).
    port, rx = stream_port(b"PING\r\x03\r\x01")
    assert bytes(port.read_available()) == b"PING\r\x03"
    assert rx.waiting() == 2 and bytes(port.read_available()) == b"\r\x01"


def test_stream_port_reads_every_byte_into_one_buffer_made_at_start():
    data = bytes(b for b in range(256) if b != 3) * 2  # a Ctrl-C (3) ends a read
    port, rx = stream_port(data)
    first = bytes(port.read_available())
    assert first == data
    assert rx.buffer_changes == 1, "readinto was handed a new buffer"


def test_reading_many_bytes_allocates_no_more_than_reading_one():
    # MicroPython measures the heap; CPython (no gc.mem_alloc) relies on the fakes: only readinto, one buffer.
    costs = []
    for count in (1, 400):
        port, rx = stream_port(b"z" * count)
        costs.append(heap_bytes_during(port.read_available))
        assert rx.pos == count and rx.buffer_changes == 1
    assert costs[0] == costs[1], costs


class ScriptedPort:
    """Delivers ``script[loop]`` bytes at the first read of each loop (a loop ends with a wait), records writes,
    waits by advancing the fake clock."""

    def __init__(self, clock, script, interrupt_at=-1):
        self.clock = clock
        self.script = script
        self.interrupt_at = interrupt_at
        self.loop = 0
        self.written = b""
        self.waits_ms = []
        self._waited = True

    def read_available(self):
        if not self._waited:
            return b""
        self._waited = False
        self.loop += 1
        if self.loop == self.interrupt_at:
            raise KeyboardInterrupt
        return self.script.get(self.loop, b"")

    def wait(self, timeout_ms):
        self.clock.advance(timeout_ms)
        self._waited = True
        self.waits_ms.append(timeout_ms)

    def write(self, data):
        self.written += data


class FakeWdt:
    def __init__(self):
        self.fed = 0

    def feed(self):
        self.fed += 1


def board_frames(port):
    return FrameReader().feed(port.written)


def test_serve_runs_the_controller_every_period_and_feeds_the_watchdog_once_configured():
    clock = FakeClock(start_ms=(1 << 30) - 35)  # crosses the tick wrap
    script = {
        2: p.encode(p.SYNC, 0, 0, ("t",)),
        3: p.encode(p.CONFIG, 1, 0, config_fields(5)),
        4: p.encode(p.MOVE, 2, 0, [1, 100] + [1600] * 5),
    }
    for loop in range(5, 30):
        script[loop] = p.encode(p.PING, 0, 0)
    port = ScriptedPort(clock, script)
    servos = FakeServos()
    wdts = []

    def make_wdt():
        wdts.append(FakeWdt())
        return wdts[-1]

    ctl = Controller(servos, boot_id="feedf00d", stagger_ms=0)
    assert serve(ctl, port, clock, make_wdt=make_wdt, period_ms=CONTROL_PERIOD_MS, max_loops=30) == "stopped"
    assert len(wdts) == 1 and wdts[0].fed == 28  # started by the CONFIG of loop 3, fed every loop from then on
    assert clock.ticks_diff(clock.now_ms, (1 << 30) - 35) == 30 * CONTROL_PERIOD_MS
    kinds = [frame[0] for frame in board_frames(port)]
    assert kinds[:4] == [p.HELLO, p.HELLO, p.ACK, p.ACK] and p.DONE in kinds
    assert servos.current == {0: 1600, 1: 1600, 2: 1600, 3: 1600, 4: 1600}


def test_ctrl_c_latches_estop_switches_every_output_off_and_returns():
    # Ctrl-C is on only while no output is, but it can land between an output switching on and kbd_intr(-1)
    # (here: no kbd_intr at all): the handler switches every output off, so no pin pulses without a loop behind it.
    clock = FakeClock()
    script = {
        1: p.encode(p.SYNC, 0, 0, ("t",)),
        2: p.encode(p.CONFIG, 1, 0, config_fields(5)),
        3: p.encode(p.MOVE, 2, 0, [1, 1000] + [1900] * 5),
    }
    port = ScriptedPort(clock, script, interrupt_at=20)
    servos = FakeServos()
    ctl = Controller(servos, boot_id="feedf00d", stagger_ms=0)
    assert serve(ctl, port, clock, make_wdt=FakeWdt, period_ms=CONTROL_PERIOD_MS) == "interrupted"
    assert ctl.mode == "ESTOP"
    assert all(servos.current[ch] is None for ch in range(5)), servos.current  # released, nothing left on
    last = board_frames(port)[-1]
    assert last[0] == p.STATUS and p.unpack(p.STATUS, last[3])["mode"] == "ESTOP"
    writes = len(servos.history)
    ctl.step(clock.ticks_ms() + 500)
    assert len(servos.history) == writes


def test_serve_samples_the_grip_current_every_few_ms_between_steps():
    clock = FakeClock()
    script = {1: p.encode(p.SYNC, 0, 0, ("t",)), 2: p.encode(p.CONFIG, 1, 0, config_fields(5, grip_threshold=100))}
    port = ScriptedPort(clock, script)
    grip = CountingGrip(4000)
    ctl = Controller(FakeServos(), boot_id="feedf00d", stagger_ms=0, grip_sensor=grip)
    serve(ctl, port, clock, period_ms=CONTROL_PERIOD_MS, max_loops=30)
    # 30 loops of 10 ms; a step samples too: at least one sample per 2 ms while the gripper is driven
    assert grip.reads >= 280 // 2, grip.reads
    assert ctl.grip.mean_u16 == 4000


class FakeTimer:
    """A periodic ``machine.Timer`` as ``make_timer`` makes it: ``fire()`` is one expiry."""

    def __init__(self, period_ms, callback, hard):
        self.period_ms = period_ms
        self.callback = callback
        self.hard = hard
        self.running = True

    def fire(self):
        if self.running:
            self.callback(self)

    def deinit(self):
        self.running = False


class TimerMaker:
    """``main.py``'s ``make_timer``: makes FakeTimers, refusing hard ones (esp32: ValueError) or every one."""

    def __init__(self, hard_refused=False, all_refused=False):
        self.hard_refused = hard_refused
        self.all_refused = all_refused
        self.asked = []

    def __call__(self, period_ms, callback, hard):
        self.asked.append((period_ms, hard))
        if self.all_refused or (hard and self.hard_refused):
            raise ValueError("hard Timers are not implemented")
        return FakeTimer(period_ms, callback, hard)


def test_the_grip_current_is_sampled_by_a_hard_timer_at_a_fixed_rate():
    clock = FakeClock()
    grip = CountingGrip(4000)
    ctl = Controller(FakeServos(), boot_id="feedf00d", stagger_ms=0, grip_sensor=grip)
    make_timer = TimerMaker()
    timer = start_grip_timer(ctl, make_timer, clock.ticks_ms)
    assert make_timer.asked == [(SAMPLE_EVERY_MS, True)] and timer.hard and ctl.grip_timed
    ctl.feed(p.encode(p.SYNC, 0, 0, ("t",)) + p.encode(p.CONFIG, 1, 0, config_fields(5, grip_threshold=100)))
    ctl.step(clock.ticks_ms())
    assert grip.reads == 0, "the step leaves the sampling to the timer"
    for _ in range(11):
        clock.advance(SAMPLE_EVERY_MS)
        timer.fire()
    assert grip.reads == 11 and ctl.grip.mean_u16 == 4000


def test_a_port_without_hard_timers_samples_from_a_soft_one_and_one_without_timers_from_the_loop():
    clock = FakeClock()
    ctl = Controller(FakeServos(), boot_id="feedf00d", grip_sensor=CountingGrip(4000))
    esp32 = TimerMaker(hard_refused=True)
    timer = start_grip_timer(ctl, esp32, clock.ticks_ms)
    assert esp32.asked == [(SAMPLE_EVERY_MS, True), (SAMPLE_EVERY_MS, False)] and not timer.hard and ctl.grip_timed
    ctl = Controller(FakeServos(), boot_id="feedf00d", grip_sensor=CountingGrip(4000))
    none = TimerMaker(all_refused=True)
    assert start_grip_timer(ctl, none, clock.ticks_ms) is None and not ctl.grip_timed
    assert len(none.asked) == 2
    ctl = Controller(FakeServos(), boot_id="feedf00d")
    assert start_grip_timer(ctl, TimerMaker(), clock.ticks_ms) is None and not ctl.grip_timed, "no sensor"


def test_with_a_grip_timer_serve_waits_whole_periods_and_never_samples():
    clock = FakeClock()
    script = {1: p.encode(p.SYNC, 0, 0, ("t",)), 2: p.encode(p.CONFIG, 1, 0, config_fields(5, grip_threshold=100))}
    port = ScriptedPort(clock, script)
    grip = CountingGrip(4000)
    ctl = Controller(FakeServos(), boot_id="feedf00d", stagger_ms=0, grip_sensor=grip)
    start_grip_timer(ctl, TimerMaker(), clock.ticks_ms)
    serve(ctl, port, clock, period_ms=CONTROL_PERIOD_MS, max_loops=30)
    assert grip.reads == 0 and ctl.grip.mean_u16 == -1, "only the timer samples (and it never fired here)"
    assert min(port.waits_ms) == CONTROL_PERIOD_MS, "no 2 ms slices: the timer wakes nothing in the loop"


def test_the_keyboard_interrupt_is_off_for_good_and_garbage_is_collected_when_idle():
    clock = FakeClock()
    script = {
        1: p.encode(p.SYNC, 0, 0, ("t",)),
        150: p.encode(p.CONFIG, 1, 0, config_fields(5)),
        151: p.encode(p.MOVE, 2, 0, [1, 2000] + [1900] * 5),
        400: p.encode(p.RELEASE, 3, 0),
    }
    for loop in range(160, 400, 10):  # a heartbeat every 100 ms: too little input to collect for while moving
        script[loop] = p.encode(p.PING, 0, 0)
    port = ScriptedPort(clock, script)
    settings = []
    collections = []
    ctl = Controller(FakeServos(), boot_id="feedf00d", stagger_ms=0)

    def kbd_intr(char):
        settings.append((port.loop, char))

    def collect():
        collections.append(port.loop)
        assert not ctl.motion.is_busy

    serve(ctl, port, clock, period_ms=CONTROL_PERIOD_MS, max_loops=420, kbd_intr=kbd_intr, collect=collect)
    assert settings == [(0, -1)], "off before the first read, and never on again: a 0x03 is data"
    assert collections and all(
        collections[i + 1] - collections[i] >= 100 for i in range(len(collections) - 1)
    )  # at most once a second
    assert not [loop for loop in collections if 151 <= loop < 351]  # never during the 2 s move


class KeyboardPort(ScriptedPort):
    """Serial input as MicroPython's USB and UART drivers hand it over: ``script[loop]`` bytes arrive at the first
    read of each loop; while the keyboard interrupt is on (``kbd_intr(3)``), a 0x03 is taken out of the input and
    raises KeyboardInterrupt at the next read, else it is a byte like any other. A read returns at most up to and
    including the first 0x03 (as StreamPort reads); the rest waits in :attr:`pending`."""

    def __init__(self, clock, script):
        ScriptedPort.__init__(self, clock, script)
        self.interrupt_char = -1
        self.pending = b""
        self.interrupts = 0

    def kbd_intr(self, char):
        self.interrupt_char = char

    def read_available(self):
        self.pending += ScriptedPort.read_available(self)
        if self.interrupt_char == 3 and 3 in self.pending:
            cut = self.pending.index(b"\x03")
            self.pending = self.pending[:cut] + self.pending[cut + 1 :]
            self.interrupts += 1
            raise KeyboardInterrupt
        cut = self.pending.find(b"\x03")
        end = len(self.pending) if cut < 0 else cut + 1
        data, self.pending = self.pending[:end], self.pending[end:]
        return data


def serve_keyboard(script, loops, stagger_ms=0):
    """Serve a fresh controller ``loops`` loops from a :class:`KeyboardPort` playing ``script``; returns (result,
    controller, port)."""
    clock = FakeClock()
    port = KeyboardPort(clock, script)
    ctl = Controller(FakeServos(), boot_id="feedf00d", stagger_ms=stagger_ms)
    result = serve(ctl, port, clock, period_ms=CONTROL_PERIOD_MS, max_loops=loops, kbd_intr=port.kbd_intr)
    return result, ctl, port


def test_one_flipped_bit_never_drops_an_idle_board_to_its_repl():
    # Issue 34, defect 4: a bit flip on a UART turns the C of SYNC (0x43) into 0x03. With every output off, Ctrl-C
    # was live and dropped the board into its REPL, where it stayed silent (no watchdog before the first CONFIG).
    # Now one stray 0x03, or one Ctrl-C pressed alone, is noise; a Ctrl-C right after another one stops the loop.
    spoiled = bytearray(p.encode(p.SYNC, 0, 0, ("t",)))
    spoiled[spoiled.index(b"C")] = 0x03
    ping = p.encode(p.PING, 0, 0, ("x",))
    script = {2: bytes(spoiled), 4: p.encode(p.SYNC, 0, 0, ("t",)), 6: b"\x03", 9: ping, 10: ping}  # 9: spoiled
    result, ctl, port = serve_keyboard(script, 20)
    assert result == "stopped" and port.interrupts == 0 and ctl.mode == "UNCONFIGURED"
    kinds = [frame[0] for frame in board_frames(port)]
    assert kinds.count(p.HELLO) == 2 and p.PONG in kinds, "the board kept answering after each stray 0x03"
    script[12] = b"\x03"
    script[13] = b"\x03"  # a person pressing Ctrl-C twice
    result, ctl, port = serve_keyboard(script, 20)
    assert (result, port.loop, ctl.mode) == ("interrupted", 13, "ESTOP")


def test_mpremote_stops_the_board_only_while_every_output_is_off_and_leaves_it_the_rest():
    # mpremote stops a program with b"\r\x03", then enters the raw REPL with b"\r\x01" (tools/mpremote
    # transport_serial.py, enter_raw_repl): while the arm is driven nothing stops; right after a RELEASE, in the
    # same burst, the loop stops and leaves the b"\r\x01" unread, for the REPL.
    script = {
        1: p.encode(p.SYNC, 0, 0, ("t",)),
        2: p.encode(p.CONFIG, 1, 0, config_fields(5)),
        3: p.encode(p.MOVE, 2, 0, [1, 100] + [1600] * 5),
        20: b"\r\x03\r\x01",  # noise while driven; its \r\x01 spoils the next line, so the host sends it again
        25: p.encode(p.RELEASE, 3, 0),
        30: p.encode(p.RELEASE, 3, 0) + b"\r\x03\r\x01",
    }
    result, ctl, port = serve_keyboard(script, 60)
    assert (result, port.loop, ctl.mode, ctl.is_driving) == ("interrupted", 30, "ESTOP", False)
    assert port.pending == b"\r\x01" and port.interrupts == 0
    last = board_frames(port)[-1]
    assert last[0] == p.STATUS and p.unpack(p.STATUS, last[3])["mode"] == "ESTOP"


class BurstSerialIn(FakeSerialIn):
    """USB input whose bytes arrive at set times (``arrivals``: (t_ms, bytes) in order) and cost the chip
    ``us_per_byte`` each to read and handle: the clock advances as they are read, as on a slow board."""

    def __init__(self, clock, arrivals, us_per_byte):
        FakeSerialIn.__init__(self)
        self.clock = clock
        self.arrivals = list(arrivals)
        self.us_per_byte = us_per_byte
        self._spent_us = 0

    def next_arrival_ms(self):
        return self.arrivals[0][0] if self.arrivals else None

    def waiting(self):
        while self.arrivals and self.clock.ticks_diff(self.clock.now_ms, self.arrivals[0][0]) >= 0:
            self.data = self.data[self.pos :] + self.arrivals.pop(0)[1]
            self.pos = 0
        return FakeSerialIn.waiting(self)

    def readinto(self, buf):
        n = FakeSerialIn.readinto(self, buf)
        self._spent_us += n * self.us_per_byte
        self.clock.advance(self._spent_us // 1000)
        self._spent_us %= 1000
        return n


class WaitingPoller(FakeSerialPoller):
    """``ipoll`` that waits on the fake clock: until ``timeout_ms`` passes or the next bytes arrive."""

    def ipoll(self, timeout_ms=-1):
        if timeout_ms > 0 and not self.rx.waiting():
            until_ms = self.rx.next_arrival_ms()
            wait_ms = (
                timeout_ms
                if until_ms is None
                else min(timeout_ms, self.rx.clock.ticks_diff(until_ms, self.rx.clock.now_ms))
            )
            self.rx.clock.advance(max(wait_ms, 0))
        return FakeSerialPoller.ipoll(self, timeout_ms)


class StepTimes(Controller):
    """The real Controller, noting the time of every control step."""

    def __init__(self, *args, **kwargs):
        Controller.__init__(self, *args, **kwargs)
        self.step_times_ms = []

    def step_view(self, now_ms):
        self.step_times_ms.append(now_ms)
        return Controller.step_view(self, now_ms)


def test_a_burst_of_frames_on_a_slow_board_never_delays_the_control_step_by_more_than_a_period():
    # A host filling the motion queue while the arm moves sends 7 MOVEs at once; reading and handling a byte costs
    # this board 0.1 ms (about 5 ms per MOVE). Handling the whole burst before the next step held the step back
    # 4 periods, so the pulses jumped 4 periods' worth at once: a servo at its speed limit left the planned path.
    clock = FakeClock()
    arrivals = [(0, p.encode(p.SYNC, 0, 0, ("t",))), (20, p.encode(p.CONFIG, 1, 0, config_fields(5)))]
    arrivals.append((40, p.encode(p.MOVE, 2, 0, [1, 1000] + [1900] * 5)))
    burst = b""
    for cmd_id in range(2, 9):
        burst += p.encode(p.MOVE, cmd_id + 1, 0, [cmd_id, 1000] + [1100 if cmd_id % 2 else 1900] * 5)
    arrivals.append((400, burst))
    for t_ms in range(100, 9000, 100):  # the host's heartbeat
        arrivals.append((t_ms, p.encode(p.PING, 0, 0, ("hb",))))
    arrivals.sort(key=lambda arrival: arrival[0])
    rx = BurstSerialIn(clock, arrivals, us_per_byte=100)
    port = StreamPort(WaitingPoller(rx), rx, FakeStream())
    ctl = StepTimes(FakeServos(), boot_id="feedf00d", stagger_ms=0)
    serve(ctl, port, clock, period_ms=CONTROL_PERIOD_MS, max_loops=1200)
    assert ctl.last_done_cmd == 8, "every MOVE of the burst was handled and run"
    times = ctl.step_times_ms
    worst_gap_ms = max(times[i + 1] - times[i] for i in range(len(times) - 1))
    assert worst_gap_ms <= 2 * CONTROL_PERIOD_MS, f"a control step came {worst_gap_ms} ms after the previous one"


def test_garbage_is_collected_right_after_a_step_every_so_much_input_also_while_moving():
    # Frame handling makes garbage while the arm moves; left alone, MicroPython collects at whatever allocation
    # finds the heap full (about 7 ms, in the middle of input handling). After COLLECT_EVERY_RX_BYTES of input the
    # loop collects right after a control step instead.
    clock = FakeClock()
    script = {1: p.encode(p.SYNC, 0, 0, ("t",)), 2: p.encode(p.CONFIG, 1, 0, config_fields(5))}
    script[3] = p.encode(p.MOVE, 2, 0, [1, 3000] + [1900] * 5)
    ping = p.encode(p.PING, 0, 0, ("heartbeat-with-a-long-token",))
    for loop in range(4, 280):
        script[loop] = ping * 2
    port = ScriptedPort(clock, script)
    events = []

    class Noted(Controller):
        def step_view(self, now_ms):
            events.append(("step", self.motion.is_busy, 0))
            return Controller.step_view(self, now_ms)

        def feed(self, data):
            events.append(("feed", self.motion.is_busy, len(data)))
            Controller.feed(self, data)

    def collect():
        events.append(("collect", ctl.motion.is_busy, 0))

    ctl = Noted(FakeServos(), boot_id="feedf00d", stagger_ms=0)
    serve(ctl, port, clock, period_ms=CONTROL_PERIOD_MS, max_loops=280, collect=collect)
    collections = [i for i, event in enumerate(events) if event[0] == "collect"]
    assert [events[i][1] for i in collections].count(True) >= 2, "collected while moving"
    assert all(events[i - 1][0] == "step" for i in collections), "each collection right after a control step"
    handled = 0
    for kind, _busy, size in events:
        handled = 0 if kind == "collect" else handled + size
        assert handled < COLLECT_EVERY_RX_BYTES + 2 * len(ping), "too much input between two collections"


class TimedInputPort:
    """A port whose input arrives at given times (ms after start, from ``arrivals``): ``wait`` returns early when
    bytes arrive, as ``select.poll`` does, and every write is noted with its time."""

    def __init__(self, clock, arrivals):
        self.clock = clock
        self.start_ms = clock.ticks_ms()
        self.arrivals = sorted(arrivals.items())
        self.writes = []  # (time in ms after start, bytes)

    def _now(self):
        return self.clock.ticks_diff(self.clock.ticks_ms(), self.start_ms)

    def read_available(self):
        if self.arrivals and self.arrivals[0][0] <= self._now():
            return self.arrivals.pop(0)[1]
        return b""

    def wait(self, timeout_ms):
        step_ms = timeout_ms
        if self.arrivals:
            step_ms = min(timeout_ms, max(self.arrivals[0][0] - self._now(), 0))
        self.clock.advance(step_ms)

    def write(self, data):
        self.writes.append((self._now(), bytes(data)))


def test_input_between_two_steps_is_answered_at_once_without_a_step_of_its_own():
    # A step costs the board ~50 000 cycles: input that wakes the loop mid-period gets its ACK and PONG at once,
    # and motion is stepped once per period only.
    clock = FakeClock(start_ms=1000)
    arrivals = {3: p.encode(p.SYNC, 0, 0, ("t",)), 13: p.encode(p.CONFIG, 1, 0, config_fields(5))}
    arrivals[24] = p.encode(p.PING, 0, 0, ("mid",))
    arrivals[37] = p.encode(p.MOVE, 2, 0, [1, 100] + [1600] * 5)
    port = TimedInputPort(clock, arrivals)

    class SteppedController(Controller):
        def step_view(self, now_ms):
            steps.append(clock.ticks_diff(now_ms, 1000))
            return Controller.step_view(self, now_ms)

    steps = []
    ctl = SteppedController(FakeServos(), boot_id="feedf00d", stagger_ms=0)
    assert serve(ctl, port, clock, period_ms=CONTROL_PERIOD_MS, max_loops=20) == "stopped"
    assert steps == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150][: len(steps)], steps
    reader = FrameReader()
    replies = [(t_ms, frame[0]) for t_ms, data in port.writes for frame in reader.feed(data)]
    assert (24, p.PONG) in replies and (37, p.ACK) in replies and (3, p.HELLO) in replies, replies
