"""The servo outputs as the controller drives them: limit-checked writes, a staggered enable, release.

``Outputs.written_us[ch]`` is the pulse servo output ``ch`` was last given (0 = released: no pulses). Switching
outputs on is staggered: after a CONFIG, a RELEASE or a power loss, the channels are enabled one at a time,
``stagger_ms`` apart, in ``order`` (light joints first: the gripper and the wrist before the shoulder), so at most
one servo at a time draws its start-up current (an MG996R stalls at up to 2.5 A while it runs to its start pose).
The last one gets its ``stagger_ms`` too: the enable lasts until ``stagger_ms`` after the last switch-on, so a
joint pushed while it was limp has run to its start pose, and its surge is over, before any motion starts.
A HAL with ``stage_pulse_us`` and ``flush`` (the PCA9685) gets all of one update's pulses staged, then one flush:
one I2C transaction per step, so every joint takes the step in the same PWM frame.
"""

from hanoifw.ticks import ticks_add_ms, ticks_diff_ms


class Outputs:
    """Drives ``servos`` (``set_pulse_us(ch, us)``, ``release(ch)``) for ``channels`` channels.

    ``held_us`` (or None) are pulses the outputs were found giving at boot (a PCA9685 that kept running through an
    MCU reset): those outputs count as on and are not enabled again.
    """

    def __init__(self, servos, channels: int, *, stagger_ms: int = 200, order=None, held_us=None) -> None:
        self.servos = servos
        self.channels = channels
        self.stagger_ms = stagger_ms
        self.order = list(order) if order is not None else list(range(channels - 1, -1, -1))
        if sorted(self.order) != list(range(channels)):
            raise ValueError("enable order %r: expected each channel 0..%d once" % (self.order, channels - 1))
        self.written_us = [0] * channels
        if held_us is not None:
            for ch in range(channels):
                self.written_us[ch] = held_us[ch]
        self._pending: list = []  # channels still to enable, in order
        self._next_ms = 0
        self._settling = False  # the last channel is on, and gets stagger_ms to reach its pose before any motion
        self._stage = getattr(servos, "stage_pulse_us", None)  # bound once: no new object per step
        self._flush = getattr(servos, "flush", None) if self._stage is not None else None

    @property
    def is_enabling(self) -> bool:
        """True while some channels wait for their turn to be switched on, and for ``stagger_ms`` after the last
        one was."""
        return self._settling or bool(self._pending)

    def start_enable(self, now_ms: int) -> None:
        """Queue every released channel for a staggered switch-on, the first one at ``now_ms``."""
        self._pending = [ch for ch in self.order if not self.written_us[ch]]
        self._next_ms = now_ms
        self._settling = False

    def update(self, now_ms: int, pulses_us: "list[int]", mins_us: "list[int]", maxs_us: "list[int]") -> int:
        """Give the servos the commanded ``pulses_us`` (one channel per ``stagger_ms`` while enabling).

        A pulse outside its channel's limits is not output and not recorded: returns that channel, else -1.
        """
        bad = -1
        if self._pending:
            while self._pending and ticks_diff_ms(now_ms, self._next_ms) >= 0:
                self._next_ms = ticks_add_ms(now_ms, self.stagger_ms)
                ch = self._pending.pop(0)
                if self._write(ch, pulses_us, mins_us, maxs_us) >= 0:
                    bad = ch
            self._settling = not self._pending and self.stagger_ms > 0
        elif self._settling and ticks_diff_ms(now_ms, self._next_ms) < 0:
            pass  # the last channel switched on settles: nothing else changes until it has
        else:
            self._settling = False
            for ch in range(self.channels):
                if self.written_us[ch] and pulses_us[ch] != self.written_us[ch]:
                    if self._write(ch, pulses_us, mins_us, maxs_us) >= 0:
                        bad = ch
        if self._flush is not None:
            self._flush()
        return bad

    def release_all(self) -> None:
        """Stop the pulses of every channel (the servos go limp) and forget any pending enable."""
        self._pending = []
        self._settling = False
        for ch in range(self.channels):
            self.servos.release(ch)
            self.written_us[ch] = 0

    def _write(self, ch: int, pulses_us: "list[int]", mins_us: "list[int]", maxs_us: "list[int]") -> int:
        pulse_us = pulses_us[ch]
        if not mins_us[ch] <= pulse_us <= maxs_us[ch]:
            return ch
        if self._stage is not None:
            self._stage(ch, pulse_us)
        else:
            self.servos.set_pulse_us(ch, pulse_us)
        self.written_us[ch] = pulse_us
        return -1
