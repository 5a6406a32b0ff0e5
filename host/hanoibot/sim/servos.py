"""Virtual servos: the simulator's servo HAL, recording every pulse the firmware outputs.

The firmware core calls :meth:`VirtualServos.set_pulse_us` and :meth:`VirtualServos.release` exactly as it calls
the real PWM HAL. Each *change* of a channel's output is appended to :attr:`VirtualServos.history` as
``(t_s, channel, pulse_us)`` (``pulse_us`` is ``None`` when the channel is released), so tests can prove what
the arm was told to do and in which order. Each channel's horn follows its pulse by the one servo model of
:mod:`hanoibot.motion.servo_model` (the blend checker uses it too): a proportional position loop with a top speed,
and optionally an acceleration limit, deadband, backlash and speed sag (:class:`ServoTraits`);
:meth:`position_us` reports where the horn actually is.

Every servo shares the same loop time constant, so servos that are within their speed limits trail the command by
the same time and the arm stays on the path the command traces; only a channel asked to go faster than it can falls
further behind. (A servo that always ran at full speed to its newest pulse would not: after every control tick a
channel with little to do would arrive long before one near its limit, pulling the grip point off its straight
line by up to a tick's worth of motion.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..errors import ConfigError
from ..motion.servo_model import PWM_FRAME_S, RESPONSE_S, ServoState, ServoTraits, approach_us, follow

__all__ = ["PWM_FRAME_S", "RESPONSE_S", "HistoryEntry", "ServoTraits", "VirtualServos", "approach_us"]

#: One history entry: (time in s, channel, output pulse in µs or None when released).
HistoryEntry = tuple[float, int, int | None]


class VirtualServos:
    """A bank of ``channels`` simulated servos read against a clock (``now_s`` returns seconds).

    ``traits`` (one :class:`ServoTraits` per channel) say how each horn follows its pulse; the shorthand
    ``max_speed_us_per_s`` (per channel, None = an ideal servo that is always where it was told) with
    ``response_s`` (the position loop's time constant in s) makes plain ones. With ``frame_s`` (s) a servo takes a
    new pulse only at the start of each PWM frame, as the RP2040's double-buffered compare registers and a servo
    measuring one pulse per frame make it: frames start at ``frame_phase_s + k * frame_s``, and the horn turns
    toward the pulse given before the latest frame start. None: every pulse counts from the instant it is given.
    ``output_us`` (or None: exactly the µs given) is the pulse the board's output really gives for the whole µs
    it is asked for (:func:`hanoibot.motion.drivers.output_us`: a PCA9685's 4.88 µs counts): the servo measures
    that; :attr:`history` keeps what the firmware asked for.
    """

    def __init__(
        self,
        channels: int,
        *,
        now_s: Callable[[], float],
        max_speed_us_per_s: Sequence[float | None] | None = None,
        response_s: float = RESPONSE_S,
        frame_s: float | None = None,
        frame_phase_s: float = 0.0,
        traits: Sequence[ServoTraits] | None = None,
        output_us: Callable[[int], float] | None = None,
    ) -> None:
        if channels < 1:
            raise ConfigError(f"servo channel count {channels} is invalid: expected at least 1")
        speeds = list(max_speed_us_per_s) if max_speed_us_per_s is not None else [None] * channels
        if len(speeds) != channels:
            raise ConfigError(f"max_speed_us_per_s has {len(speeds)} entries: expected one per channel ({channels})")
        for speed in speeds:
            if speed is not None and speed <= 0:
                raise ConfigError(f"max servo speed {speed} µs/s is invalid: expected a positive number or None")
        if not (response_s >= 0 and math.isfinite(response_s)):
            raise ConfigError(f"servo response time {response_s} s is invalid: expected a finite number >= 0")
        if frame_s is not None and not (frame_s > 0 and math.isfinite(frame_s)):
            raise ConfigError(f"servo PWM frame {frame_s} s is invalid: expected a positive number of seconds")
        if traits is None:
            traits = [ServoTraits(speed, response_s) for speed in speeds]
        elif len(traits) != channels:
            raise ConfigError(f"servo traits have {len(traits)} entries: expected one per channel ({channels})")
        self.channels = channels
        self.history: list[HistoryEntry] = []
        self.traits = list(traits)
        self._now_s = now_s
        self._frame_s = frame_s
        self._frame_phase_s = frame_phase_s
        self._output_us = output_us
        self._target_us: list[int | None] = [None] * channels  # the pulse given last
        self._latched_us: list[int | None] = [None] * channels  # the pulse the servo measured in its latest frame
        self._state: list[ServoState | None] = [None] * channels
        self._updated_s: list[float] = [0.0] * channels
        # Per channel, the number k of the latest frame start (frame_phase_s + k * frame_s) the servo has passed:
        # frames are counted, not found again from a time each call, so a frame that starts exactly at one call's
        # end is taken once, never skipped by rounding.
        self._frames_passed: list[int] = [0] * channels

    # --- the HAL interface the firmware core calls -----------------------------------------------------
    def set_pulse_us(self, channel: int, pulse_us: int, *, since_s: float | None = None) -> None:
        """Output ``pulse_us`` µs on ``channel``; a change is recorded in :attr:`history`.

        ``since_s`` (s, default now) backdates the change to when it really took effect, for a caller that learns
        of it later (the virtual Pico reads its PWM registers every 10 ms; a new pulse took effect at its slice's
        wrap): clamped to the channel's latest update and to now.
        """
        if self._target_us[channel] == pulse_us:
            return
        output_us = self._output_us
        now_s = self._now_s()
        if since_s is not None:
            now_s = min(max(since_s, self._updated_s[channel]), now_s)
        self._settle(channel, now_s)
        if self._state[channel] is None:
            # A servo that was unpowered snaps to its first pulse; we cannot know where the horn was.
            self._state[channel] = ServoState.at(pulse_us if output_us is None else output_us(pulse_us))
            self._latched_us[channel] = pulse_us
            if self._frame_s is not None:
                self._frames_passed[channel] = self._last_frame_by(now_s)
        self._target_us[channel] = pulse_us
        if self._frame_s is None:
            self._latched_us[channel] = pulse_us
        self.history.append((now_s, channel, pulse_us))

    def release(self, channel: int) -> None:
        """Stop the PWM on ``channel`` (the servo goes limp); recorded as ``None`` in :attr:`history`."""
        if self._target_us[channel] is None and self._state[channel] is None:
            return
        now_s = self._now_s()
        self._target_us[channel] = None
        self._latched_us[channel] = None
        self._state[channel] = None
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
        state = self._state[channel]
        return None if state is None else state.horn_us

    def positions_us(self) -> list[float | None]:
        """:meth:`position_us` for every channel."""
        return [self.position_us(channel) for channel in range(self.channels)]

    def pulses_of(self, channel: int) -> list[int | None]:
        """The sequence of outputs of one channel, in order, from :attr:`history`."""
        return [pulse_us for _t_s, ch, pulse_us in self.history if ch == channel]

    def _settle(self, channel: int, now_s: float) -> None:
        """Move the horn of ``channel`` toward its target as its position loop does up to ``now_s`` s, taking
        the given pulse at every PWM frame start on the way (with ``frame_s``)."""
        start_s = self._updated_s[channel]
        self._updated_s[channel] = now_s
        if self._state[channel] is None or self._target_us[channel] is None:
            return
        if self._frame_s is not None:
            frame_start_s = self._frame_start_s(self._frames_passed[channel] + 1)  # the next frame
            if frame_start_s <= now_s:  # the servo takes the given pulse then (it has not changed since start_s)
                self._turn(channel, frame_start_s - start_s)
                self._latched_us[channel] = self._target_us[channel]
                start_s = frame_start_s
                self._frames_passed[channel] = self._last_frame_by(now_s)
        self._turn(channel, now_s - start_s)

    def _frame_start_s(self, k: int) -> float:
        """When PWM frame number ``k`` starts, in s."""
        assert self._frame_s is not None
        return self._frame_phase_s + k * self._frame_s

    def _last_frame_by(self, t_s: float) -> int:
        """The number of the latest frame that starts at or before ``t_s`` (by :meth:`_frame_start_s` itself)."""
        assert self._frame_s is not None
        k = math.floor((t_s - self._frame_phase_s) / self._frame_s)
        while self._frame_start_s(k + 1) <= t_s:
            k += 1
        while self._frame_start_s(k) > t_s:
            k -= 1
        return k

    def _turn(self, channel: int, elapsed_s: float) -> None:
        """Turn the horn of ``channel`` for ``elapsed_s`` s toward the pulse its servo measured last."""
        state = self._state[channel]
        target_us = self._latched_us[channel]
        if state is None or target_us is None:
            return
        measured_us = target_us if self._output_us is None else self._output_us(target_us)
        self._state[channel] = follow(self.traits[channel], state, measured_us, elapsed_s)
