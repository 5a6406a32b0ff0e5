"""An ESP32's or ESP32-S3's GPIO matrix and LEDC as ``machine.mem32`` reads them, and ``machine.PWM`` on top as
MicroPython v1.27's esp32 port drives it, for the firmware tests (CPython and MicroPython alike).

Built from ESP-IDF v5.5.1's register headers (addresses written out here, not imported from the firmware) and
MicroPython's ports/esp32/machine_pwm.c: a new PWM takes the first free channel of the first speed mode (the
classic ESP32's high-speed mode first), and a timer already running at its frequency (else the first free one);
at 50 Hz the timer counts 2**16 (ESP32) or 2**13 (ESP32-S3: its 14-bit maximum less one) per frame; MicroPython
routes the channel's output signal to the pin through the GPIO matrix. A ``duty_u16`` takes effect at the next
overflow of the channel's timer. Every register read takes ``counts_per_access`` timer counts and every
``duty_u16`` call ``counts_per_call`` (the timer advances first, and overflows on the way); a test puts the
overflow anywhere with :meth:`FakeLedc.place_overflow`. At each overflow the block notes the duty every channel of
that timer latched: :attr:`FakeLedc.frames`. Writes, and reads of any register not modelled, raise ValueError.
"""

CHIPS = {
    # chip: GPIO_FUNC0_OUT_SEL_CFG_REG, DR_REG_LEDC_BASE, speed modes: (LEDC output signal 0, CH0_CONF0, TIMER0_CONF)
    "ESP32": (0x3FF44530, 0x3FF59000, ((71, 0x000, 0x140), (79, 0x0A0, 0x160))),
    "ESP32S3": (0x60004554, 0x60019000, ((73, 0x000, 0x0A0),)),
}
RESOLUTION_AT_50_HZ = {"ESP32": 16, "ESP32S3": 13}
SIG_GPIO_OUT_IDX = 256  # gpio_sig_map.h: the pin is a plain GPIO output
GPIOS = 49


class FakeLedc:
    """The GPIO matrix and LEDC of ``chip`` ("ESP32", "ESP32S3"), indexable like ``machine.mem32``."""

    def __init__(self, chip="ESP32", counts_per_access=1, counts_per_call=8):
        self.chip = chip
        self.out_sel_base, self.ledc_base, self.modes = CHIPS[chip]
        self.counts_per_access = counts_per_access
        self.counts_per_call = counts_per_call
        self.out_sel = [SIG_GPIO_OUT_IDX] * GPIOS
        n = len(self.modes)
        self.channel_pin = [[-1] * 8 for _ in range(n)]
        self.channel_timer = [[0] * 8 for _ in range(n)]
        self.duty = [[0] * 8 for _ in range(n)]  # latched: what the channel outputs this frame
        self.pending = [[None] * 8 for _ in range(n)]  # set by duty_u16, latched at the timer's overflow
        self.timer_freq = [[-1] * 4 for _ in range(n)]
        self.timer_res = [[0] * 4 for _ in range(n)]
        self.timer_count = [[0] * 4 for _ in range(n)]
        self.timer_paused = [[False] * 4 for _ in range(n)]
        self.frames = []  # at each overflow: (mode, timer, [(channel, latched duty), ...])
        self.count = 0  # register reads so far

    # --- machine.mem32 --------------------------------------------------------------------------------------
    def owns(self, address):
        """True for an address of the GPIO matrix's output selection or of the LEDC."""
        return self.out_sel_base <= address < self.out_sel_base + 4 * GPIOS or 0 <= address - self.ledc_base < 0x200

    def __getitem__(self, address):
        self.count += 1
        self.advance(self.counts_per_access)
        offset = address - self.out_sel_base
        if 0 <= offset < 4 * GPIOS and offset % 4 == 0:
            return self.out_sel[offset // 4]
        offset = address - self.ledc_base
        for mode in range(len(self.modes)):
            _first, channel0, timer0 = self.modes[mode]
            if 0 <= offset - channel0 < 8 * 0x14 and (offset - channel0) % 0x14 == 0:
                return self.channel_timer[mode][(offset - channel0) // 0x14]
            if 0 <= offset - timer0 < 4 * 8 and (offset - timer0) % 4 == 0:
                timer = (offset - timer0) // 8
                if (offset - timer0) % 8 == 0:
                    return self.timer_res[mode][timer] | (1 << 23 if self.timer_paused[mode][timer] else 0)
                return self.timer_count[mode][timer]
        raise ValueError(f"address 0x{address:08x}: no register modelled on {self.chip}")

    def __setitem__(self, address, value):
        raise ValueError(f"address 0x{address:08x} written: the servo HAL only reads {self.chip}'s LEDC")

    # --- what a test does -----------------------------------------------------------------------------------
    def running(self):
        """The (mode, timer) pairs that run."""
        return [
            (mode, timer)
            for mode in range(len(self.modes))
            for timer in range(4)
            if self.timer_freq[mode][timer] > 0 and not self.timer_paused[mode][timer]
        ]

    def place_overflow(self, counts_before):
        """Set every running timer ``counts_before`` counts before its overflow."""
        for mode, timer in self.running():
            self.timer_count[mode][timer] = (1 << self.timer_res[mode][timer]) - counts_before
            assert self.timer_count[mode][timer] >= 0

    def run_to_overflow(self):
        """Let the timers run (no access) until the next overflow has happened."""
        frames = len(self.frames)
        while len(self.frames) == frames:
            left = [(1 << self.timer_res[m][t]) - self.timer_count[m][t] for m, t in self.running()]
            assert left, "no timer runs"
            self.advance(min(left))

    def advance(self, counts):
        for mode, timer in self.running():
            top = 1 << self.timer_res[mode][timer]
            self.timer_count[mode][timer] += counts
            while self.timer_count[mode][timer] >= top:
                self.timer_count[mode][timer] -= top
                self._overflow(mode, timer)

    def latched(self, frame, pin):
        """The duty ``pin``'s channel latched in ``frame`` (an entry of :attr:`frames`), or None."""
        mode, _timer, duties = frame
        for channel, duty in duties:
            if self.channel_pin[mode][channel] == pin:
                return duty
        return None

    def pwm_class(self):
        """A ``machine.PWM`` class whose objects drive this LEDC as MicroPython v1.27's esp32 port does."""
        ledc = self

        class PWM(FakeEsp32PWM):
            pass

        PWM.ledc = ledc
        return PWM

    def _overflow(self, mode, timer):
        duties = []
        for channel in range(8):
            if self.channel_pin[mode][channel] >= 0 and self.channel_timer[mode][channel] == timer:
                if self.pending[mode][channel] is not None:
                    self.duty[mode][channel] = self.pending[mode][channel]
                    self.pending[mode][channel] = None
                duties.append((channel, self.duty[mode][channel]))
        self.frames.append((mode, timer, duties))


class FakeEsp32PWM:
    """``machine.PWM`` of MicroPython v1.27's esp32 port on a :class:`FakeLedc` (``PWM.ledc``)."""

    ledc = None

    def __init__(self, pin, freq=-1, duty_u16=-1):
        self.pin = pin if isinstance(pin, int) else pin.number
        ledc = self.ledc
        self.mode = -1
        self.channel = -1
        for mode in range(len(ledc.modes)):  # its own channel, else a free one in a mode with a usable timer
            if self.pin in ledc.channel_pin[mode]:
                self.mode, self.channel = mode, ledc.channel_pin[mode].index(self.pin)
                break
        if self.channel < 0:
            for mode in range(len(ledc.modes)):
                if -1 in ledc.channel_pin[mode] and (freq in ledc.timer_freq[mode] or -1 in ledc.timer_freq[mode]):
                    self.mode, self.channel = mode, ledc.channel_pin[mode].index(-1)
                    break
        ledc.channel_pin[self.mode][self.channel] = self.pin
        ledc.out_sel[self.pin] = ledc.modes[self.mode][0] + self.channel
        self.freq(50 if freq == -1 else freq)
        if duty_u16 != -1:
            self.duty_u16(duty_u16)

    def freq(self, hz):
        ledc = self.ledc
        freqs = ledc.timer_freq[self.mode]
        timer = freqs.index(hz) if hz in freqs else freqs.index(-1)
        if freqs[timer] != hz:
            freqs[timer] = hz
            ledc.timer_res[self.mode][timer] = RESOLUTION_AT_50_HZ[ledc.chip]
            ledc.timer_count[self.mode][timer] = 0
        ledc.channel_timer[self.mode][self.channel] = timer

    def duty_u16(self, value):
        ledc = self.ledc
        ledc.advance(ledc.counts_per_call)
        resolution = ledc.timer_res[self.mode][ledc.channel_timer[self.mode][self.channel]]
        ledc.pending[self.mode][self.channel] = value >> (16 - resolution)


def step_pulses_us(k, channels):
    """Step ``k``'s pulses (us), 1000..2400 us: each channel's differs from its pulse in every other of 1000 steps
    by at least 1 us (the ESP32-S3's 13-bit duty step is 2.44 us, so these steps are 3 us apart there)."""
    return [1000 + 3 * (k % 300) + 100 * ch for ch in range(channels)]


def sweep_steps(outputs, ledc, overflow_counts, first_ms=0):
    """Enable every output of ``outputs`` (an Outputs on a servo HAL over ``ledc``'s machine.PWM) at step 0, then
    one step per entry of ``overflow_counts``: before step k (from 1) the running timers are put
    ``overflow_counts[k - 1]`` counts before their overflow, after it they run to the next. Returns the pulses of
    each step; the frames are in ``ledc.frames``."""
    channels = outputs.channels
    mins_us = [500] * channels
    maxs_us = [2500] * channels
    steps = [step_pulses_us(0, channels)]
    outputs.start_enable(first_ms)
    outputs.update(first_ms, steps[0], mins_us, maxs_us)
    ledc.run_to_overflow()
    for k in range(1, len(overflow_counts) + 1):
        steps.append(step_pulses_us(k, channels))
        ledc.place_overflow(overflow_counts[k - 1])
        outputs.update(first_ms + 10 * k, steps[k], mins_us, maxs_us)
        ledc.run_to_overflow()
    return steps


def duties_today(chip, pins, steps):
    """The duty each step's pulses get the way the firmware wrote them before: ``PwmServos`` (``duty_u16`` per
    channel) on this chip's ``machine.PWM``: ``[{duty: step}, ...]`` per channel."""
    from hanoifw.servos import PwmServos

    ledc = FakeLedc(chip)
    pwm = ledc.pwm_class()
    pwms = [pwm(pin, freq=50, duty_u16=0) for pin in pins]
    servos = PwmServos(pwms)
    table = [{} for _ in pins]
    for k in range(len(steps)):
        for ch in range(len(pins)):
            servos.set_pulse_us(ch, steps[k][ch])
            table[ch][ledc.pending[pwms[ch].mode][pwms[ch].channel]] = k
    return table


def mixed_frames(ledc, pins, steps):
    """The frames of ``ledc`` in which the servos on ``pins`` latched the duties of more than one step of
    ``steps``: ``(frame number, [step of each channel])`` (a duty of no step counts as None)."""
    table = duties_today(ledc.chip, pins, steps)
    mixed = []
    for number in range(len(ledc.frames)):
        frame = ledc.frames[number]
        taken = [table[ch].get(ledc.latched(frame, pins[ch])) for ch in range(len(pins))]
        if None in taken or min(taken) != max(taken):
            mixed.append((number, taken))
    return mixed


def frame_steps(ledc, pins, steps):
    """The step each frame of ``ledc`` latched on every one of ``pins`` (None for a frame of mixed steps)."""
    table = duties_today(ledc.chip, pins, steps)
    latched = []
    for frame in ledc.frames:
        taken = [table[ch].get(ledc.latched(frame, pins[ch])) for ch in range(len(pins))]
        latched.append(taken[0] if None not in taken and min(taken) == max(taken) else None)
    return latched
