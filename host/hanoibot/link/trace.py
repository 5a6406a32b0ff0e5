"""The link's flight recorder: a bounded ring of the last frames written and read, with their times.

When the link fails in the field (the board falls silent, another program takes the board over, the board refuses
a command) a retransmission count says little; the last ~200 frames on the wire say what happened (as Klipper's
``dump_debug`` does for its MCU link). :class:`FrameTrace` keeps them; the link attaches :meth:`FrameTrace.lines`
to the :class:`~hanoibot.errors.LinkError` it raises, and the run writes them into its report and journal.
Received bytes are split into lines as they arrive (a damaged line is kept as it came: that is the point).
"""

from __future__ import annotations

from collections import deque

#: Frames kept (written and read together).
TRACE_FRAMES = 200
#: Longest part of a line kept while its end has not arrived, in bytes (noise without a newline is cut here).
_MAX_PARTIAL_BYTES = 512


class FrameTrace:
    """The last ``size`` frames: (time in s of the link clock, ">" written or "<" read, the line's bytes)."""

    def __init__(self, size: int = TRACE_FRAMES) -> None:
        self._frames: deque[tuple[float, str, bytes]] = deque(maxlen=size)
        self._partial = b""

    def __len__(self) -> int:
        return len(self._frames)

    def wrote(self, now_s: float, frame: bytes) -> None:
        """One frame was written at ``now_s``."""
        self._frames.append((now_s, ">", frame))

    def read(self, now_s: float, data: bytes) -> None:
        """Bytes came in at ``now_s``: every line they complete is kept with this time."""
        if not data:
            return
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()[-_MAX_PARTIAL_BYTES:]
        for line in lines:
            self._frames.append((now_s, "<", line + b"\n"))

    def clear_partial(self) -> None:
        """Forget a line begun before the input was flushed."""
        self._partial = b""

    def lines(self) -> tuple[str, ...]:
        """The frames oldest first, one printable line each: ``time_s direction frame`` (``\\n`` left off, other
        unprintable bytes escaped), e.g. ``12.345678 > PING,17,4,3*1a2b3c4d``."""
        return tuple(f"{t_s:.6f} {way} {_printable(frame)}" for t_s, way, frame in self._frames)


def _printable(frame: bytes) -> str:
    """``frame`` without its newline, as text a terminal shows safely (non-printable bytes as ``\\xNN``)."""
    body = frame[:-1] if frame.endswith(b"\n") else frame
    return "".join(chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02x}" for b in body)
