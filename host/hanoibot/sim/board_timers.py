"""The simulated board's timers as ``main.py`` makes them: the grip-sampling ``machine.Timer`` and the port
model's microsecond clock."""

from __future__ import annotations

from collections.abc import Callable

from hanoifw.sensing import GRIP_SAMPLE_MS

from ..clock import VirtualClock


class GripTimer:
    """The board's grip-sampling ``machine.Timer`` as :func:`hanoifw.board.start_grip_timer` makes it: a hard
    periodic timer, as on rp2. :meth:`~hanoibot.sim.board.SimBoard.run_until` fires it every ``GRIP_SAMPLE_MS``
    of virtual time."""

    def __init__(self, callback: Callable[[object], None]) -> None:
        self.callback = callback
        self.is_running = True

    def fire(self) -> None:
        """One expiry: the firmware's callback takes one grip sample."""
        if self.is_running:
            self.callback(self)

    def deinit(self) -> None:
        """Stop the timer."""
        self.is_running = False


def clock_us(clock: VirtualClock) -> Callable[[], int]:
    """``clock``'s time in whole µs, as a port model's loop counts it (a function of the clock alone: the loop's
    thread may hold it, and must not hold the board)."""

    def now_us() -> int:
        return round(clock.now_s() * 1e6)

    return now_us


def make_grip_timer(period_ms: int, callback: Callable[[object], None], hard: bool) -> GripTimer:
    """``main.py``'s timer maker for :func:`hanoifw.board.start_grip_timer`: the simulated board samples every
    ``GRIP_SAMPLE_MS`` whatever ``period_ms`` (a ValueError names a period the grid does not have)."""
    if period_ms != GRIP_SAMPLE_MS:
        raise ValueError(f"grip timer period {period_ms} ms: the simulated board samples every {GRIP_SAMPLE_MS} ms")
    return GripTimer(callback)
