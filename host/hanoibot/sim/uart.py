"""A serial line's byte rate: bytes queue up and come out no faster than ``baud`` allows (8N1: 10 bits a byte).

Pure bookkeeping on a clock in seconds, so the emulator can pace what the host wrote before the board sees it,
and what the board said before the host reads it, like a UART at 115200 baud or a USB CDC link.
"""

from __future__ import annotations

from collections import deque

#: Bits on the wire per byte with 8 data bits, no parity, 1 start and 1 stop bit.
BITS_PER_BYTE = 10


class PacedLine:
    """A one-way line carrying ``baud / 10`` bytes per second; bytes leave in order, each after its own time."""

    def __init__(self, baud: int) -> None:
        if baud < 1:
            raise ValueError(f"baud rate {baud} is not supported: expected at least 1")
        self.byte_s = BITS_PER_BYTE / baud
        self._runs: deque[tuple[float, bytes]] = deque()  # (when its first byte is carried, bytes), in order
        self._free_s = 0.0  # when the last queued byte has been carried

    def push(self, data: bytes, now_s: float) -> None:
        """Queue ``data`` written at ``now_s``; its first byte starts when the line is free."""
        if not data:
            return
        first_done_s = max(self._free_s, now_s) + self.byte_s
        self._runs.append((first_done_s, bytes(data)))
        self._free_s = first_done_s + (len(data) - 1) * self.byte_s

    def due(self, now_s: float) -> bytes:
        """The bytes fully carried by ``now_s`` (removed from the line)."""
        out = bytearray()
        while self._runs and self._runs[0][0] <= now_s:
            first_done_s, data = self._runs.popleft()
            count = min(len(data), int((now_s - first_done_s) / self.byte_s) + 1)
            out += data[:count]
            if count < len(data):
                self._runs.appendleft((first_done_s + count * self.byte_s, data[count:]))
                break
        return bytes(out)

    def next_due_s(self) -> float | None:
        """When the next byte is carried, or None when the line is idle."""
        return self._runs[0][0] if self._runs else None
