"""The simulated board's processor time: frames wait in the serial input until the chip has time to handle them.

A real board is one slow CPU: each frame it parses and answers costs chip time, and so does each control step, so
a host that sends faster than that fills the board's serial input and every answer comes later. :class:`ChipTime`
models exactly that on the virtual clock: complete frames (lines) join an inbox with their arrival time; the chip
handles them one after another, each finishing ``frame_s`` after it could start (when it arrived and the chip was
free), and every control tick takes ``tick_s`` of the chip first (as a timer interrupt would). Costs are per
frame and per tick in s; ``slow`` divides the chip's speed. The estimates for a real Pico (MicroPython on an RP2040
at 125 MHz) are :data:`PICO_FRAME_S` and :data:`PICO_TICK_S`.
"""

from __future__ import annotations

import math
from collections import deque

#: Chip time a real Pico spends on one frame (read, parse, answer), in s: the emulated RP2040 (~0.4x a real one)
#: spends about 5 ms of chip time per PING.
PICO_FRAME_S = 0.002
#: Chip time a real Pico spends on one 10 ms control step, in s (an estimate: min-jerk profile, five PWM writes).
PICO_TICK_S = 0.001


class ChipTime:
    """The board's serial input and CPU schedule: which frames the firmware has handled by when (times in s)."""

    def __init__(self, *, slow: float) -> None:
        if not (slow >= 1 and math.isfinite(slow)):
            raise ValueError(f"chip slowdown {slow!r} is invalid: expected a finite factor of at least 1")
        self.frame_s = PICO_FRAME_S * slow
        self.tick_s = PICO_TICK_S * slow
        self.max_backlog_bytes = 0
        self._inbox: deque[tuple[float, bytes]] = deque()  # (arrival s, one frame), in order
        self._partial = b""
        self._backlog_bytes = 0
        self._free_s = 0.0  # when the chip has finished what it started

    @property
    def backlog_bytes(self) -> int:
        """Bytes arrived and not yet handled by the firmware."""
        return self._backlog_bytes + len(self._partial)

    def arrive(self, data: bytes, now_s: float) -> None:
        """Bytes reach the board's serial input at ``now_s``; every complete line becomes a frame to handle."""
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            self._inbox.append((now_s, line + b"\n"))
            self._backlog_bytes += len(line) + 1
        self.max_backlog_bytes = max(self.max_backlog_bytes, self.backlog_bytes)

    def next_frame_done_s(self) -> float:
        """When the chip finishes handling the next waiting frame, in s (inf when none waits)."""
        if not self._inbox:
            return math.inf
        return max(self._free_s, self._inbox[0][0]) + self.frame_s

    def take_frame(self) -> bytes:
        """The next waiting frame, handed to the firmware at :meth:`next_frame_done_s` (the chip is busy till then)."""
        self._free_s = self.next_frame_done_s()
        _, frame = self._inbox.popleft()
        self._backlog_bytes -= len(frame)
        return frame

    def control_tick(self, tick_at_s: float) -> None:
        """A control step at ``tick_at_s`` takes the chip for ``tick_s``: a frame being handled then (or any waiting
        frame) finishes that much later, without losing the work already done on it."""
        start_s = max(self._free_s, self._inbox[0][0]) if self._inbox else math.inf
        self._free_s = (start_s if start_s < tick_at_s else max(self._free_s, tick_at_s)) + self.tick_s

    def clear(self) -> None:
        """A reboot loses whatever waited in the serial input."""
        self._inbox.clear()
        self._partial = b""
        self._backlog_bytes = 0
