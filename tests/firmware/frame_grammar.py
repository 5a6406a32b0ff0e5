"""A plain reading of the frame grammar of docs/protocol.md, for tests: the whole stream at once, line by line,
with str methods and no speed tricks. The readers of hanoifw.rxframe are checked against it. MicroPython-clean (the
firmware tests import it there too)."""

import binascii

MAX_FRAME_LEN = 256  # docs/protocol.md: bytes per frame, newline included
MAX_FIELDS = 40
SEQ_MOD = 65536


def read_stream(stream, max_frame_len=MAX_FRAME_LEN):
    """The frames ``(kind, seq, ack, fields)`` in the bytes ``stream`` and the drop counts
    ``(frames, bad_crc, malformed, oversized)``. A last piece without its newline is not a frame; it counts as
    oversized only if it is already too long."""
    frames = []
    bad_crc = malformed = oversized = 0
    lines = stream.split(b"\n")
    tail = lines.pop()
    if len(tail) > max_frame_len - 1:
        oversized += 1
    for line in lines:
        if len(line) > max_frame_len - 1:
            oversized += 1
            continue
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            continue
        body, star, crc = line[:-9], line[-9:-8], line[-8:]
        if len(line) < 9 or star != b"*" or not all(c in b"0123456789abcdef" for c in crc):
            malformed += 1
            continue
        if crc != ("%08x" % (binascii.crc32(body) & 0xFFFFFFFF)).encode():
            bad_crc += 1
            continue
        frame = _parse_body(body)
        if frame is None:
            malformed += 1
        else:
            frames.append(frame)
    return frames, (len(frames), bad_crc, malformed, oversized)


def _parse_body(body):
    """The frame in the CRC-checked ``body``, or None if it breaks the grammar."""
    if not all(0x20 <= c <= 0x7E and c != 0x2A for c in body):
        return None
    parts = body.decode().split(",")
    if not 3 <= len(parts) <= MAX_FIELDS + 3:
        return None
    kind = parts[0]
    if not 1 <= len(kind) <= 8 or not all("A" <= ch <= "Z" for ch in kind):
        return None
    seq = _canonical_uint(parts[1])
    ack = _canonical_uint(parts[2])
    if seq is None or ack is None:
        return None
    return (kind, seq, ack, parts[3:])


def _canonical_uint(text):
    """``text`` as an int below SEQ_MOD if it is decimal digits without a leading zero, else None."""
    if not text or (len(text) > 1 and text[0] == "0") or not all("0" <= ch <= "9" for ch in text):
        return None
    value = int(text)
    return value if value < SEQ_MOD else None
