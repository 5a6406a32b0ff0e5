"""Test doubles shared by the firmware tests. Runs under CPython and MicroPython alike (no pytest, no typing)."""

from hanoifw import protocol as p
from hanoifw.controller import Controller
from hanoifw.rxframe import FrameReader, RxFrame

CONTROL_PERIOD_MS = 10
LIMITS = (1000, 2000, 1500, 60000)  # min_us, max_us, start_us, max_speed_us_s for every channel in these tests


class FakeServos:
    """Servo HAL that records every call as (channel, pulse_us), with pulse_us None for release()."""

    def __init__(self):
        self.history = []
        self.current = {}

    def set_pulse_us(self, channel, pulse_us):
        self.history.append((channel, pulse_us))
        self.current[channel] = pulse_us

    def release(self, channel):
        self.history.append((channel, None))
        self.current[channel] = None


class FakeGrip:
    """A grip-current ADC (``machine.ADC``): ``read_u16`` gives ``value`` (None: the read fails)."""

    def __init__(self, value):
        self.value = value

    def read_u16(self):
        if self.value is None:
            raise OSError("sensor unplugged")
        return self.value


class CountingGrip(FakeGrip):
    """A grip ADC that counts its reads."""

    def __init__(self, value):
        super().__init__(value)
        self.reads = 0

    def read_u16(self):
        self.reads += 1
        return super().read_u16()


def sample_grip(ctl, start_ms, duration_ms, every_ms=2):
    """Let ``ctl`` sample its grip sensor every ``every_ms`` from ``start_ms`` for ``duration_ms`` (as the board's
    loop does between steps); returns the time after the last sample."""
    now_ms = start_ms
    while now_ms <= start_ms + duration_ms:
        ctl.sample_sensors(now_ms)
        now_ms += every_ms
    return now_ms


class FakeRail:
    """The rail sense input (``machine.Pin``): ``value()`` is 1 while ``powered``."""

    def __init__(self, powered=True):
        self.powered = powered

    def value(self):
        return 1 if self.powered else 0


class Rng:
    """xorshift32: the same pseudo-random sequence on CPython and MicroPython."""

    def __init__(self, seed):
        self.state = (seed & 0xFFFFFFFF) or 1

    def next(self):
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x

    def below(self, n):
        return self.next() % n


class Host:
    """Plays the host end against a Controller: numbers reliable frames and decodes the replies."""

    def __init__(self, ctl=None, channels=5, **kwargs):
        self.servos = FakeServos()
        kwargs.setdefault("stagger_ms", 0)  # every output on at CONFIG; the staggered enable has its own tests
        self.ctl = ctl or Controller(self.servos, channels=channels, boot_id="b0071d00", **kwargs)
        self.channels = self.ctl.channels
        self.reader = FrameReader()
        self.seq = 0
        self.now_ms = 0
        self.frames = []  # every decoded board frame, in order

    def send(self, kind, fields=()):
        """Send a reliable frame with the next seq; returns its seq."""
        self.seq = (self.seq + 1) % p.SEQ_MOD
        self.ctl.feed(p.encode(kind, self.seq, 0, fields))
        return self.seq

    def send_raw(self, kind, seq, fields=()):
        self.ctl.feed(p.encode(kind, seq, 0, fields))

    def step(self, dt_ms=CONTROL_PERIOD_MS):
        """Advance time by ``dt_ms`` and return the frames the board sent in that step."""
        self.now_ms += dt_ms
        got = self.reader.feed(self.ctl.step(self.now_ms))
        self.frames.extend(got)
        return got

    def run(self, duration_ms, heartbeat=True):
        """Step for ``duration_ms`` in control periods, pinging every period if ``heartbeat``."""
        got = []
        for _ in range(duration_ms // CONTROL_PERIOD_MS):
            if heartbeat:
                self.ctl.feed(p.encode(p.PING, 0, 0, ("hb",)))
            got.extend(self.step())
        return got

    def start(self, limits=LIMITS, grip_threshold=0):
        """SYNC and CONFIG (every channel with ``limits``); returns the frames of the first steps."""
        self.ctl.feed(p.encode(p.SYNC, self.seq, 0, (f"t{self.seq}",)))
        got = self.step()
        self.send(p.CONFIG, config_fields(self.channels, limits, grip_threshold))
        return got + self.step()

    def move(self, cmd_id, duration_ms, pulse_us):
        """Send MOVE with every channel at ``pulse_us`` (an int) or the given list."""
        pulses = pulse_us if isinstance(pulse_us, list) else [pulse_us] * self.channels
        fields = [cmd_id, duration_ms]
        fields.extend(pulses)  # no [a, *b] displays on MicroPython
        return self.send(p.MOVE, fields)

    def status(self):
        self.ctl.feed(p.encode(p.STATUS, 0, 0))
        for frame in self.step(0):
            if frame[0] == p.STATUS:
                return p.unpack(p.STATUS, frame[3])
        raise AssertionError("no STATUS reply")


def config_fields(channels, limits=LIMITS, grip_threshold=0):
    """CONFIG fields: ``limits`` (min_us, max_us, start_us and, optionally, max_speed_us_s) for every channel,
    then the grip threshold."""
    if len(limits) == 3:
        limits = (limits[0], limits[1], limits[2], 60000)
    fields = list(limits) * channels
    fields.append(grip_threshold)
    return fields


def kinds(frames):
    return [frame[0] for frame in frames]


def errors(frames):
    """The ERROR codes among ``frames``."""
    return [frame[3][0] for frame in frames if frame[0] == p.ERROR]


def done_ids(frames):
    return [int(frame[3][0]) for frame in frames if frame[0] == p.DONE]


class FakePWM:
    """machine.PWM stand-in recording ("freq", hz) and ("duty_u16", value) calls."""

    def __init__(self):
        self.calls = []

    def freq(self, hz):
        self.calls.append(("freq", hz))

    def duty_u16(self, value):
        self.calls.append(("duty_u16", value))


class FakeI2C:
    """machine.I2C stand-in with PCA9685s on it, modelled as the datasheet has them (rev. 4, section 7.3):
    power-on MODE1 = 0x11 (SLEEP | ALLCALL, auto-increment off), PRE_SCALE = 0x1E, every LEDn_OFF_H = 0x10
    (full off). Without MODE1.AI a multi-byte write puts every byte into the one addressed register; PRE_SCALE
    only takes a write while SLEEP is set; ALL_LED_* writes go to every LEDn register. Records every writeto_mem
    as (addr, reg, bytes)."""

    def __init__(self):
        self.writes = []
        self.registers = {}

    def chip(self, addr):
        """The register file of the chip at ``addr`` (made in its power-on state on first use)."""
        regs = self.registers.get(addr)
        if regs is None:
            regs = bytearray(256)
            regs[0x00] = 0x11
            regs[0xFE] = 0x1E
            for n in range(16):
                regs[0x06 + 4 * n + 3] = 0x10
            self.registers[addr] = regs
        return regs

    def writeto_mem(self, addr, reg, buf):
        self.writes.append((addr, reg, bytes(buf)))
        regs = self.chip(addr)
        for i in range(len(buf)):
            target = (reg + i) & 0xFF if regs[0x00] & 0x20 else reg
            if target == 0xFE and not regs[0x00] & 0x10:
                continue  # PRE_SCALE is write-protected while the oscillator runs
            if 0xFA <= target <= 0xFD:
                for n in range(16):
                    regs[0x06 + 4 * n + target - 0xFA] = buf[i]
                continue
            regs[target] = buf[i]

    def readfrom_mem_into(self, addr, reg, buf):
        regs = self.chip(addr)
        for i in range(len(buf)):
            buf[i] = regs[(reg + i) & 0xFF if regs[0x00] & 0x20 else reg]

    def pulse_counts(self, addr, output):
        """(ON, OFF) counts of ``output``, or None while it is fully off."""
        regs = self.chip(addr)
        base = 0x06 + 4 * output
        if regs[base + 3] & 0x10:
            return None
        return (regs[base] | (regs[base + 1] & 0x0F) << 8, regs[base + 2] | (regs[base + 3] & 0x0F) << 8)


class FakeClock:
    """time-module stand-in with ticks that wrap at 2**30 and a sleep that only advances them."""

    PERIOD = 1 << 30

    def __init__(self, start_ms=0):
        self.now_ms = start_ms

    def ticks_ms(self):
        return self.now_ms

    def ticks_add(self, ticks, delta):
        return (ticks + delta) % self.PERIOD

    def ticks_diff(self, later, earlier):
        half = self.PERIOD >> 1
        return ((later - earlier + half) % self.PERIOD) - half

    def advance(self, ms):
        self.now_ms = (self.now_ms + ms) % self.PERIOD


class FakeSerialIn:
    """``sys.stdin.buffer`` stand-in with only ``readinto`` (as StreamPort must use it): hands out ``data`` into
    the caller's buffer without allocating, and counts the calls and how often the buffer object changed."""

    def __init__(self, data=b""):
        self.data = bytes(data)
        self.pos = 0
        self.calls = 0
        self.buffer_changes = 0
        self.last_buffer = None

    def waiting(self):
        return len(self.data) - self.pos

    def readinto(self, buf):
        self.calls += 1
        if buf is not self.last_buffer:
            self.buffer_changes += 1
            self.last_buffer = buf
        n = min(len(buf), self.waiting())
        for i in range(n):
            buf[i] = self.data[self.pos + i]
        self.pos += n
        return n


class FakeSerialPoller:
    """MicroPython ``select.poll`` stand-in offering only ``ipoll``: its results are made once and reused, so
    asking allocates nothing; timeouts of waits (``timeout_ms`` > 0) are recorded."""

    def __init__(self, rx):
        self.rx = rx
        self.timeouts = []
        self._ready = [(rx, 1)]
        self._idle = []

    def ipoll(self, timeout_ms=-1):
        if timeout_ms:
            self.timeouts.append(timeout_ms)
        return self._ready if self.rx.waiting() else self._idle


def heap_bytes_during(func):
    """Run ``func()`` and return the heap bytes it allocated (garbage collector off); None where that cannot be
    measured (CPython has no ``gc.mem_alloc``: there the fakes' counters show what was read, into which buffer)."""
    import gc

    mem_alloc = getattr(gc, "mem_alloc", None)
    if mem_alloc is None:
        func()
        return None
    gc.collect()
    gc.disable()
    try:
        before = mem_alloc()
        func()
        return mem_alloc() - before
    finally:
        gc.enable()


def received(kind, fields=(), seq=1):
    """The frame ``kind,seq,0,fields...`` as the board holds it once received: a parsed RxFrame."""
    rx = RxFrame()
    frame = p.encode(kind, seq, 0, fields)
    assert rx.take(frame, 0) == len(frame) and rx.is_frame(), frame
    return rx
