"""The board's outgoing frames, written one after another into a buffer made once, until the main loop takes them.

The frequent frames (ACK, DONE, PONG) are formatted by the caller with one ``bytes %`` (in C: a digit-by-digit
loop in Python costs several times more cycles on a microcontroller) and closed here with their CRC-32, with the
layout of :func:`hanoifw.protocol.encode` (tests hold the two to the same bytes). Rare frames (HELLO, STATUS,
ERROR) are made by ``protocol.encode`` itself and copied in with :meth:`add`.
"""

import binascii
import struct

from hanoifw import protocol as p


class TxFrames:
    """Up to ``max_frames`` frames of at most ``protocol.MAX_FRAME_LEN`` bytes each, waiting to be sent."""

    def __init__(self, max_frames: int) -> None:
        self.max_frames = max_frames
        self.buf = bytearray(max_frames * p.MAX_FRAME_LEN)
        self.view = memoryview(self.buf)
        self._nothing = self.view[:0]  # what take() gives when no frame waits: no new view per quiet step
        self.frames = 0
        self.length = 0  # bytes of the frames in buf
        self._crc = bytearray(4)

    @property
    def is_full(self) -> bool:
        """True when no further frame may be queued before :meth:`take`."""
        return self.frames >= self.max_frames

    def frame(self, body: bytes) -> None:
        """Append the frame whose text before the ``*`` is ``body`` (e.g. ``b"DONE,%d,%d,%d" % (seq, ack, id)``,
        formatted in C), closed with ``*crc`` and a newline; the caller checked :attr:`is_full`."""
        n = len(body)
        out = self._place(n + p.CRC_DIGITS + 2)
        out[:n] = body
        crc = self._crc
        struct.pack_into(">I", crc, 0, binascii.crc32(body))
        out[n] = 0x2A  # "*"
        out[n + 1 : n + 1 + p.CRC_DIGITS] = binascii.hexlify(crc)
        out[n + 1 + p.CRC_DIGITS] = 0x0A  # newline

    def add(self, frame: bytes) -> None:
        """Append a whole frame made by ``protocol.encode``; the caller checked :attr:`is_full`."""
        self._place(len(frame))[:] = frame

    def _place(self, size: int) -> memoryview:
        """The next ``size`` bytes of the buffer, counted as one more frame. A view of just them: MicroPython's
        slice store moves every byte after the slice, so a store into the whole 8 KB buffer would cost ~75 000
        cycles."""
        start = self.length
        self.length = start + size
        self.frames += 1
        return self.view[start : start + size]

    def take(self) -> memoryview:
        """The frames written since the last call, as a view of the buffer (valid until the next frame is
        written), and start afresh."""
        if not self.length:
            return self._nothing
        out = self.view[: self.length]
        self.length = 0
        self.frames = 0
        return out
