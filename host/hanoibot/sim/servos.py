"""Virtual servos: the simulator's servo HAL, recording every pulse the firmware outputs.

The firmware core calls :meth:`VirtualServos.set_pulse_us` and :meth:`VirtualServos.release` exactly as it calls
the real PWM HAL. Each *change* of a channel's output is appended to :attr:`VirtualServos.history` as
``(t_s, channel, pulse_us)`` (``pulse_us`` is ``None`` when the channel is released), so tests can prove what
the arm was told to do and in which order. With an optional per-channel maximum speed in µs/s the simulated horn
lags behind the commanded pulse the way a real servo does; :meth:`position_us` reports where it actually is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import ConfigError

#: One history entry: (time in s, channel, output pulse in µs or None when released).
HistoryEntry = tuple[float, int, int | None]


class VirtualServos:
    """A bank of ``channels`` simulated servos read against a clock (``now_s`` returns seconds)."""

    def __init__(
        self,
        channels: int,
        *,
        now_s: Callable[[], float],
        max_speed_us_per_s: Sequence[float | None] | None = None,
    ) -> None:
        if channels < 1:
            raise ConfigError(f"servo channel count {channels} is invalid: expected at least 1")
        speeds = list(max_speed_us_per_s) if max_speed_us_per_s is not None else [None] * channels
        if len(speeds) != channels:
            raise ConfigError(f"max_speed_us_per_s has {len(speeds)} entries: expected one per channel ({channels})")
        for speed in speeds:
            if speed is not None and speed <= 0:
                raise ConfigError(f"max servo speed {speed} µs/s is invalid: expected a positive number or None")
        self.channels = channels
        self.history: list[HistoryEntry] = []
        self._now_s = now_s
        self._max_speed_us_per_s = speeds
        self._target_us: list[int | None] = [None] * channels
        self._position_us: list[float | None] = [None] * channels
        self._updated_s: list[float] = [0.0] * channels

    # --- the HAL interface the firmware core calls -----------------------------------------------------
    def set_pulse_us(self, channel: int, pulse_us: int) -> None:
        """Output ``pulse_us`` µs on ``channel``; a change is recorded in :attr:`history`."""
        if self._target_us[channel] == pulse_us:
            return
        now_s = self._now_s()
        self._settle(channel, now_s)
        if self._position_us[channel] is None:
            # A servo that was unpowered snaps to its first pulse; we cannot know where the horn was.
            self._position_us[channel] = float(pulse_us)
        self._target_us[channel] = pulse_us
        self.history.append((now_s, channel, pulse_us))

    def release(self, channel: int) -> None:
        """Stop the PWM on ``channel`` (the servo goes limp); recorded as ``None`` in :attr:`history`."""
        if self._target_us[channel] is None and self._position_us[channel] is None:
            return
        now_s = self._now_s()
        self._target_us[channel] = None
        self._position_us[channel] = None
        self.history.append((now_s, channel, None))

    # --- inspection ------------------------------------------------------------------------------------
    def release_all(self) -> None:
        """Release every channel, as a reboot does."""
        for channel in range(self.channels):
            self.release(channel)

    def pulses_us(self) -> list[int | None]:
        """The pulse each channel outputs now in µs (None = released)."""
        return list(self._target_us)

    def position_us(self, channel: int) -> float | None:
        """Where the horn of ``channel`` is now, as the pulse in µs it corresponds to (None = released)."""
        self._settle(channel, self._now_s())
        return self._position_us[channel]

    def positions_us(self) -> list[float | None]:
        """:meth:`position_us` for every channel."""
        return [self.position_us(channel) for channel in range(self.channels)]

    def pulses_of(self, channel: int) -> list[int | None]:
        """The sequence of outputs of one channel, in order, from :attr:`history`."""
        return [pulse_us for _t_s, ch, pulse_us in self.history if ch == channel]

    def _settle(self, channel: int, now_s: float) -> None:
        """Move the horn of ``channel`` toward its target as far as its speed allows up to ``now_s`` s."""
        position_us = self._position_us[channel]
        target_us = self._target_us[channel]
        speed = self._max_speed_us_per_s[channel]
        elapsed_s = now_s - self._updated_s[channel]
        self._updated_s[channel] = now_s
        if position_us is None or target_us is None:
            return
        if speed is None:
            self._position_us[channel] = float(target_us)
            return
        step_us = speed * max(elapsed_s, 0.0)
        error_us = target_us - position_us
        self._position_us[channel] = (
            target_us if abs(error_us) <= step_us else position_us + step_us * (1 if error_us > 0 else -1)
        )
