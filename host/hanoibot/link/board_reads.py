"""How far the board has read what the host wrote: the board's byte count put onto the host's own byte numbering.

Since protocol 4 each ACK and PONG carries ``rx_count``: how many bytes the board had read from its input (modulo
2**16) when it finished reading the frame the answer is about (a PONG's is its PING). The host numbers every byte
it writes (:attr:`~hanoibot.link.sender.Sender.bytes_written`). The two numberings differ by the bytes the line
lost (a UART drops bytes; a flipped bit changes no count). A PONG pins that difference exactly: its PING was
written once, and the host knows where it ended. Any later count is put onto the host's numbering with the
difference last pinned; bytes lost since make the result fall short, so a frame is never taken as read before the
board read it (the next PONG pins the difference again).
"""

from __future__ import annotations

from hanoifw.protocol import SEQ_MOD

#: Board byte counts run modulo this (the seq space: 16 bits).
COUNT_MOD: int = SEQ_MOD


class BoardReads:
    """The difference between the host's byte numbering and the board's count, once a PONG has pinned it."""

    def __init__(self) -> None:
        self._offset: int | None = None  # host offset - board count, modulo COUNT_MOD; None: not pinned yet

    @property
    def is_pinned(self) -> bool:
        """True once a PONG has pinned the difference (since the last :meth:`forget`)."""
        return self._offset is not None

    def forget(self) -> None:
        """Start again (a new handshake: the board may have rebooted, and its count with it)."""
        self._offset = None

    def pin(self, host_end: int, rx_count: int) -> None:
        """The board's count was ``rx_count`` right after reading the frame that ends at host offset ``host_end``."""
        self._offset = (host_end - rx_count) % COUNT_MOD

    def host_offset(self, rx_count: int, bytes_written: int) -> int | None:
        """The host offset up to which the board had read when its count was ``rx_count`` (at most
        ``bytes_written``, the bytes the host has written so far), or None before the first :meth:`pin`."""
        if self._offset is None:
            return None
        mapped = (rx_count + self._offset) % COUNT_MOD
        return bytes_written - (bytes_written - mapped) % COUNT_MOD
