"""Main-loop helper tests with fake ports, clocks and watchdogs (also run under MicroPython)."""

from fwfakes import (
    CONTROL_PERIOD_MS,
    FakeClock,
    FakeSerialIn,
    FakeSerialPoller,
    FakeServos,
    config_fields,
    heap_bytes_during,
)
from hanoifw import protocol as p
from hanoifw.board import StreamPort, make_boot_id, reset_cause_name, serve
from hanoifw.controller import Controller


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


def test_stream_port_reads_every_byte_into_one_buffer_made_at_start():
    port, rx = stream_port(bytes(range(256)) * 2)
    first = bytes(port.read_available())
    assert first == bytes(range(256)) * 2
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
    """Delivers ``script[loop]`` bytes per loop, records writes, waits by advancing the fake clock."""

    def __init__(self, clock, script, interrupt_at=-1):
        self.clock = clock
        self.script = script
        self.interrupt_at = interrupt_at
        self.loop = 0
        self.written = b""

    def read_available(self):
        self.loop += 1
        if self.loop == self.interrupt_at:
            raise KeyboardInterrupt
        return self.script.get(self.loop, b"")

    def wait(self, timeout_ms):
        self.clock.advance(timeout_ms)

    def write(self, data):
        self.written += data


class FakeWdt:
    def __init__(self):
        self.fed = 0

    def feed(self):
        self.fed += 1


def board_frames(port):
    return p.FrameReader().feed(port.written)


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


def test_ctrl_c_latches_estop_holds_the_pose_and_returns():
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
    assert 1500 < servos.current[0] < 1900 and None not in servos.current.values()  # holding, not released
    last = board_frames(port)[-1]
    assert last[0] == p.STATUS and p.unpack(p.STATUS, last[3])["mode"] == "ESTOP"
    writes = len(servos.history)
    ctl.step(clock.ticks_ms() + 500)
    assert len(servos.history) == writes


def test_ctrl_c_is_off_while_an_output_is_on_and_garbage_is_collected_only_when_idle():
    clock = FakeClock()
    script = {
        1: p.encode(p.SYNC, 0, 0, ("t",)),
        150: p.encode(p.CONFIG, 1, 0, config_fields(5)),
        151: p.encode(p.MOVE, 2, 0, [1, 2000] + [1900] * 5),
        400: p.encode(p.RELEASE, 3, 0),
    }
    for loop in range(152, 400):
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
    assert settings == [(1, 3), (150, -1), (400, 3)]  # off from the CONFIG until the RELEASE
    assert collections and all(
        collections[i + 1] - collections[i] >= 100 for i in range(len(collections) - 1)
    )  # at most once a second
    assert not [loop for loop in collections if 151 <= loop < 351]  # never during the 2 s move
