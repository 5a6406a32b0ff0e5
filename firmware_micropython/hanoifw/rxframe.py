"""The board's frame receiver: received bytes are assembled into one line at a time in a preallocated buffer and
parsed there, in place, with the grammar of :mod:`hanoifw.protocol` (whose ``FrameReader`` is the host's reader
and the reference this one is tested against).

A parsed frame is not copied out: :class:`RxFrame` itself is the frame until the next line completes. Its
``kind`` is one of the protocol's kind strings (no new string for a known kind), ``seq`` and ``ack`` are ints,
and each field after them is read in place: :meth:`RxFrame.uint` parses a canonical decimal without making a
string, :meth:`RxFrame.text` makes one (for tokens and error messages, off the hot path). Handling a MOVE this
way allocates only the view the CRC is computed over (and the CRC's own long int when it exceeds 2**30).
"""

import binascii
import struct

from hanoifw import protocol as p

try:
    from micropython import const
except ImportError:  # CPython (tests, the host): const() is only an optimisation hint

    def const(value: int) -> int:
        return value


KIND_NAMES = p.IMMEDIATE_KINDS + p.RELIABLE_KINDS  # the kinds a board acts on
KIND_BYTES = tuple(name.encode() for name in KIND_NAMES)
MAX_PARTS = p.MAX_FIELDS + 3  # KIND, seq, ack and the fields
_HEX = b"0123456789abcdef"
_STAR = const(0x2A)
_COMMA = const(0x2C)
_NEWLINE = const(0x0A)
_RETURN = const(0x0D)
_ZERO = const(0x30)


class RxFrame:
    """Splits a byte stream into frames, keeping the current one in place. Never raises on any input.

    Counters (dropped lines, as ``protocol.FrameReader`` counts them): ``bad_crc``, ``oversized``, ``malformed``;
    ``frames`` counts accepted ones.
    """

    def __init__(self, max_frame_len: int = p.MAX_FRAME_LEN) -> None:
        self.buf = bytearray(max_frame_len - 1)  # the longest line without its newline
        self.view = memoryview(self.buf)
        self.starts = [0] * MAX_PARTS  # offset in buf of each comma-separated part: KIND, seq, ack, fields
        self.ends = [0] * MAX_PARTS
        self.parts = 0
        self.kind = ""
        self.seq = 0
        self.ack = 0
        self.frames = 0
        self.bad_crc = 0
        self.oversized = 0
        self.malformed = 0
        self._length = 0  # bytes of the line assembled so far
        self._discarding = False  # inside an oversized line: drop bytes up to the next newline
        self._crc = bytearray(4)

    @property
    def count(self) -> int:
        """Number of fields after KIND, seq and ack."""
        return self.parts - 3

    def take(self, data, start: int) -> int:
        """Take bytes of ``data`` (bytes, bytearray or memoryview) from offset ``start`` up to and including the
        next newline; return the offset after it, or ``len(data)`` when no line completed. A return below
        ``len(data)``, or equal to it after a newline, means a line ended: :meth:`is_frame` tells if it was one."""
        buf = self.buf
        limit = len(buf)
        length = self._length
        for pos in range(start, len(data)):
            byte = data[pos]
            if byte == _NEWLINE:
                self._length = 0
                if self._discarding:
                    self._discarding = False
                    self.parts = 0
                else:
                    self._finish(length)
                return pos + 1
            if length < limit:
                buf[length] = byte
                length += 1
            elif not self._discarding:
                self.oversized += 1
                self._discarding = True
        self._length = length
        self.parts = 0
        return len(data)

    def is_frame(self) -> bool:
        """True if the line :meth:`take` just completed was a valid frame (now in ``kind``, ``seq``, ``ack``)."""
        return self.parts >= 3

    def uint(self, index: int, max_value: int) -> int:
        """Field ``index`` (0 = the first after ack) as an int in 0..``max_value`` if it is a canonical decimal
        (digits only, no sign, no leading zero), else -1. Reads the buffer in place: no allocation."""
        if not 0 <= index < self.parts - 3:
            return -1
        return self._uint_at(self.starts[index + 3], self.ends[index + 3], max_value)

    def text(self, index: int, max_len: int = p.MAX_FRAME_LEN) -> str:
        """Field ``index`` as a str of at most ``max_len`` characters ("" if there is no such field); allocates."""
        if not 0 <= index < self.parts - 3:
            return ""
        start = self.starts[index + 3]
        end = min(self.ends[index + 3], start + max_len)
        return bytes(self.view[start:end]).decode()

    def texts(self) -> "list[str]":
        """Every field as a str, as ``protocol.FrameReader`` gives them (for tests and the host; allocates)."""
        return [self.text(i) for i in range(self.parts - 3)]

    def _uint_at(self, start: int, end: int, max_value: int) -> int:
        buf = self.buf
        if end <= start or end - start > 10 or (end - start > 1 and buf[start] == _ZERO):
            return -1
        value = 0
        for i in range(start, end):
            digit = buf[i] - _ZERO
            if digit < 0 or digit > 9:
                return -1
            value = value * 10 + digit
            if value > max_value:
                return -1
        return value

    def _finish(self, length: int) -> None:
        """Parse the line of ``length`` bytes in ``buf``; count it if it is dropped."""
        self.parts = 0
        buf = self.buf
        if length and buf[length - 1] == _RETURN:
            length -= 1
        if not length:
            return  # blank lines separate frames harmlessly; they are not counted
        star = length - p.CRC_DIGITS - 1
        if star < 0 or buf[star] != _STAR:
            self.malformed += 1
            return
        for i in range(star + 1, length):
            if buf[i] not in _HEX:
                self.malformed += 1
                return
        if not self._crc_matches(star):
            self.bad_crc += 1
            return
        if not self._split(star):
            self.malformed += 1
            return
        self.frames += 1

    def _crc_matches(self, star: int) -> bool:
        """True if the 8 hex digits after ``star`` are the CRC-32 of the bytes before it."""
        crc = self._crc
        struct.pack_into(">I", crc, 0, binascii.crc32(self.view[:star]))
        buf = self.buf
        pos = star + 1
        for i in range(4):
            if buf[pos] != _HEX[crc[i] >> 4] or buf[pos + 1] != _HEX[crc[i] & 15]:
                return False
            pos += 2
        return True

    def _split(self, star: int) -> bool:
        """Record the parts of the CRC-checked body ``buf[:star]`` and check its grammar; False if it breaks it."""
        buf = self.buf
        starts = self.starts
        ends = self.ends
        parts = 0
        starts[0] = 0
        for i in range(star):
            byte = buf[i]
            if byte == _COMMA:
                if parts == MAX_PARTS - 1:
                    return False
                ends[parts] = i
                parts += 1
                starts[parts] = i + 1
            elif byte < 0x20 or byte > 0x7E or byte == _STAR:
                return False
        ends[parts] = star
        parts += 1
        if parts < 3 or not self._find_kind(ends[0]):
            return False
        self.seq = self._uint_at(starts[1], ends[1], p.SEQ_MOD - 1)
        self.ack = self._uint_at(starts[2], ends[2], p.SEQ_MOD - 1)
        if self.seq < 0 or self.ack < 0:
            return False
        self.parts = parts
        return True

    def _find_kind(self, length: int) -> bool:
        """Set ``kind`` from ``buf[:length]``: the protocol's own string for a known kind, a new one for another
        word of 1-8 upper-case letters; False if it is not such a word."""
        if not 0 < length <= p.MAX_KIND_LEN:
            return False
        buf = self.buf
        for i in range(length):
            if buf[i] < 0x41 or buf[i] > 0x5A:  # A..Z
                return False
        for k in range(len(KIND_BYTES)):
            name = KIND_BYTES[k]
            if len(name) == length and name[0] == buf[0]:
                i = 1
                while i < length and name[i] == buf[i]:
                    i += 1
                if i == length:
                    self.kind = KIND_NAMES[k]
                    return True
        self.kind = bytes(self.view[:length]).decode()
        return True
