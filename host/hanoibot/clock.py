"""One clock object read by the link, the sequencer and the simulator (time is injected, in seconds).

``WallClock`` is real time. ``VirtualClock`` only moves when somebody waits on it or advances it, so a long
simulated run finishes in seconds of CPU time and timeouts in tests are deterministic.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """What every clock offers: the time now and a way to wait, both in seconds."""

    def now_s(self) -> float: ...

    def sleep(self, duration_s: float) -> None: ...


class WallClock:
    """Real time from ``time.monotonic``."""

    def now_s(self) -> float:
        """Seconds since an arbitrary fixed point."""
        return time.monotonic()

    def sleep(self, duration_s: float) -> None:
        """Block for ``duration_s`` seconds of real time."""
        if duration_s > 0:
            time.sleep(duration_s)


class VirtualClock:
    """Simulated time that advances only when waited on."""

    def __init__(self, start_s: float = 0.0) -> None:
        self._now_s = float(start_s)

    def now_s(self) -> float:
        """Simulated seconds since the clock was made."""
        return self._now_s

    def sleep(self, duration_s: float) -> None:
        """Advance simulated time by ``duration_s`` seconds at once."""
        if duration_s > 0:
            self._now_s += duration_s

    def advance(self, duration_s: float) -> None:
        """Advance simulated time by ``duration_s`` seconds (same as :meth:`sleep`)."""
        self.sleep(duration_s)
