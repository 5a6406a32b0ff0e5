"""The servo outputs a board can drive, and the pulse each one really gives for the whole µs it is asked for.

A servo output is a counter: it can only give a whole number of its counts, so a pulse comes out on a grid.
Each driver's grid at the 50 Hz servo frame (``board_config.SERVO_FREQ_HZ``), from its datasheet and the
firmware's own arithmetic:

- ``pca9685``: 4096 counts per period, PRE_SCALE 121 at its 25 MHz oscillator (NXP PCA9685 datasheet, rev. 4,
  7.3.5: prescale = round(25 MHz / (4096 x 50 Hz)) - 1), so one count is 122 / 25 MHz = **4.88 µs**;
  ``hanoifw.pca9685.PCA9685.counts_for`` rounds a pulse to the nearest count: off by up to 2.44 µs.
- ``esp32s3``: the ESP32-S3's LEDC timer has 14 bits, and MicroPython (ports/esp32/machine_pwm.c,
  ``find_suitable_duty_resolution``) uses one bit less at 50 Hz: 8192 counts per 20 ms, **2.44 µs**;
  ``duty_u16`` keeps the top 13 bits of the 16-bit duty (a shift: truncated), so a pulse comes out up to one
  count short.
- ``esp32``: the classic ESP32's LEDC (20-bit timer) runs at MicroPython's 16-bit limit at 50 Hz: 65536 counts,
  0.31 µs, truncated the same way.
- ``sts``: a Feetech STS bus servo (the SO-101's STS3215) takes its goal as a position in 4096 steps a turn, and
  the firmware gives one turn 2000 µs of pulse (``hanoifw.busservos``: 500 µs is step 0), so one step is
  2000 / 4096 = **0.49 µs**; ``BusServos.steps_for`` rounds a pulse to the nearest step.
- ``rp2``: the RP2040's (and RP2350's) PWM slice at 50 Hz from 125 MHz: DIV 38.19, TOP 65465 (MicroPython's
  ports/rp2/machine_pwm.c), **0.31 µs** a count, rounded (``hanoifw.rp2pwm.compare_for_duty``).

:func:`output_us` computes a driver's pulse by the firmware's own functions; :func:`output_error_us` is the bound
:mod:`.margins` counts: the largest difference over the firmware's whole pulse range (about half a count where the
output rounds, a whole one where it truncates; on the RP2 two roundings, 16-bit duty then count, make it a whole
count).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from hanoifw.busservos import PULSE_MIN_US, PULSE_SPAN_US
from hanoifw.feetech import STEPS_PER_TURN_STS
from hanoifw.pca9685 import COUNTS, INTERNAL_OSC_HZ, prescale_for
from hanoifw.rp2pwm import compare_for_duty
from hanoifw.servos import duty_u16_for

#: The servo frame in µs (50 Hz).
FRAME_US = 20000
#: The RP2 PWM's wrap value at 50 Hz from a 125 MHz system clock (MicroPython v1.27 ports/rp2/machine_pwm.c).
RP2_TOP = 65465
#: Bits of the ESP32-S3's LEDC duty at 50 Hz under MicroPython (a 14-bit timer, one bit kept back).
ESP32S3_LEDC_BITS = 13
#: Bits of the classic ESP32's LEDC duty at 50 Hz under MicroPython (its 16-bit limit).
ESP32_LEDC_BITS = 16


class OutputDriver(NamedTuple):
    """One kind of servo output: its ``name`` (``[servos] driver``), one count in µs and whether a pulse is
    rounded to the nearest count (else truncated: up to one count short)."""

    name: str
    step_us: float
    rounds: bool


_PCA9685_PRESCALE = prescale_for(1000000 // FRAME_US, INTERNAL_OSC_HZ)
_PCA9685_COUNT_US = (_PCA9685_PRESCALE + 1) * 1e6 / INTERNAL_OSC_HZ

#: Every driver by name, the coarsest first.
DRIVERS = {
    "pca9685": OutputDriver("pca9685", _PCA9685_COUNT_US, rounds=True),
    "esp32s3": OutputDriver("esp32s3", FRAME_US / (1 << ESP32S3_LEDC_BITS), rounds=False),
    "esp32": OutputDriver("esp32", FRAME_US / (1 << ESP32_LEDC_BITS), rounds=False),
    "rp2": OutputDriver("rp2", FRAME_US / (RP2_TOP + 1), rounds=True),
    "sts": OutputDriver("sts", PULSE_SPAN_US / STEPS_PER_TURN_STS, rounds=True),
}
#: ``[servos] driver`` when the config names none: the coarsest output, so margins checked for it hold on any.
DEFAULT_DRIVER = "pca9685"


def output_us(driver: str, pulse_us: int) -> float:
    """The pulse (µs) ``driver``'s output gives when the firmware asks it for ``pulse_us``, by the firmware's own
    arithmetic (module docstring)."""
    if driver == "pca9685":
        divisor = 1000 * (_PCA9685_PRESCALE + 1)
        counts = (pulse_us * (INTERNAL_OSC_HZ // 1000) + (divisor >> 1)) // divisor
        return min(max(counts, 0), COUNTS - 1) * _PCA9685_COUNT_US
    if driver in ("esp32s3", "esp32"):
        bits = ESP32S3_LEDC_BITS if driver == "esp32s3" else ESP32_LEDC_BITS
        duty = duty_u16_for(pulse_us, FRAME_US) >> (16 - bits)
        return duty * FRAME_US / (1 << bits)
    if driver == "sts":
        if pulse_us <= 0:
            return 0.0
        steps = ((pulse_us - PULSE_MIN_US) * STEPS_PER_TURN_STS + (PULSE_SPAN_US >> 1)) // PULSE_SPAN_US
        return PULSE_MIN_US + steps * PULSE_SPAN_US / STEPS_PER_TURN_STS
    if driver == "rp2":
        return compare_for_duty(duty_u16_for(pulse_us, FRAME_US), RP2_TOP) * FRAME_US / (RP2_TOP + 1)
    raise ValueError(f"servo driver {driver!r} is unknown: expected one of {', '.join(DRIVERS)}")


#: The firmware's pulse range in µs (hanoifw.protocol's limits): where :func:`output_error_us` looks.
PULSE_RANGE_US = (500, 2500)


@functools.cache
def output_error_us(driver: str) -> float:
    """The most (µs) a pulse given by ``driver`` differs from the whole µs asked for, over :data:`PULSE_RANGE_US`."""
    low_us, high_us = PULSE_RANGE_US
    return max(abs(output_us(driver, pulse_us) - pulse_us) for pulse_us in range(low_us, high_us + 1))
