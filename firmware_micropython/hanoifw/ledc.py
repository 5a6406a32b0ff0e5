"""Servo HAL on the LEDC outputs of an ESP32 or ESP32-S3 (``machine.PWM``) that keeps a control step out of the
last moments before the frame's end, so that all servos take it in the same frame.

MicroPython's esp32 ``duty_u16`` (v1.26-v1.28, ports/esp32/machine_pwm.c) sets one channel's duty with
``ledc_set_duty`` and ``ledc_update_duty``, and ESP-IDF says the new duty does not take effect until the next PWM
cycle (driver/ledc.h): at the overflow of the channel's timer, as on an RP2 slice. Every servo runs at 50 Hz, so
MicroPython puts them all on one timer, which overflows for all of them at once; a step written channel by
channel across that overflow reaches some servos a frame before the others. :meth:`LedcServos.flush` therefore
reads that timer's counter and, within :data:`GUARD_US` of the overflow, lets it pass before it calls
``duty_u16`` for the staged channels back to back.

What differs from the RP2 HAL (hanoifw/rp2pwm.py), and why:

* The timer is found, not assumed: MicroPython does not say which LEDC timer a ``machine.PWM`` uses (its repr
  shows it only in builds with detailed error reporting; the stock ones have normal reporting), so each servo
  pin's output signal is read from the GPIO matrix (``GPIO_FUNCn_OUT_SEL``: the LEDC channel MicroPython routed
  there), that channel's timer from its ``TIMER_SEL``, and the timer's resolution from its ``DUTY_RES``. If any of
  it does not fit (a pin on no LEDC channel, servos on two timers), the outputs are written as before, unguarded
  (:attr:`LedcServos.is_guarded` is False).
* Interrupts stay on during the writes: ``machine.disable_irq`` is a FreeRTOS critical section on esp32, and the
  writes are Python calls into ESP-IDF. MicroPython's esp32 build gives up and takes back its GIL every 32
  branches of Python code (py/vm.c), with a FreeRTOS semaphore and a ``taskYIELD()`` (ports/esp32/mpthreadport.c),
  and FreeRTOS calls must not be made inside a critical section. So an interrupt or a task that runs longer than
  the guard's margin while the writes run can still split a step; :attr:`LedcServos.split_steps` counts the steps
  during whose writes the counter wrapped.
* Classic ESP32 chips before revision v3.0 may misread a register in 0x3FF4_0000-0x3FF7_FFFF while the other core
  reads another address space (ESP32 errata CPU-3.10, CPU-3.18). A misread counter only makes one step wait
  needlessly (at most the guard) or go unguarded, as every step did before.

Register addresses: ESP-IDF v5.5.1 (MicroPython v1.27's recommended IDF), components/soc/<chip>/register/soc/
reg_base.h (DR_REG_GPIO_BASE, DR_REG_LEDC_BASE), gpio_reg.h (GPIO_FUNC0_OUT_SEL_CFG_REG, 4 bytes per GPIO,
OUT_SEL in bits 0-8), ledc_reg.h (per speed mode: channel n's CONF0 every 0x14 bytes with TIMER_SEL in bits 0-1,
timer x's CONF every 8 bytes with DUTY_RES in its low bits, its VALUE 4 bytes after) and include/soc/
gpio_sig_map.h (LEDC_HS_SIG_OUT0_IDX, LEDC_LS_SIG_OUT0_IDX). ``flush`` allocates nothing.
"""

from hanoifw.servos import PwmServos, duty_u16_for

# chip: (GPIO_FUNC0_OUT_SEL_CFG_REG, DR_REG_LEDC_BASE, DUTY_RES mask, VALUE mask,
#        per speed mode as MicroPython numbers them: (LEDC output signal 0, channel 0 CONF0, timer 0 CONF) offsets)
LEDC_CHIPS = {
    "ESP32": (0x3FF44530, 0x3FF59000, 0x1F, 0xFFFFF, ((71, 0x000, 0x140), (79, 0x0A0, 0x160))),
    "ESP32S3": (0x60004554, 0x60019000, 0x0F, 0x3FFF, ((73, 0x000, 0x0A0),)),
}
_CHANNELS_PER_MODE = 8
_CHANNEL_STRIDE = 0x14
_TIMER_STRIDE = 0x08
#: How close to the overflow (us) the counter may be when the writes start. Five ``duty_u16`` calls into ESP-IDF
#: take of the order of 100-200 us on a 160 MHz ESP32 (not measured here: no ESP32 runs in these tests), so the
#: guard is several times that. A step waits at most this long, in 1 of 20 steps at 50 Hz.
GUARD_US = 1000


def find_ledc_timer(mem32, chip: str, pins):
    """``(VALUE register address, counts per frame)`` of the LEDC timer that drives every one of GPIO ``pins`` on
    ``chip``, read from the GPIO matrix and the LEDC registers; None if the chip has no entry, a pin is on no LEDC
    channel, the pins are on more than one timer, or the timer's resolution or counter does not fit."""
    entry = LEDC_CHIPS.get(chip)
    if entry is None:
        return None
    out_sel, ledc, res_mask, value_mask, modes = entry
    found = None
    for pin in pins:
        signal = mem32[out_sel + 4 * pin] & 0x1FF
        timer = None
        for first, channel0, timer0 in modes:
            if first <= signal < first + _CHANNELS_PER_MODE:
                channel = signal - first
                number = mem32[ledc + channel0 + _CHANNEL_STRIDE * channel] & 0x3
                timer = ledc + timer0 + _TIMER_STRIDE * number
        if timer is None or (found is not None and timer != found):
            return None
        found = timer
    if found is None:
        return None
    resolution = mem32[found] & res_mask
    if not 8 <= resolution <= 20 or mem32[found + 4] & value_mask >= 1 << resolution:
        return None
    return found + 4, 1 << resolution


class LedcServos(PwmServos):
    """Servos on LEDC outputs: ``pwms[channel]`` is the ``machine.PWM`` of GPIO ``pins[channel]`` on ``chip``
    ("ESP32", "ESP32S3"); ``mem32`` is ``machine.mem32``. With ``stage_pulse_us`` and ``flush`` (the controller's
    outputs use them) a step's duties go out together, clear of the timer's overflow; ``set_pulse_us`` and
    ``release`` still write at once."""

    def __init__(self, pwms: list, pins, *, chip: str, mem32, freq_hz: int = 50, guard_us=GUARD_US) -> None:
        PwmServos.__init__(self, pwms, freq_hz=freq_hz)
        self._mem32 = mem32
        self._duties = [0] * len(pwms)
        self._staged = [False] * len(pwms)
        self._dirty = False
        #: Steps during whose writes the timer overflowed (each may have reached the servos in two frames).
        self.split_steps = 0
        timer = find_ledc_timer(mem32, chip, pins)
        #: True if the writes wait past an overflow that is less than ``guard_us`` away.
        self.is_guarded = timer is not None
        self._value_addr = 0
        self._value_mask = 0
        self._last_start = 0
        self._max_polls = 0
        if timer is not None:
            self._value_addr, counts = timer
            self._value_mask = counts - 1
            guard_counts = guard_us * counts // self.period_us
            self._last_start = counts - 1 - guard_counts
            self._max_polls = 2 * guard_counts + 16

    def stage_pulse_us(self, channel: int, pulse_us: int) -> None:
        """Set ``channel``'s pulse to ``pulse_us`` (0: none) at the next :meth:`flush`."""
        self._duties[channel] = duty_u16_for(pulse_us, self.period_us)
        self._staged[channel] = True
        self._dirty = True

    def flush(self) -> None:
        """Write every staged pulse, back to back and clear of the timer's overflow (nothing when none is staged)."""
        if not self._dirty:
            return
        self._dirty = False
        start = -1
        if self.is_guarded:
            mem32 = self._mem32
            addr = self._value_addr
            mask = self._value_mask
            polls = self._max_polls
            start = mem32[addr] & mask
            while start > self._last_start and polls > 0:  # too close to the overflow: let it pass
                polls -= 1
                before = start
                start = mem32[addr] & mask
                if start == before:  # a paused timer: no overflow is coming
                    break
        pwms = self._pwms
        staged = self._staged
        duties = self._duties
        for channel in range(len(staged)):
            if staged[channel]:
                pwms[channel].duty_u16(duties[channel])
                staged[channel] = False
        if start >= 0 and self._mem32[self._value_addr] & self._value_mask < start:
            self.split_steps += 1
