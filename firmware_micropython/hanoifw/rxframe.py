"""The one frame reader of hanoibot: it splits received bytes into lines and parses each line in place, with the
grammar of :mod:`hanoifw.protocol`. The board reads with :class:`RxFrame` (no copy per frame); the host, the
simulated boards and the tests read with :class:`FrameReader`, which wraps it and hands out tuples.

A parsed frame is not copied out: :class:`RxFrame` itself is the frame until the next line completes. Its
``kind`` is one of the protocol's kind strings (no new string for a known kind), ``seq`` and ``ack`` are ints, and
each field after them is an offset pair into the line: :meth:`RxFrame.uint` parses a canonical decimal without
a str, :meth:`RxFrame.text` makes one (for tokens and error messages, off the hot path).

Speed on a microcontroller: MicroPython runs a few hundred CPU cycles per bytecode, so a Python loop over the bytes
of a frame costs about 2 000 cycles per byte, while a ``bytes`` method (``find``, ``lstrip``, ``startswith``) scans
in C. The line is therefore kept as one ``bytes`` object (made once per line, the only sizeable allocation) and
searched, checked and split with those methods; only the digits of numbers are read one by one (no allocation).
"""

import binascii
import struct

from hanoifw import protocol as p

KIND_NAMES = (p.MOVE, p.PING, p.STATUS, p.SYNC, p.ESTOP, p.CONFIG, p.HOLD, p.RESUME, p.CLEAR, p.RELEASE)
KIND_PREFIXES = tuple((name + ",").encode() for name in KIND_NAMES)  # the frequent kinds first
MAX_PARTS = p.MAX_FIELDS + 3  # KIND, seq, ack and the fields
# Every byte a field may hold (printable ASCII without "," and "*"), the frequent ones first; with the comma
_BODY_BYTES = b",0123456789" + bytes(b for b in range(0x20, 0x7F) if b not in b",*0123456789")
_HEX = b"0123456789abcdef"


class RxFrame:
    """Splits a byte stream into frames, keeping the current one in place. Never raises on any input.

    Counters (dropped lines): ``bad_crc``, ``oversized``, ``malformed``;
    ``frames`` counts accepted ones.
    """

    def __init__(self, max_frame_len: int = p.MAX_FRAME_LEN) -> None:
        self.max_line_len = max_frame_len - 1  # the longest line without its newline
        self.line = b""  # the current frame's line, without its newline
        self.starts = [0] * MAX_PARTS  # offset in line of each comma-separated part: KIND, seq, ack, fields
        self.ends = [0] * MAX_PARTS
        self.parts = 0
        self.count = 0  # number of fields after KIND, seq and ack (an attribute: a property costs a call)
        self.kind = ""
        self.seq = 0
        self.ack = 0
        self.frames = 0
        self.bad_crc = 0
        self.oversized = 0
        self.malformed = 0
        self._pending = b""  # the start of a line whose newline has not arrived yet
        self._discarding = False  # inside an oversized line: drop bytes up to the next newline
        self._crc = bytearray(4)

    def take(self, data: bytes, start: int) -> int:
        """Take ``data`` (bytes) from offset ``start`` up to and including the next newline; return the offset
        after it, or ``len(data)`` when no line completed (the bytes are kept for the next call). After a
        newline, :meth:`is_frame` tells if the line was a frame."""
        self.parts = 0
        newline = data.find(b"\n", start)
        if newline < 0:
            if not self._discarding:
                if len(self._pending) + len(data) - start > self.max_line_len:
                    self.oversized += 1
                    self._discarding = True
                    self._pending = b""
                else:
                    self._pending += data[start:] if start else data
            return len(data)
        if self._discarding:
            self._discarding = False
        else:
            line = data[start:newline]
            if self._pending:
                line = self._pending + line
                self._pending = b""
            if len(line) > self.max_line_len:
                self.oversized += 1
            else:
                self._finish(line)
        return newline + 1

    def parse_line(self, line: bytes) -> bool:
        """Parse one whole ``line`` (without its newline) as if it had just been read: a frame kept from earlier
        (see :mod:`hanoifw.rxwindow`); True if it is a valid frame."""
        self.parts = 0
        self._finish(line)
        return self.parts >= 3

    def is_frame(self) -> bool:
        """True if the line :meth:`take` just completed was a valid frame (now in ``kind``, ``seq``, ``ack``)."""
        return self.parts >= 3

    def uint(self, index: int, max_value: int) -> int:
        """Field ``index`` (0 = the first after ack) as an int in 0..``max_value`` if it is a canonical decimal
        (digits only, no sign, no leading zero), else -1. Reads the line in place: no allocation."""
        if not 0 <= index < self.parts - 3:
            return -1
        return _uint_at(self.line, self.starts[index + 3], self.ends[index + 3], max_value)

    def text(self, index: int, max_len: int = p.MAX_FRAME_LEN) -> str:
        """Field ``index`` as a str of at most ``max_len`` characters ("" if there is no such field); allocates."""
        if not 0 <= index < self.parts - 3:
            return ""
        start = self.starts[index + 3]
        return self.line[start : min(self.ends[index + 3], start + max_len)].decode()

    def field_bytes(self, index: int, max_len: int) -> bytes:
        """Field ``index`` as bytes of at most ``max_len`` (b"" if there is no such field); allocates."""
        if not 0 <= index < self.parts - 3:
            return b""
        start = self.starts[index + 3]
        return self.line[start : min(self.ends[index + 3], start + max_len)]

    def texts(self) -> "list[str]":
        """Every field as a str (for the host and tests; allocates)."""
        return [self.text(i) for i in range(self.parts - 3)]

    def _finish(self, line: bytes) -> None:
        """Parse ``line`` (without its newline); count it if it is dropped."""
        if line[-1:] == b"\r":
            line = line[:-1]
        if not line:
            return  # blank lines separate frames harmlessly; they are not counted
        star = len(line) - p.CRC_DIGITS - 1
        if star < 0 or line[star] != 0x2A:  # "*"
            self.malformed += 1
            return
        if not self._crc_matches(line, star):
            for i in range(star + 1, len(line)):
                if line[i] not in _HEX:
                    self.malformed += 1
                    return
            self.bad_crc += 1
            return
        if len(line.lstrip(_BODY_BYTES)) != len(line) - star or not self._split(line, star):
            self.malformed += 1  # a byte a frame may not hold, or a broken KIND,seq,ack
            return
        self.line = line
        self.frames += 1

    def _crc_matches(self, line: bytes, star: int) -> bool:
        """True if the 8 characters after ``star`` are the CRC-32 of the bytes before it, in lower-case hex."""
        crc = self._crc
        struct.pack_into(">I", crc, 0, binascii.crc32(memoryview(line)[:star]))
        return line.endswith(binascii.hexlify(crc))

    def _split(self, line: bytes, star: int) -> bool:
        """Record the parts of the checked body ``line[:star]``; False if KIND, seq or ack break the grammar."""
        starts = self.starts
        ends = self.ends
        parts = 0
        start = 0
        while True:
            comma = line.find(b",", start, star)
            if comma < 0:
                break
            if parts == MAX_PARTS - 1:
                return False
            starts[parts] = start
            ends[parts] = comma
            parts += 1
            start = comma + 1
        starts[parts] = start
        ends[parts] = star
        parts += 1
        if parts < 3 or not self._find_kind(line, ends[0]):
            return False
        self.seq = _uint_at(line, starts[1], ends[1], p.SEQ_MOD - 1)
        self.ack = _uint_at(line, starts[2], ends[2], p.SEQ_MOD - 1)
        if self.seq < 0 or self.ack < 0:
            return False
        self.parts = parts
        self.count = parts - 3
        return True

    def _find_kind(self, line: bytes, length: int) -> bool:
        """Set ``kind`` from ``line[:length]``: the protocol's own string for a known kind, a new one for another
        word of 1-8 upper-case letters; False if it is not such a word."""
        for k in range(len(KIND_PREFIXES)):
            if line.startswith(KIND_PREFIXES[k]):
                self.kind = KIND_NAMES[k]
                return True
        if not 0 < length <= p.MAX_KIND_LEN:
            return False
        for i in range(length):
            if line[i] < 0x41 or line[i] > 0x5A:  # A..Z
                return False
        self.kind = line[:length].decode()
        return True


def _uint_at(line: bytes, start: int, end: int, max_value: int) -> int:
    """``line[start:end]`` as a canonical decimal in 0..``max_value``, else -1 (read in place: no allocation)."""
    if end <= start or end - start > 10 or (end - start > 1 and line[start] == 0x30):
        return -1
    value = 0
    for i in range(start, end):
        digit = line[i] - 0x30
        if digit < 0 or digit > 9:
            return -1
        value = value * 10 + digit
        if value > max_value:
            return -1
    return value


SPOILED_HEAD_BYTES = 8  # bytes kept of the start of each dropped line (FrameReader.spoiled)


class FrameReader:
    """Splits a byte stream into frames ``(kind, seq, ack, fields)`` with fields a list of str: :class:`RxFrame`
    with each frame copied out. Never raises.

    Counters (dropped lines): ``bad_crc``, ``oversized``, ``malformed``; ``frames`` counts accepted ones.
    ``spoiled`` holds the first bytes of each line dropped in the last :meth:`feed`.
    """

    def __init__(self, max_frame_len: int = p.MAX_FRAME_LEN) -> None:
        self._rx = RxFrame(max_frame_len)
        self.spoiled: "list[bytes]" = []

    @property
    def frames(self) -> int:
        return self._rx.frames

    @property
    def bad_crc(self) -> int:
        return self._rx.bad_crc

    @property
    def oversized(self) -> int:
        return self._rx.oversized

    @property
    def malformed(self) -> int:
        return self._rx.malformed

    def feed(self, data: bytes) -> "list[tuple[str, int, int, list[str]]]":
        """Take the next bytes of the stream; return the frames completed by them, in order."""
        if not isinstance(data, bytes):
            data = bytes(data)
        rx = self._rx
        frames = []
        self.spoiled = []
        start = 0
        while start < len(data):
            dropped = rx.bad_crc + rx.malformed + rx.oversized
            head = (rx._pending + data[start : start + SPOILED_HEAD_BYTES])[:SPOILED_HEAD_BYTES]
            end = rx.take(data, start)
            if rx.is_frame():
                frames.append((rx.kind, rx.seq, rx.ack, rx.texts()))
            elif rx.bad_crc + rx.malformed + rx.oversized != dropped:
                self.spoiled.append(head.split(b"\n")[0])
            start = end
        return frames
