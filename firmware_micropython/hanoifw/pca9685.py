"""Minimal PCA9685 16-channel PWM driver for servos (NXP PCA9685 datasheet, rev. 4).

The I2C object is passed in (``machine.I2C`` or anything with ``writeto_mem`` and ``readfrom_mem``). The chip
powers up with MODE1 = 0x11 (SLEEP and ALLCALL set, register auto-increment off), so the first write sets MODE1
alone: auto-increment on, ALLCALL off, still asleep. Only then are the 4-byte LED writes made.

A chip that is already running our frame rate (an MCU reset does not reset the PCA9685, which keeps its pulses) is
not blanked: :attr:`PCA9685.held_us` reads back what each output is giving, so the firmware keeps holding that
pose and reports it. A chip that is asleep or at another rate starts with every output fully off. So does a chip
whose OE input is wired (``oe``): its pull-up disabled the outputs while the MCU was in reset, so the servos went
limp and may have sagged; enabling the old pulses again would drive them all back at once. Its outputs are
blanked before OE is driven low, and the first CONFIG switches them on one at a time.
Register writes use buffers allocated here, once.
"""

try:
    from micropython import const
except ImportError:  # CPython (tests, the host): const() is only an optimisation hint

    def const(value: int) -> int:
        return value


_MODE1 = const(0x00)
_MODE2 = const(0x01)
_LED0_ON_L = const(0x06)  # LEDn_ON_L = 0x06 + 4n; then ON_H, OFF_L, OFF_H
_ALL_LED_ON_L = const(0xFA)
_PRE_SCALE = const(0xFE)
_MODE1_AI = const(0x20)  # register auto-increment
_MODE1_SLEEP = const(0x10)  # oscillator off; PRE_SCALE can only be written while asleep
_MODE2_OUTDRV = const(0x04)  # totem-pole outputs, as servo signal inputs want
_FULL_OFF = const(0x10)  # bit 4 of LEDn_OFF_H
_FULL_ON = const(0x10)  # bit 4 of LEDn_ON_H
_OSCILLATOR_WAKE_US = const(500)  # datasheet: wait 500 us after clearing SLEEP

DEFAULT_ADDRESS = 0x40
INTERNAL_OSC_HZ = 25000000  # nominal; single chips run anywhere near 23-27 MHz (board_config.PCA9685_OSC_HZ)
COUNTS = 4096  # 12-bit PWM


def prescale_for(freq_hz: int, osc_hz: int = INTERNAL_OSC_HZ) -> int:
    """Return PRE_SCALE = round(osc_hz / (4096 * freq_hz)) - 1 (datasheet eq. 1); ValueError outside 3..255
    or outside the datasheet's 24..1526 Hz."""
    prescale = (osc_hz + 2048 * freq_hz) // (COUNTS * freq_hz) - 1
    if not 3 <= prescale <= 255 or not 24 <= freq_hz <= 1526:
        raise ValueError("PWM frequency %r Hz: expected 24..1526 Hz (PRE_SCALE 3..255)" % (freq_hz,))
    return prescale


def _sleep_us(delay_us: int) -> None:
    import time

    if hasattr(time, "sleep_us"):
        time.sleep_us(delay_us)
    else:
        time.sleep(delay_us / 1000000)


class PCA9685:
    """Servo HAL on a PCA9685: ``set_pulse_us(channel, pulse_us)``, ``release(channel)``.

    ``osc_hz`` is the chip's oscillator (25 MHz nominal; calibrate it as hardware/README.md says). ``oe`` (or
    None) is a ``machine.Pin`` wired to the active-low OE input, still high (outputs disabled): driven low here,
    once every output is off. ``held_us[n]`` is the pulse in us output n was found giving at start (0 = off or
    blanked; always 0 with ``oe``).
    """

    def __init__(
        self,
        i2c,
        *,
        address: int = DEFAULT_ADDRESS,
        freq_hz: int = 50,
        osc_hz: int = INTERNAL_OSC_HZ,
        oe=None,
        sleep_us=None,
    ) -> None:
        self._i2c = i2c
        self.address = address
        self.osc_hz = osc_hz
        self.prescale = prescale_for(freq_hz, osc_hz)
        self._buf = bytearray(4)
        self._reg = bytearray(1)
        self.held_us = [0] * 16
        mode1 = self._read_reg(_MODE1)
        running = not mode1 & _MODE1_SLEEP and mode1 & _MODE1_AI and self._read_reg(_PRE_SCALE) == self.prescale
        if running and oe is not None:  # outputs were disabled through the reset: the servos are limp
            self._write_reg(_MODE1, _MODE1_AI)
            self._write_reg(_MODE2, _MODE2_OUTDRV)
            self._write_all_off()
        elif running:
            self._write_reg(_MODE1, _MODE1_AI)  # ALLCALL off; the outputs keep their pulses
            self._write_reg(_MODE2, _MODE2_OUTDRV)
            for channel in range(16):
                self.held_us[channel] = self._read_pulse_us(channel)
        else:
            self._write_reg(_MODE1, _MODE1_SLEEP | _MODE1_AI)  # auto-increment before any multi-byte write
            self._write_reg(_MODE2, _MODE2_OUTDRV)
            self._write_reg(_PRE_SCALE, self.prescale)
            self._write_all_off()
            self._write_reg(_MODE1, _MODE1_AI)
            (sleep_us or _sleep_us)(_OSCILLATOR_WAKE_US)
        if oe is not None:
            oe.value(0)

    @property
    def channels(self) -> int:
        """Number of outputs (16)."""
        return 16

    def counts_for(self, pulse_us: int) -> int:
        """Return the OFF count (0..4095) of a ``pulse_us`` pulse: pulse_us * osc_hz / (1e6 * (PRE_SCALE + 1))."""
        divisor = 1000 * (self.prescale + 1)
        counts = (pulse_us * (self.osc_hz // 1000) + (divisor >> 1)) // divisor
        return min(max(counts, 0), COUNTS - 1)

    def pulse_us_for(self, counts: int) -> int:
        """Return the pulse in us of ``counts`` ticks (the inverse of :meth:`counts_for`, rounded)."""
        numerator = counts * 1000 * (self.prescale + 1)
        khz = self.osc_hz // 1000
        return (numerator + (khz >> 1)) // khz

    def set_pulse_us(self, channel: int, pulse_us: int) -> None:
        """Output ``pulse_us`` wide pulses on ``channel`` (0..15): ON at count 0, OFF at the computed count."""
        counts = self.counts_for(pulse_us)
        buf = self._buf
        buf[0] = 0
        buf[1] = 0
        buf[2] = counts & 0xFF
        buf[3] = counts >> 8
        self._i2c.writeto_mem(self.address, _LED0_ON_L + 4 * channel, buf)

    def release(self, channel: int) -> None:
        """Switch ``channel`` fully off (no pulses: the servo goes limp)."""
        buf = self._buf
        buf[0] = 0
        buf[1] = 0
        buf[2] = 0
        buf[3] = _FULL_OFF
        self._i2c.writeto_mem(self.address, _LED0_ON_L + 4 * channel, buf)

    def close(self) -> None:
        """Switch every output fully off."""
        self._write_all_off()

    def __enter__(self) -> "PCA9685":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read_pulse_us(self, channel: int) -> int:
        """The pulse output ``channel`` is giving in us (0 if fully off or fully on: no servo pulse)."""
        buf = self._buf
        self._i2c.readfrom_mem_into(self.address, _LED0_ON_L + 4 * channel, buf)
        if buf[3] & _FULL_OFF or buf[1] & _FULL_ON:
            return 0
        on = buf[0] | (buf[1] & 0x0F) << 8
        off = buf[2] | (buf[3] & 0x0F) << 8
        return self.pulse_us_for((off - on) % COUNTS)

    def _write_all_off(self) -> None:
        buf = self._buf
        buf[0] = 0
        buf[1] = 0
        buf[2] = 0
        buf[3] = _FULL_OFF
        self._i2c.writeto_mem(self.address, _ALL_LED_ON_L, buf)

    def _read_reg(self, reg: int) -> int:
        self._i2c.readfrom_mem_into(self.address, reg, self._reg)
        return self._reg[0]

    def _write_reg(self, reg: int, value: int) -> None:
        self._reg[0] = value
        self._i2c.writeto_mem(self.address, reg, self._reg)
