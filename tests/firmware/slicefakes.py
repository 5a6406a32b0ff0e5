"""An RP2040 / RP2350 PWM block as ``machine.mem32`` sees it, and ``machine.PWM`` on top of it as MicroPython v1.27
drives it, for the firmware tests (CPython and MicroPython alike: no pytest, no typing).

Built like the registers (RP2040 datasheet 4.5; addresses from pico-sdk 2.2.0 ``hardware_regs``, written out here
rather than imported from the firmware): each slice's counter counts 0..TOP and wraps; CC and TOP are
double-buffered, a write takes effect at the slice's next wrap (or when the slice is started); EN aliases every
slice's CSR_EN bit; the atomic XOR/SET/CLR aliases at +0x1000/+0x2000/+0x3000 work. Every register access takes
``counts_per_access`` counter counts (each slice's counter advances by that much first, and wraps on the way), so
a test can put the wrap between any two accesses by setting the counters (:meth:`FakePwmBlock.place_wrap`), and
an interrupt (:meth:`FakePwmBlock.interrupt_at`) can take time at any access made while interrupts are on.
At each wrap the block notes the compare values every running slice latched: :attr:`FakePwmBlock.frames`.
Any address outside the chip's PWM block raises ValueError (an RP2040 address on an RP2350 is PLL_SYS there).
"""

BLOCKS = {  # chip: (PWM_BASE, PWM_EN_OFFSET, NUM_PWM_SLICES), pico-sdk 2.2.0 src/<chip>/hardware_regs
    "RP2040": (0x40050000, 0xA0, 8),
    "RP2350": (0x400A8000, 0xF0, 12),
}
CLK_SYS_HZ = {"RP2040": 125000000, "RP2350": 150000000}  # MicroPython v1.27's clk_sys on each chip
STRIDE = 0x14
CSR, DIV, CTR, CC, TOP = 0x00, 0x04, 0x08, 0x0C, 0x10


def gpio_slice(chip, pin):
    """pico-sdk's PWM_GPIO_SLICE_NUM (hardware_pwm/pwm.h)."""
    if pin < 32:
        return (pin >> 1) & 7
    assert BLOCKS[chip][2] == 12, f"GPIO {pin} on {chip}"
    return 8 + ((pin >> 1) & 3)


class FakePwmBlock:
    """The PWM block of ``chip`` ("RP2040" or "RP2350"), indexable like ``machine.mem32``."""

    def __init__(self, chip="RP2040", counts_per_access=1):
        self.chip = chip
        self.base, self.en_offset, self.slices = BLOCKS[chip]
        self.clk_hz = CLK_SYS_HZ[chip]
        self.counts_per_access = counts_per_access
        n = self.slices
        self.csr = [0] * n
        self.div = [0x10] * n
        self.ctr = [0] * n
        self.cc = [0] * n  # as written (read back by a CC read)
        self.cc_latched = [0] * n  # what the slice compares against this frame
        self.top = [0xFFFF] * n
        self.top_latched = [0xFFFF] * n
        self.frames = []  # at each wrap: [(slice, latched CC), ...] of every running slice
        self.accesses = []  # (address, value written or None for a read), when self.recording
        self.recording = False
        self.irq_on = True
        self.irq_off_run = 0  # accesses since interrupts went off
        self.irq_off_longest = 0  # the most accesses made in one stretch with interrupts off
        self.cc_writes_with_irq_on = 0
        self.count = 0  # accesses so far
        self._interrupt = None  # (access number, counts it takes)
        self.duty = {}  # (slice, channel): duty_u16 of machine.PWM's own table (v1.27 keeps it per channel)
        self.freq_set = [False] * n

    # --- machine.mem32 --------------------------------------------------------------------------------------
    def owns(self, address):
        """True for an address in this block (or its atomic aliases)."""
        return 0 <= address - self.base < 0x4000

    def __getitem__(self, address):
        slice_number, reg, _alias = self._decode(address)
        self._access(address, None)
        if slice_number < 0:
            return self._en()
        return self._read(slice_number, reg)

    def __setitem__(self, address, value):
        slice_number, reg, alias = self._decode(address)
        self._access(address, value)
        value &= 0xFFFFFFFF
        old = self._en() if slice_number < 0 else self._read(slice_number, reg)
        if alias == 1:
            value = old ^ value
        elif alias == 2:
            value = old | value
        elif alias == 3:
            value = old & ~value
        if slice_number < 0:
            for n in range(self.slices):
                self._set_enabled(n, value >> n & 1)
            return
        if reg == CC and self.irq_on:
            self.cc_writes_with_irq_on += 1
        self._write(slice_number, reg, value)

    # --- machine.disable_irq / enable_irq -------------------------------------------------------------------
    def disable_irq(self):
        state = 1 if self.irq_on else 0
        if self.irq_on:
            self.irq_off_run = 0
        self.irq_on = False
        return state

    def enable_irq(self, state):
        self.irq_on = bool(state)

    # --- what a test does to the block ----------------------------------------------------------------------
    def place_wrap(self, accesses_before):
        """Set every running slice's counter so that it wraps after ``accesses_before`` more accesses, before the
        next one takes effect (0: before the very next access)."""
        for n in range(self.slices):
            if self.csr[n] & 1:
                self.ctr[n] = self.top_latched[n] + 1 - (accesses_before + 1) * self.counts_per_access
                assert self.ctr[n] >= 0, "that wrap is further away than a frame"

    def run_to_wrap(self):
        """Let the counters run (no access) until the next wrap has happened."""
        wraps = len(self.frames)
        while len(self.frames) == wraps:
            running = [self.top_latched[n] + 1 - self.ctr[n] for n in range(self.slices) if self.csr[n] & 1]
            assert running, "no slice is running"
            self._advance(min(running))

    def interrupt_at(self, access, counts):
        """At access number ``access`` (counted from 0 since the block was made), if interrupts are on then, an
        interrupt handler runs first and takes ``counts`` counts."""
        self._interrupt = (access, counts)

    def latched(self, frame, pin):
        """The compare value ``pin``'s output latched in ``frame`` (an entry of :attr:`frames`)."""
        slice_number = gpio_slice(self.chip, pin)
        for n, cc in frame:
            if n == slice_number:
                return (cc >> 16 if pin & 1 else cc) & 0xFFFF
        return None

    def pwm_class(self):
        """A ``machine.PWM`` class whose objects drive this block as MicroPython v1.27's rp2 port does."""
        block = self

        class PWM(FakeRp2PWM):
            pass

        PWM.block = block
        return PWM

    # --- internals ------------------------------------------------------------------------------------------
    def _decode(self, address):
        offset = address - self.base
        alias = offset >> 12 if offset >= 0 else -1
        reg = offset & 0xFFF
        if not 0 <= alias <= 3:
            raise ValueError(f"address 0x{address:08x} is outside {self.chip}'s PWM block")
        if reg == self.en_offset:
            return -1, reg, alias
        if reg >= self.slices * STRIDE or reg % 4:
            raise ValueError(f"address 0x{address:08x} is no PWM register of {self.chip}")
        return reg // STRIDE, reg % STRIDE, alias

    def _access(self, address, value):
        if self.recording:
            self.accesses.append((address, value))
        interrupt = self._interrupt
        if interrupt is not None and self.count >= interrupt[0] and self.irq_on:  # held while interrupts are off
            self._interrupt = None
            self._advance(interrupt[1])
        self.count += 1
        if not self.irq_on:
            self.irq_off_run += 1
            self.irq_off_longest = max(self.irq_off_longest, self.irq_off_run)
        self._advance(self.counts_per_access)

    def _advance(self, counts):
        while counts > 0:
            running = [n for n in range(self.slices) if self.csr[n] & 1]
            if not running:
                return
            step = min([counts] + [self.top_latched[n] + 1 - self.ctr[n] for n in running])
            wrapped = False
            for n in running:
                self.ctr[n] += step
                if self.ctr[n] > self.top_latched[n]:
                    self.ctr[n] = 0
                    self.cc_latched[n] = self.cc[n]
                    self.top_latched[n] = self.top[n]
                    wrapped = True
            if wrapped:
                self.frames.append([(n, self.cc_latched[n]) for n in running])
            counts -= step

    def _en(self):
        value = 0
        for n in range(self.slices):
            value |= (self.csr[n] & 1) << n
        return value

    def _set_enabled(self, n, on):
        if on and not self.csr[n] & 1:
            self.cc_latched[n] = self.cc[n]
            self.top_latched[n] = self.top[n]
        self.csr[n] = (self.csr[n] & ~1) | (1 if on else 0)

    def _read(self, n, reg):
        if reg == CSR:
            return self.csr[n]
        if reg == DIV:
            return self.div[n]
        if reg == CTR:
            return self.ctr[n]
        if reg == CC:
            return self.cc[n]
        return self.top[n]

    def _write(self, n, reg, value):
        if reg == CSR:
            self._set_enabled(n, value & 1)
            self.csr[n] = value & 0xFF & ~0xC0  # PH_RET and PH_ADV clear themselves
        elif reg == DIV:
            self.div[n] = value & 0xFFF
        elif reg == CTR:
            self.ctr[n] = value & 0xFFFF
        elif reg == CC:
            self.cc[n] = value
        else:
            self.top[n] = value & 0xFFFF


class FakeRp2PWM:
    """``machine.PWM`` of MicroPython v1.27's rp2 port (ports/rp2/machine_pwm.c) on a :class:`FakePwmBlock`
    (``PWM.block``, see :meth:`FakePwmBlock.pwm_class`): ``freq`` sets DIV and TOP, ``duty_u16`` sets its half of
    CC by pico-sdk's ``pwm_set_chan_level`` (a read, then a write to the XOR alias), and the slice starts once both
    are set."""

    block = None

    def __init__(self, pin, freq=-1, duty_u16=-1):
        self.pin = pin if isinstance(pin, int) else pin.number
        block = self.block
        self.slice = gpio_slice(block.chip, self.pin)
        self.channel = self.pin & 1
        self.address = block.base + STRIDE * self.slice
        block.duty.pop((self.slice, self.channel), None)
        if freq != -1:
            self.freq(freq)
        if duty_u16 != -1:
            self.duty_u16(duty_u16)

    def freq(self, hz):
        block = self.block
        source_hz = block.clk_hz
        if (source_hz + hz // 2) // hz < 65534:
            div16 = 16
            top = (source_hz + hz // 2) // hz - 1
        else:
            div16 = (16 * source_hz + 65534 * hz - 1) // (65534 * hz)  # get_slice_hz_ceil(TOP_MAX * freq)
            top = (16 * source_hz + div16 * hz // 2) // (div16 * hz) - 1  # get_slice_hz_round(div16 * freq) - 1
        block[self.address + DIV] = div16
        block[self.address + TOP] = top
        block.freq_set[self.slice] = True
        for channel in (0, 1):
            duty = block.duty.get((self.slice, channel))
            if duty is not None:
                self._set_level(channel, duty)

    def duty_u16(self, value):
        value = min(value, 65535)
        self._set_level(self.channel, value)
        self._start()

    def _set_level(self, channel, duty):
        block = self.block
        top = block[self.address + TOP]
        level = (duty * (top + 1) + 65535 // 2) // 65535
        block.duty[(self.slice, channel)] = duty
        shift = 16 * channel
        current = block[self.address + CC]
        block[self.address + CC + 0x1000] = (current ^ (level << shift)) & (0xFFFF << shift)

    def _start(self):
        block = self.block
        if block.freq_set[self.slice] and (self.slice, self.channel) in block.duty:
            csr = block[self.address + CSR]  # pwm_set_output_polarity (not inverted): a read, an XOR write
            block[self.address + CSR + 0x1000] = 0
            csr = block[self.address + CSR]  # pwm_set_enabled
            block[self.address + CSR + 0x1000] = (csr ^ 1) & 1


def step_pulses_us(k, channels):
    """Step ``k``'s pulses (us), within 1000..2400 us: each channel's differs from its pulse in every other step
    (1 us apart, about 3 counts at 50 Hz) for 1000 steps, then they repeat."""
    return [1000 + k % 1000 + 100 * ch for ch in range(channels)]


def sweep_steps(outputs, block, positions, first_ms=0):
    """Enable every output of ``outputs`` (an :class:`~hanoifw.outputs.Outputs` whose servo HAL drives ``block``)
    at step 0, then give it one step per entry of ``positions``: before step k (from 1) every running slice is put
    ``positions[k - 1]`` accesses before its wrap, after it the counters run on to the next wrap. Returns the
    pulses of each step; the frames are in ``block.frames``."""
    channels = outputs.channels
    mins_us = [500] * channels
    maxs_us = [2500] * channels
    steps = [step_pulses_us(0, channels)]
    outputs.start_enable(first_ms)
    outputs.update(first_ms, steps[0], mins_us, maxs_us)
    block.run_to_wrap()
    for k in range(1, len(positions) + 1):
        steps.append(step_pulses_us(k, channels))
        block.place_wrap(positions[k - 1])
        outputs.update(first_ms + 10 * k, steps[k], mins_us, maxs_us)
        block.run_to_wrap()
    return steps


def compares_today(chip, pins, steps):
    """The compare values each step's pulses get the way the firmware drove them before the one-frame HAL:
    ``PwmServos`` (``duty_u16`` per channel) on ``machine.PWM`` (v1.27): ``[{compare: step}, ...]`` per channel."""
    from hanoifw.servos import PwmServos

    block = FakePwmBlock(chip)
    pwm = block.pwm_class()
    servos = PwmServos([pwm(pin, freq=50, duty_u16=0) for pin in pins])
    table = [{} for _ in pins]
    for k in range(len(steps)):
        for ch in range(len(pins)):
            servos.set_pulse_us(ch, steps[k][ch])
            slice_cc = block.cc[gpio_slice(chip, pins[ch])]
            table[ch][(slice_cc >> 16 if pins[ch] & 1 else slice_cc) & 0xFFFF] = k
    return table


def mixed_frames(block, pins, steps):
    """The frames of ``block`` in which the servos on ``pins`` latched the compare values of more than one step
    of ``steps`` (each as ``(frame number, [step of each channel])``; a value of no step counts as step None)."""
    table = compares_today(block.chip, pins, steps)
    mixed = []
    for number in range(len(block.frames)):
        frame = block.frames[number]
        taken = [table[ch].get(block.latched(frame, pins[ch])) for ch in range(len(pins))]
        if None in taken or min(taken) != max(taken):
            mixed.append((number, taken))
    return mixed


def last_steps(block, pins, steps):
    """The step each frame of ``block`` latched (None for a mixed one), in order."""
    table = compares_today(block.chip, pins, steps)
    latched = []
    for frame in block.frames:
        taken = [table[ch].get(block.latched(frame, pins[ch])) for ch in range(len(pins))]
        latched.append(taken[0] if None not in taken and min(taken) == max(taken) else None)
    return latched
