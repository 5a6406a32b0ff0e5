"""The board's outgoing frames, written one after another into a buffer made once, until the main loop takes them.

The frequent frames (ACK, DONE, PONG) are encoded here in place: kind, decimal numbers and the CRC-32 in hex are
written straight into the buffer, with the layout of :func:`hanoifw.protocol.encode` (tests hold the two to the
same bytes). Rare frames (HELLO, STATUS, ERROR) are made by ``protocol.encode`` and copied in with :meth:`add`.
"""

import binascii
import struct

from hanoifw import protocol as p

try:
    from micropython import const
except ImportError:  # CPython (tests, the host): const() is only an optimisation hint

    def const(value: int) -> int:
        return value


_HEX = b"0123456789abcdef"
_COMMA = const(0x2C)
_ZERO = const(0x30)


class TxFrames:
    """Up to ``max_frames`` frames of at most ``protocol.MAX_FRAME_LEN`` bytes each, waiting to be sent."""

    def __init__(self, max_frames: int) -> None:
        self.max_frames = max_frames
        self.buf = bytearray(max_frames * p.MAX_FRAME_LEN)
        self.view = memoryview(self.buf)
        self._nothing = self.view[:0]  # what take() gives when no frame waits: no new view per quiet step
        self.frames = 0
        self.length = 0  # bytes of whole frames (and of the one being written) in buf
        self._start = 0  # where the frame being written starts
        self._crc = bytearray(4)

    @property
    def is_full(self) -> bool:
        """True when no further frame may be queued before :meth:`take`."""
        return self.frames >= self.max_frames

    def begin(self, kind: bytes, seq: int, ack: int) -> None:
        """Start the frame ``KIND,seq,ack`` (``kind`` as bytes, ``seq`` and ``ack`` in 0..65535); the caller
        checked :attr:`is_full`."""
        start = self.length
        self._start = start
        end = start + len(kind)
        self.buf[start:end] = kind
        self.length = end
        self.uint(seq)
        self.uint(ack)

    def uint(self, value: int) -> None:
        """Append the field ``,value`` (a non-negative int) in decimal."""
        buf = self.buf
        n = self.length
        buf[n] = _COMMA
        n += 1
        first = n
        while True:
            buf[n] = _ZERO + value % 10
            n += 1
            value //= 10
            if not value:
                break
        last = n - 1
        while first < last:  # the digits were written lowest first
            digit = buf[first]
            buf[first] = buf[last]
            buf[last] = digit
            first += 1
            last -= 1
        self.length = n

    def field_from(self, rx, index: int, max_len: int) -> None:
        """Append field ``index`` of the received frame ``rx`` (an RxFrame), cut to ``max_len`` bytes ("" if it
        has no such field), copied byte by byte: it was checked as field text when it was received."""
        buf = self.buf
        n = self.length
        buf[n] = _COMMA
        n += 1
        if 0 <= index < rx.count:
            start = rx.starts[index + 3]
            end = min(rx.ends[index + 3], start + max_len)
            src = rx.buf
            for i in range(start, end):
                buf[n] = src[i]
                n += 1
        self.length = n

    def end(self) -> None:
        """Close the frame with ``*crc\\n`` (CRC-32 of its bytes so far, 8 lower-case hex digits)."""
        crc = self._crc
        struct.pack_into(">I", crc, 0, binascii.crc32(self.view[self._start : self.length]))
        buf = self.buf
        n = self.length
        buf[n] = 0x2A  # "*"
        n += 1
        for i in range(4):
            buf[n] = _HEX[crc[i] >> 4]
            buf[n + 1] = _HEX[crc[i] & 15]
            n += 2
        buf[n] = 0x0A  # "\n"
        self.length = n + 1
        self.frames += 1

    def add(self, frame: bytes) -> None:
        """Append a whole frame made by ``protocol.encode``; the caller checked :attr:`is_full`."""
        start = self.length
        end = start + len(frame)
        self.buf[start:end] = frame
        self.length = end
        self.frames += 1

    def take(self) -> memoryview:
        """The frames written since the last call, as a view of the buffer (valid until the next frame is
        written), and start afresh."""
        if not self.length:
            return self._nothing
        out = self.view[: self.length]
        self.length = 0
        self.frames = 0
        return out
