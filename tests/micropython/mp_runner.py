"""Test runner that executes under MicroPython (loaded by run.mjs): no pytest there, so it imports every
``test_*.py`` module of the firmware tests and calls each ``test_*`` function, and it plays the host-codec
exchange. Also importable by CPython (tests/board/test_firmware_on_micropython.py runs the same exchange for reference).
"""

import binascii
import os
import sys

from hanoifw.controller import Controller


class RecordingServos:
    """Servo HAL stand-in for the exchange: keeps the last pulse per channel."""

    def __init__(self, channels):
        self.pulses_us = [0] * channels

    def set_pulse_us(self, channel, pulse_us):
        self.pulses_us[channel] = pulse_us

    def release(self, channel):
        self.pulses_us[channel] = 0


class Tally:
    """Runs checks, prints one PASS/FAIL line each (with the traceback on failure) and counts them."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, label, func, *args):
        try:
            func(*args)
        except Exception as err:
            self.failed += 1
            print(f"FAIL {label}")
            sys.print_exception(err)
            return
        self.passed += 1
        print(f"PASS {label}")


def compile_file(path):
    with open(path) as f:
        compile(f.read(), path, "exec")


def assert_step_allocates_nothing():
    used = step_allocation_bytes()
    assert used == 0, f"{used} bytes"


def assert_quiet_loop_allocates_nothing():
    used = quiet_loop_allocation_bytes()
    assert used == 0, f"{used} bytes in 20 loops"


def assert_bus_step_allocates_nothing():
    used, answers = bus_step_allocation_bytes()
    assert answers >= 15, f"{answers} answers read"  # the driver did read the bus while it was measured
    assert used == 0, f"{used} bytes in 20 steps"


MOVE_HEAP_BOUND_BYTES = 700  # per MOVE frame handled and its ACK/DONE sent (split-into-str codec: ~1 800)


def assert_move_frames_allocate_little():
    used = move_allocation_bytes()
    print(f"heap per MOVE frame in, ACK and DONE out: {used} bytes")
    assert used <= MOVE_HEAP_BOUND_BYTES, f"{used} bytes per MOVE: expected at most {MOVE_HEAP_BOUND_BYTES}"


def run_tests(test_dir, result_path, board_dir=None):
    """Run every test_* function in ``test_dir``/test_*.py, compile every .py in ``board_dir`` (main.py and
    board_config.py, which need a real board to run) and check that a control step allocates nothing; print
    PASS/FAIL lines and a summary; write the number of failures to ``result_path``."""
    tally = Tally()
    for name in sorted(os.listdir(board_dir)) if board_dir else ():
        tally.check("compile " + name, compile_file, board_dir + "/" + name)
    for name in sorted(os.listdir(test_dir)):
        if not (name.startswith("test_") and name.endswith(".py")):
            continue
        module_name = name[:-3]
        try:
            module = __import__(module_name)
        except Exception as err:
            tally.failed += 1
            print(f"FAIL {module_name} (import)")
            sys.print_exception(err)
            continue
        for attr in sorted(dir(module)):
            func = getattr(module, attr)
            if attr.startswith("test_") and callable(func):
                tally.check(module_name + "." + attr, func)
    tally.check("a moving control step allocates no heap", assert_step_allocates_nothing)
    tally.check("a MOVE frame in and its replies out allocate little heap", assert_move_frames_allocate_little)
    tally.check("a quiet moving loop of the board allocates no heap", assert_quiet_loop_allocates_nothing)
    tally.check("a quiet moving step with bus servos allocates no heap", assert_bus_step_allocates_nothing)
    print(f"MICROPYTHON SUMMARY passed={tally.passed} failed={tally.failed}")
    with open(result_path, "w") as f:
        f.write(f"{tally.failed}\n")


def step_allocation_bytes(steps=20):
    """Heap bytes that ``steps`` control steps of a moving Controller allocate (MicroPython only: gc.mem_alloc).
    The firmware promises zero: a step that allocates makes the garbage collector pause the loop."""
    import gc

    from hanoifw import protocol as p

    ctl = Controller(RecordingServos(5), boot_id="a110c8ed", stagger_ms=0)
    ctl.feed(p.encode(p.SYNC, 0, 0, ("t",)))
    ctl.step(0)
    ctl.feed(p.encode(p.CONFIG, 1, 0, [1000, 2000, 1500, 60000] * 5 + [0]))
    ctl.step(10)
    ctl.feed(p.encode(p.MOVE, 2, 0, [1, 5000, 1900, 1100, 1700, 1300, 1999]))
    ctl.step(20)
    ctl.step(30)
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for i in range(steps):
        ctl.step(40 + 10 * i)
    used = gc.mem_alloc() - before
    gc.enable()
    assert ctl.mode == "MOVING", ctl.mode
    return used


class QuietPoller:
    """``select.poll`` with nothing ever to read: ``ipoll`` gives one empty result made once."""

    def __init__(self):
        self._idle = []

    def ipoll(self, timeout_ms=-1):
        return self._idle


class TickingClock:
    """The ``time`` module's tick functions; every ``ticks_ms`` call is 1 ms later (so waits end)."""

    def __init__(self):
        self.now_ms = 0

    def ticks_ms(self):
        self.now_ms += 1
        return self.now_ms

    def ticks_add(self, ticks, delta):
        return (ticks + delta) & 0x3FFFFFFF

    def ticks_diff(self, later, earlier):
        diff = (later - earlier) & 0x3FFFFFFF
        return diff - 0x3FFFFFFF - 1 if diff & 0x20000000 else diff  # 2**30 itself is no small int


def quiet_loop_allocation_bytes(loops=20):
    """Heap bytes that ``loops`` more loops of the board's ``serve`` allocate while the arm moves and no input
    comes (MicroPython only: gc.mem_alloc), with a grip sensor sampled between steps and a rail sense input: the
    difference between a run of 1 + ``loops`` loops and one of 1 loop, so ``serve``'s own start-up cancels out."""
    import gc

    from fwfakes import FakeGrip, FakeRail, FakeSerialIn
    from hanoifw import protocol as p
    from hanoifw.board import StreamPort, serve

    ctl = Controller(
        RecordingServos(5),
        boot_id="a110c8ed",
        stagger_ms=0,
        watchdog_ms=0,
        grip_sensor=FakeGrip(30000),
        rail_sense=FakeRail(True),
    )
    ctl.feed(p.encode(p.SYNC, 0, 0, ("t",)))
    ctl.step(0)
    ctl.feed(p.encode(p.CONFIG, 1, 0, [1000, 2000, 1500, 60000] * 5 + [100]))
    ctl.step(10)
    ctl.feed(p.encode(p.MOVE, 2, 0, [1, 50000, 1900, 1100, 1700, 1300, 1999]))
    ctl.step(20)
    rx = FakeSerialIn(b"")
    port = StreamPort(QuietPoller(), rx, None)
    clock = TickingClock()
    settings = []

    def kbd_intr(char):
        settings.append(char)

    def run(n):
        serve(ctl, port, clock, period_ms=10, max_loops=n, kbd_intr=kbd_intr)

    run(2)  # a first run: whatever serve sets up once is there before the measured runs
    costs = []
    for n in (1, 1 + loops):
        gc.collect()
        gc.disable()
        before = gc.mem_alloc()
        run(n)
        costs.append(gc.mem_alloc() - before)
        gc.enable()
    assert ctl.mode == "MOVING", ctl.mode
    return costs[1] - costs[0]


def move_allocation_bytes(moves=50):
    """Heap bytes per MOVE that a configured Controller allocates taking ``moves`` MOVE frames of 20 ms (fed as
    views of one receive buffer, as the board's loop does) and stepping twice per MOVE, replies taken as views
    (MicroPython only: gc.mem_alloc). Every channel changes with every MOVE."""
    import gc

    from hanoifw import protocol as p

    ctl = Controller(RecordingServos(5), boot_id="a110c8ed", stagger_ms=0, watchdog_ms=0)
    ctl.feed(p.encode(p.SYNC, 0, 0, ("t",)))
    ctl.step(0)
    ctl.feed(p.encode(p.CONFIG, 1, 0, [1000, 2000, 1500, 60000] * 5 + [0]))
    ctl.step(10)
    frames = [
        p.encode(p.MOVE, k + 2, 0, [k + 1, 20] + [1000 + (k * 7 + c * 50) % 1000 for c in range(5)])
        for k in range(moves)
    ]
    received = memoryview(bytearray(b"".join(frames)))
    views = []
    start = 0
    for frame in frames:
        views.append(received[start : start + len(frame)])
        start += len(frame)
    now_ms = 10
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for view in views:
        ctl.feed(view)
        now_ms += 10
        ctl.step_view(now_ms)
        now_ms += 10
        ctl.step_view(now_ms)
    used = gc.mem_alloc() - before
    gc.enable()
    assert ctl.last_done_cmd >= moves - 1 and not ctl.faults, (ctl.last_done_cmd, ctl.faults)
    return used // moves


def exchange(in_path, out_path, channels=5):
    """Feed each line ``t_ms hexbytes`` of ``in_path`` to a fresh Controller, step it at ``t_ms`` and write
    ``t_ms hexreply`` to ``out_path`` per line."""
    ctl = Controller(RecordingServos(channels), channels=channels, boot_id="e0e0e0e0", reset_cause="soft", stagger_ms=0)
    with open(in_path) as src:
        lines = src.read().split("\n")
    out = []
    for line in lines:
        if not line.strip():
            continue
        parts = line.split(" ")
        now_ms = int(parts[0])
        if len(parts) > 1 and parts[1]:
            ctl.feed(binascii.unhexlify(parts[1]))
        reply = ctl.step(now_ms)
        out.append(f"{now_ms} {binascii.hexlify(reply).decode()}")
    with open(out_path, "w") as dst:
        dst.write("\n".join(out) + "\n")


class QuietBus:
    """A ``machine.UART`` on a bus of servos that allocates nothing: what is written comes back as its echo, and
    a READ of a servo is answered with that servo's status packet, made once here; all in one ring made once."""

    def __init__(self, ids):
        from hanoifw import feetech as f

        self.ring = bytearray(512)
        self.head = 0
        self.count = 0
        self.answers = {}
        for servo_id in ids:
            data = bytearray(f.FEEDBACK_BYTES)
            f.put_u16(data, 0, 2048)
            answer = bytearray(6 + f.FEEDBACK_BYTES)
            at = f.begin(answer, servo_id, 0, f.FEEDBACK_BYTES)  # error byte 0
            answer[at : at + f.FEEDBACK_BYTES] = data
            f.seal(answer)
            self.answers[servo_id] = answer

    def _put(self, data):
        ring = self.ring
        size = len(ring)
        at = (self.head + self.count) % size
        for i in range(len(data)):
            ring[at] = data[i]
            at += 1
            if at == size:
                at = 0
        self.count += len(data)

    def write(self, data):
        self._put(data)  # the echo
        if len(data) == 8 and data[4] == 0x02:  # a READ: its servo answers
            self._put(self.answers[data[2]])
        return len(data)

    def any(self):
        return self.count

    def readinto(self, buf, nbytes):
        ring = self.ring
        size = len(ring)
        n = nbytes if nbytes < self.count else self.count
        head = self.head
        for i in range(n):
            buf[i] = ring[head]
            head += 1
            if head == size:
                head = 0
        self.head = head
        self.count -= n
        return n

    def flush(self):
        pass


def bus_step_allocation_bytes(steps=20):
    """Heap bytes that ``steps`` control steps of a moving Controller on bus servos allocate (MicroPython only:
    gc.mem_alloc), each step writing the goals and a READ and reading an echo and an answer; and how many answers
    the driver read meanwhile."""
    import gc

    from hanoifw import protocol as p
    from hanoifw.busservos import BusGripLoad, BusServos

    ids = (1, 2, 3, 4, 5)
    bus = BusServos(QuietBus(ids), ids)
    ctl = Controller(bus, boot_id="a110c8ed", stagger_ms=0, watchdog_ms=0, grip_sensor=BusGripLoad(bus))
    ctl.feed(p.encode(p.SYNC, 0, 0, ("t",)))
    ctl.step(0)
    ctl.feed(p.encode(p.CONFIG, 1, 0, [1000, 2000, 1500, 60000] * 5 + [100]))
    ctl.step(10)
    ctl.feed(p.encode(p.MOVE, 2, 0, [1, 50000, 1900, 1100, 1700, 1300, 1999]))
    ctl.step(20)
    ctl.step(30)  # the steps that switch servos on and lay the frames out are behind us
    answers = bus.answers
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for i in range(steps):
        ctl.step_view(40 + 10 * i)
        ctl.sample_sensors(45 + 10 * i)
    used = gc.mem_alloc() - before
    gc.enable()
    assert ctl.mode == "MOVING" and not ctl.faults, (ctl.mode, ctl.faults)
    return used, bus.answers - answers
