"""Bytes the host has written that the board has not yet been seen to read: the host's side of flow control.

A board has a small serial input (the esp32 REPL's stdin ring holds 260 bytes, with no flow control) and one slow
CPU, so whatever the host writes faster than the board reads waits in front of every later frame, answers come
late, and a host that sends again because of that only makes it worse. :class:`UnreadBytes` keeps the bytes written
and not yet answered within a budget. Each frame is recorded with its write order; the board reads frames in
order, so an answer proves that every frame up to the one it answers has been read (:meth:`read_up_to`). A frame
with no proof for a retransmission timeout, counted from when it was written or from the last proof if that is later
(a frame behind others waits for them), was lost, or its answer was: :meth:`expire` stops counting it.
"""

from __future__ import annotations

import math
from collections import deque

#: Bytes the host may have in flight: below 200, well within the esp32 REPL's 260-byte input ring.
MAX_IN_FLIGHT_BYTES = 192


class UnreadBytes:
    """Frames written and not yet known read: (write order, bytes, when written in s), oldest first."""

    def __init__(self, max_bytes: int = MAX_IN_FLIGHT_BYTES) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._frames: deque[tuple[int, int, float]] = deque()
        self._proof_s = -math.inf  # when an answer last proved a frame read

    def written(self, order: int, nbytes: int, now_s: float) -> None:
        """Frame number ``order`` (increasing) of ``nbytes`` bytes was written at ``now_s``."""
        self._frames.append((order, nbytes, now_s))
        self.bytes += nbytes

    def has_room(self, nbytes: int, *, keep_bytes: int = 0) -> bool:
        """True if ``nbytes`` more keep the bytes in flight within the budget less ``keep_bytes`` (kept for
        something more urgent); a frame alone always fits."""
        return not self._frames or self.bytes + nbytes + keep_bytes <= self.max_bytes

    def read_up_to(self, order: int, now_s: float) -> None:
        """At ``now_s`` an answer proved that the board has read every frame up to number ``order``."""
        if self._frames and self._frames[0][0] <= order:
            self._proof_s = now_s
        while self._frames and self._frames[0][0] <= order:
            self.bytes -= self._frames.popleft()[1]

    def expire(self, now_s: float, max_age_s: float) -> None:
        """Stop counting the oldest frames while their answer is ``max_age_s`` overdue at ``now_s`` (lost)."""
        while self._frames and self.oldest_expires_s(max_age_s) <= now_s:
            self.bytes -= self._frames.popleft()[1]

    def oldest_expires_s(self, max_age_s: float) -> float:
        """When the oldest frame still counted stops counting unless proved read, in s (inf when none is)."""
        return max(self._frames[0][2], self._proof_s) + max_age_s if self._frames else math.inf

    def clear(self) -> None:
        """Forget every frame (the board rebooted)."""
        self._frames.clear()
        self.bytes = 0
