"""Servo HAL on ``machine.PWM`` outputs: one PWM object per channel, passed in by ``main.py``.

The duty is computed from the pulse width at the servo frame rate (50 Hz: a 20000 us period), with integer
arithmetic that stays below 2**30. ``release(channel)`` sets duty 0: no pulses, the servo goes limp. Every output
starts released, so nothing moves before the controller's first CONFIG.

:func:`open_pwm` makes each ``machine.PWM`` so that it never gives a pulse on its own: the esp32 port starts a
``PWM(pin)`` at 5 kHz and 50 % duty (a servo twitches or slams), so the frame rate and zero duty are given at
construction; the rp2 port of MicroPython 1.20 takes no keywords there, and its ``PWM(pin)`` starts at duty 0.

:class:`PwmServos` writes one channel at a time (``duty_u16``), and a new duty takes effect at the next wrap of its
timer, so a step whose writes straddle a wrap reaches the servos in two frames. On an RP2 ``main.py`` therefore
drives the slices' registers with :class:`hanoifw.rp2pwm.Rp2PwmServos`, which stores a whole step in one frame, and
on an ESP32 or ESP32-S3 it uses :class:`hanoifw.ledc.LedcServos`, which keeps a step's writes clear of the LEDC
timer's overflow.
"""

DUTY_U16_FULL = 65535  # machine.PWM.duty_u16 at 100 %


def duty_u16_for(pulse_us: int, period_us: int) -> int:
    """Return the ``duty_u16`` value (0..65535) of a ``pulse_us`` pulse in a ``period_us`` frame, rounded."""
    if pulse_us <= 0:
        return 0
    if pulse_us >= period_us:
        return DUTY_U16_FULL
    return (pulse_us * DUTY_U16_FULL + (period_us >> 1)) // period_us


def open_pwm(pwm_class, pin, freq_hz: int):
    """A ``pwm_class`` (``machine.PWM``) on ``pin`` at ``freq_hz`` with duty 0 from its first instant."""
    try:
        return pwm_class(pin, freq=freq_hz, duty_u16=0)
    except TypeError:  # rp2 v1.20: PWM(pin) only; it starts with duty 0
        pwm = pwm_class(pin)
        pwm.duty_u16(0)
        pwm.freq(freq_hz)
        return pwm


class PwmServos:
    """Servos on PWM pins; ``pwms[channel]`` is a ``machine.PWM`` (or anything with ``freq`` and ``duty_u16``)."""

    def __init__(self, pwms: list, *, freq_hz: int = 50) -> None:
        if not 40 <= freq_hz <= 400:
            raise ValueError("freq_hz=%r: expected 40..400 Hz for hobby servos" % (freq_hz,))
        self._pwms = pwms
        self.freq_hz = freq_hz
        self.period_us = 1000000 // freq_hz
        for pwm in pwms:
            pwm.freq(freq_hz)
            pwm.duty_u16(0)

    @property
    def channels(self) -> int:
        """Number of servo outputs."""
        return len(self._pwms)

    def set_pulse_us(self, channel: int, pulse_us: int) -> None:
        """Send ``pulse_us`` wide pulses on ``channel`` from the next PWM frame on."""
        self._pwms[channel].duty_u16(duty_u16_for(pulse_us, self.period_us))

    def release(self, channel: int) -> None:
        """Stop the pulses on ``channel`` (duty 0): the servo stops holding."""
        self._pwms[channel].duty_u16(0)

    def close(self) -> None:
        """Release every channel."""
        for channel in range(len(self._pwms)):
            self.release(channel)

    def __enter__(self) -> "PwmServos":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
