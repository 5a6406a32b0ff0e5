"""Servo HAL on the PWM slices of an RP2040 or RP2350 that gives every servo a control step in the same frame.

A slice's compare register (CC) is double-buffered: a new value takes effect when the slice's counter wraps, once
per 20 ms frame (RP2040 datasheet 4.5.2.3). ``machine.PWM.duty_u16`` writes one channel at a time, so when the wrap
fell between two of a step's writes some servos took the step in this frame and the others in the next: the arm's
joints disagreed for 20 ms (3.16 mm off a peg's axis, traced on the virtual Pico). Here :meth:`stage_pulse_us`
only computes a channel's compare value, and :meth:`flush` stores every slice's CC back to back, interrupts off
for the counter's read and those few stores alone, after waiting past the wrap if the counter is within
:data:`GUARD_US` of it. The two channels of a slice (A: even GPIO, B: odd GPIO) go in one 32-bit store, since the
chip's IO registers take every write as a whole word; a half no servo uses keeps what it held. The slices are
started together (:func:`align_rp2_slices`), so one slice's counter (CTR) tells where every slice is in its frame.

The pulses are exactly those ``duty_u16`` gave (:func:`compare_for_duty` is MicroPython v1.27's rp2 formula), with
the TOP that ``machine.PWM.freq`` set. Register addresses are the chip's own (pico-sdk 2.2.0 ``hardware_regs``):
on the RP2350 the RP2040's PWM base 0x40050000 is PLL_SYS, so no RP2040 address is ever used there.
``flush`` allocates nothing for pulses below 5 ms (compare values below 2**14, so every CC word stays a small
int), unless the B half it keeps for someone else holds 2**14 or more (over a quarter of the frame).
"""

from hanoifw.boardpins import BoardConfigError
from hanoifw.servos import duty_u16_for

try:
    from micropython import const
except ImportError:  # CPython (tests, the host): const() is only an optimisation hint

    def const(value: int) -> int:
        return value


# Per chip: PWM block base address, offset of EN (aliases every slice's CSR_EN bit), number of slices.
# pico-sdk 2.2.0: src/<chip>/hardware_regs/include/hardware/regs/addressmap.h (PWM_BASE), regs/pwm.h
# (PWM_EN_OFFSET), hardware/platform_defs.h (NUM_PWM_SLICES).
PWM_BLOCKS = {
    "RP2040": (0x40050000, 0xA0, 8),
    "RP2350": (0x400A8000, 0xF0, 12),
}
SLICE_STRIDE = const(0x14)  # PWM_CH1_CSR_OFFSET: each slice's CSR, DIV, CTR, CC, TOP
CSR = const(0x00)
DIV = const(0x04)
CTR = const(0x08)
CC = const(0x0C)  # A in bits 0-15, B in bits 16-31
TOP = const(0x10)
#: How close to its wrap (us) the counter may be when the stores start. From the counter's read to the last store
#: takes under 160 us on the virtual Pico (MicroPython v1.27, 125 MHz: 509 counts, measured with a probe whose own
#: reads are in it, tests/hil/test_vpico_pwm_frames.py); the rest is margin for flash cache misses. A step waits at
#: most this long, in 1 of 40 steps at 50 Hz.
GUARD_US = 500
_DUTY_U16_FULL = const(65535)


def pwm_block(chip: str):
    """``(base, en_offset, slices)`` of ``chip``'s PWM block; ValueError for a chip that is no RP2."""
    block = PWM_BLOCKS.get(chip)
    if block is None:
        raise ValueError("chip %s: no RP2 PWM block (expected one of %s)" % (chip, ", ".join(sorted(PWM_BLOCKS))))
    return block


def slice_of(chip: str, pin: int) -> int:
    """The PWM slice of GPIO ``pin`` on ``chip`` (pico-sdk ``PWM_GPIO_SLICE_NUM``: GPIO 0-31 on slice
    (n >> 1) & 7; the RP2350B's GPIO 32-47 on 8 + ((n >> 1) & 3)); BoardConfigError for a pin the chip has not."""
    slices = pwm_block(chip)[2]
    if 0 <= pin < 32:
        return (pin >> 1) & 7
    if slices > 8 and pin < 48:
        return 8 + ((pin >> 1) & 3)
    raise BoardConfigError("board_config.py PWM_PINS: chip %s has no PWM output on GPIO %r" % (chip, pin))


def rp2_slices(chip: str, pins) -> int:
    """The bit mask of the PWM slices that GPIO ``pins`` use on ``chip``."""
    mask = 0
    for pin in pins:
        mask |= 1 << slice_of(chip, pin)
    return mask


def align_rp2_slices(mem32, chip: str, pins) -> None:
    """Start the PWM slices of ``pins`` on ``chip`` together: stop them (one EN write), zero their counters, start
    them again with one EN write. ``machine.PWM`` enables each slice on its own, so their frames start at different
    times; aligned, every slice wraps on the same cycle (they share the 50 Hz divider and TOP). ``mem32`` is
    ``machine.mem32``. Call it before any output is on."""
    base, en_offset, slices = pwm_block(chip)
    mask = rp2_slices(chip, pins)
    enabled = mem32[base + en_offset]
    mem32[base + en_offset] = enabled & ~mask
    for slice_number in range(slices):
        if mask & (1 << slice_number):
            mem32[base + SLICE_STRIDE * slice_number + CTR] = 0
    mem32[base + en_offset] = (enabled & ~mask) | mask


def compare_for_duty(duty_u16: int, top: int) -> int:
    """The compare value ``machine.PWM.duty_u16(duty_u16)`` stores with wrap value ``top`` (MicroPython v1.27,
    ports/rp2/machine_pwm.c: ``(duty_u16 * (top + 1) + 65535 / 2) / 65535``), computed in pieces below 2**30 so
    MicroPython makes no long integer."""
    period = top + 1
    high = duty_u16 * (period >> 8)  # < 2**24
    whole = high // _DUTY_U16_FULL
    rest = high - whole * _DUTY_U16_FULL
    return (whole << 8) + (rest * 256 + duty_u16 * (period & 0xFF) + (_DUTY_U16_FULL >> 1)) // _DUTY_U16_FULL


class Rp2PwmServos:
    """Servos on GPIO ``pins`` of an RP2 ``chip`` ("RP2040", "RP2350"); ``pwms[channel]`` is the ``machine.PWM``
    of ``pins[channel]`` (made by :func:`~hanoifw.servos.open_pwm`: it sets the pin's function, DIV and TOP).

    ``mem32``, ``disable_irq`` and ``enable_irq`` are ``machine``'s. Every output starts released (duty 0).
    """

    def __init__(
        self, pwms: list, pins, *, chip: str, mem32, disable_irq, enable_irq, freq_hz: int = 50, guard_us=GUARD_US
    ) -> None:
        if not 40 <= freq_hz <= 400:
            raise ValueError("freq_hz=%r: expected 40..400 Hz for hobby servos" % (freq_hz,))
        if len(pins) != len(pwms):
            raise ValueError("%d pins for %d PWM outputs: expected one pin each" % (len(pins), len(pwms)))
        self._pwms = pwms
        self._mem32 = mem32
        self._disable_irq = disable_irq
        self._enable_irq = enable_irq
        self.freq_hz = freq_hz
        self.period_us = 1000000 // freq_hz
        base = pwm_block(chip)[0]
        numbers = []  # the slices in use, in the order of their first channel
        for pin in pins:
            number = slice_of(chip, pin)
            if number not in numbers:
                numbers.append(number)
        self._cc_addr = [base + SLICE_STRIDE * n + CC for n in numbers]
        self._slice_a = [-1] * len(numbers)  # channel on each slice's A half (-1: none of ours)
        self._slice_b = [-1] * len(numbers)
        for channel, pin in enumerate(pins):
            halves = self._slice_b if pin & 1 else self._slice_a
            index = numbers.index(slice_of(chip, pin))
            if halves[index] >= 0:
                raise BoardConfigError(
                    "board_config.py PWM_PINS: GPIO %r and GPIO %r are one PWM output of chip %s: give each servo"
                    " its own" % (pins[halves[index]], pin, chip)
                )
            halves[index] = channel
        for pwm in pwms:
            pwm.freq(freq_hz)
            pwm.duty_u16(0)
        self._words = [0] * len(numbers)  # our halves of each CC word, composed before the stores
        self._levels = [0] * len(pwms)  # each channel's compare value, as staged
        self._dirty = False
        first = base + SLICE_STRIDE * numbers[0]
        self.top = mem32[first + TOP] & 0xFFFF
        for n in numbers:
            slice_base = base + SLICE_STRIDE * n
            if mem32[slice_base + TOP] & 0xFFFF != self.top or mem32[slice_base + DIV] != mem32[first + DIV]:
                raise ValueError("PWM slice %d runs at another rate than slice %d: expected one rate" % (n, numbers[0]))
        align_rp2_slices(mem32, chip, pins)
        self._ctr_addr = first + CTR
        guard_counts = guard_us * (self.top + 1) // self.period_us
        self._last_start = self.top - guard_counts  # the latest count at which the stores may start
        # a bound on the reads while waiting: each takes well over a count (0.3 us at 50 Hz), so a running counter
        # wraps long before (a stopped one, whose slice latches at its start, is seen at the second read)
        self._max_polls = 2 * guard_counts + 16

    @property
    def channels(self) -> int:
        """Number of servo outputs."""
        return len(self._pwms)

    def stage_pulse_us(self, channel: int, pulse_us: int) -> None:
        """Set ``channel``'s pulse to ``pulse_us`` (0: none) at the next :meth:`flush`."""
        self._levels[channel] = compare_for_duty(duty_u16_for(pulse_us, self.period_us), self.top)
        self._dirty = True

    def flush(self) -> None:
        """Store every staged pulse, all in the same frame (nothing when nothing was staged)."""
        if not self._dirty:
            return
        self._dirty = False
        levels = self._levels
        words = self._words
        slice_a = self._slice_a
        slice_b = self._slice_b
        for i in range(len(words)):
            a = slice_a[i]
            b = slice_b[i]
            words[i] = (levels[a] if a >= 0 else 0) | ((levels[b] << 16) if b >= 0 else 0)
        mem32 = self._mem32
        ctr_addr = self._ctr_addr
        last_start = self._last_start
        polls = self._max_polls
        state = self._disable_irq()
        count = mem32[ctr_addr]
        while count > last_start and polls > 0:  # too close to the wrap: let it pass, interrupts on meanwhile
            self._enable_irq(state)
            polls -= 1
            state = self._disable_irq()
            before = count
            count = mem32[ctr_addr]
            if count == before:  # a stopped counter: no wrap is coming
                break
        try:
            cc_addr = self._cc_addr
            for i in range(len(words)):
                if slice_a[i] < 0:
                    mem32[cc_addr[i]] = words[i] | (mem32[cc_addr[i]] & 0xFFFF)
                elif slice_b[i] < 0:
                    mem32[cc_addr[i]] = words[i] | ((mem32[cc_addr[i]] >> 16) << 16)
                else:
                    mem32[cc_addr[i]] = words[i]
        finally:
            self._enable_irq(state)

    def set_pulse_us(self, channel: int, pulse_us: int) -> None:
        """Send ``pulse_us`` wide pulses on ``channel`` from the next PWM frame on."""
        self.stage_pulse_us(channel, pulse_us)
        self.flush()

    def release(self, channel: int) -> None:
        """Stop the pulses on ``channel`` (duty 0) from the next frame on: the servo stops holding."""
        self.stage_pulse_us(channel, 0)
        self.flush()

    def close(self) -> None:
        """Release every channel."""
        for channel in range(len(self._levels)):
            self._levels[channel] = 0
        self._dirty = True
        self.flush()

    def __enter__(self) -> "Rp2PwmServos":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
