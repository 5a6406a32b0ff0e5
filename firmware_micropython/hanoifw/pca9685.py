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

One step, one I2C transaction: :meth:`PCA9685.stage_pulse_us` only changes a copy of the 16 LED registers kept
here, and :meth:`PCA9685.flush` writes every staged channel in one auto-increment burst. The chip applies a
transaction's new values together (at its STOP, MODE2.OCH = 0), so all joints take a step in the same PWM frame;
a write per channel let a step straddle a frame boundary, splitting the joints across two frames. Each output's
pulse starts :data:`STAGGER_COUNTS` later than the one before (output n turns ON at count 256 n), so the servos'
current surges at the start of their pulses do not all come at once.
Register writes use buffers allocated here, once (the burst's view is made again only when its span grows).
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
STAGGER_COUNTS = 256  # output n's pulse starts at count 256 n (1.25 ms apart at 50 Hz): surges do not coincide


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
        self._leds = bytearray(64)  # LED0_ON_L .. LED15_OFF_H as last written (or staged)
        for channel in range(16):
            self._leds[4 * channel + 3] = _FULL_OFF
        self._low = 16  # the span of outputs ever staged, written by every flush
        self._high = -1
        self._dirty = False
        self._span = None  # memoryview of the span's registers (made again only when the span grows)
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
            self._i2c.readfrom_mem_into(self.address, _LED0_ON_L, self._leds)  # what the outputs give now
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

    def on_count(self, channel: int) -> int:
        """The count (0..4095) at which ``channel``'s pulse starts in each PWM period (staggered)."""
        return (channel * STAGGER_COUNTS) % COUNTS

    def set_pulse_us(self, channel: int, pulse_us: int) -> None:
        """Output ``pulse_us`` wide pulses on ``channel`` (0..15) now, in a transaction of its own (ON at
        :meth:`on_count`, OFF that many counts later)."""
        on = self.on_count(channel)
        off = (on + self.counts_for(pulse_us)) % COUNTS
        buf = self._buf
        buf[0] = on & 0xFF
        buf[1] = on >> 8
        buf[2] = off & 0xFF
        buf[3] = off >> 8
        for i in range(4):
            self._leds[4 * channel + i] = buf[i]
        self._i2c.writeto_mem(self.address, _LED0_ON_L + 4 * channel, buf)

    def stage_pulse_us(self, channel: int, pulse_us: int) -> None:
        """Set ``channel``'s pulse to ``pulse_us`` (ON at :meth:`on_count`, OFF that many counts later) at the next
        :meth:`flush`."""
        on = self.on_count(channel)
        off = (on + self.counts_for(pulse_us)) % COUNTS
        leds = self._leds
        base = 4 * channel
        leds[base] = on & 0xFF
        leds[base + 1] = on >> 8
        leds[base + 2] = off & 0xFF
        leds[base + 3] = off >> 8
        if channel < self._low:
            self._low = channel
            self._span = None
        if channel > self._high:
            self._high = channel
            self._span = None
        self._dirty = True

    def flush(self) -> None:
        """Write every staged output in one auto-increment I2C transaction (nothing when nothing was staged)."""
        if not self._dirty:
            return
        span = self._span
        if span is None:
            span = memoryview(self._leds)[4 * self._low : 4 * self._high + 4]
            self._span = span
        self._i2c.writeto_mem(self.address, _LED0_ON_L + 4 * self._low, span)
        self._dirty = False

    def release(self, channel: int) -> None:
        """Switch ``channel`` fully off now (no pulses: the servo goes limp)."""
        buf = self._buf
        buf[0] = 0
        buf[1] = 0
        buf[2] = 0
        buf[3] = _FULL_OFF
        leds = self._leds
        for i in range(4):
            leds[4 * channel + i] = buf[i]
        self._i2c.writeto_mem(self.address, _LED0_ON_L + 4 * channel, buf)

    def close(self) -> None:
        """Switch every output fully off."""
        self._write_all_off()

    def __enter__(self) -> "PCA9685":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read_pulse_us(self, channel: int) -> int:
        """The pulse output ``channel`` gave when read back at start, in us (0 if fully off or fully on)."""
        leds = self._leds
        base = 4 * channel
        if leds[base + 3] & _FULL_OFF or leds[base + 1] & _FULL_ON:
            return 0
        on = leds[base] | (leds[base + 1] & 0x0F) << 8
        off = leds[base + 2] | (leds[base + 3] & 0x0F) << 8
        return self.pulse_us_for((off - on) % COUNTS)

    def _write_all_off(self) -> None:
        for channel in range(16):
            self._leds[4 * channel] = 0
            self._leds[4 * channel + 1] = 0
            self._leds[4 * channel + 2] = 0
            self._leds[4 * channel + 3] = _FULL_OFF
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
