"""The sending half of the link: the window of reliable frames, their (re)sending as room in flight allows, and
the count of bytes written and not yet known read.

:class:`Sender` numbers every frame written (its *order*), so an answer can prove which frames the board has read
(see :mod:`hanoibot.link.flight`). Reliable frames wait in a queue until the bytes in flight leave room for them
and for one question (a PING or STATUS must always be askable); a frame the board shows lost is resent alone
(:meth:`Sender.resend`), a resend timeout resends every unacked frame, oldest first (:meth:`Sender.resend_all`),
both through the same queue. Writing is the caller's: ``write(frame)`` puts bytes on the port.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence

from .flight import Lifetimes, UnreadBytes
from .window import Pending, SendWindow

#: Bytes of the longest PING or STATUS request: room in flight reliable frames leave free, so that the board can
#: always be asked (whether a frame was lost, whether it rebooted).
QUERY_BYTES = 40


class Sender:
    """Reliable frames in a window of ``window`` and every frame's bytes in flight; ``write`` puts a frame on the
    port (it may raise what the port raises); ``now_s`` reads the link clock; ``line_byte_s`` is how long one
    byte takes on the line (0: no line to wait for)."""

    def __init__(
        self,
        write: Callable[[bytes], None],
        now_s: Callable[[], float],
        *,
        window: int,
        first_seq: int = 0,
        line_byte_s: float = 0.0,
    ) -> None:
        self.window = SendWindow(window, first_seq=first_seq)
        self.flight = UnreadBytes()
        self.frames_written = 0
        self.retransmits = 0
        self.last_write_s = 0.0
        self.line_byte_s = line_byte_s
        self._write = write
        self._now_s = now_s
        self._to_send: deque[Pending] = deque()  # to be (re)sent as soon as there is room, oldest first
        self._line_free_s = -math.inf  # when the line finishes carrying what was written (see line_done_s)

    @property
    def next_order(self) -> int:
        """The order number the next frame written will get."""
        return self.frames_written + 1

    @property
    def bytes_written(self) -> int:
        """Bytes written so far: where the last frame written ends in the host's byte numbering."""
        return self.flight.bytes_written

    @property
    def has_waiting(self) -> bool:
        """True while reliable frames wait for room in flight."""
        return bool(self._to_send)

    def write(self, frame: bytes, *, reliable: bool = False) -> int:
        """Write one frame now and count it in flight (a ``reliable`` one until proved read); returns its order."""
        self._write(frame)
        now_s = self._now_s()
        self.last_write_s = now_s
        self.frames_written += 1
        self.flight.written(self.frames_written, len(frame), now_s, reliable=reliable)
        self._line_free_s = max(self._line_free_s, now_s) + len(frame) * self.line_byte_s
        return self.frames_written

    def line_done_s(self) -> float:
        """When the line will have carried every byte written so far, in s of the link clock (-inf before the
        first write): a frame written behind others is not late for its answer before then."""
        return self._line_free_s

    def add(self, kind: str, fields: Sequence[str | int], *, ack: int, cmd_id: int | None = None) -> Pending:
        """Number a new reliable frame, queue it and send what room allows."""
        entry = self.window.add(kind, fields, ack=ack, cmd_id=cmd_id)
        self._to_send.append(entry)
        self.flush()
        return entry

    def flush(self) -> None:
        """Send the reliable frames waiting to be (re)sent, oldest first, while they fit in flight beside a
        question."""
        while self._to_send:
            entry = self._to_send[0]
            if entry.acked:
                self._to_send.popleft()
                continue
            if not self.flight.has_room(len(entry.frame), keep_bytes=QUERY_BYTES):
                return
            self._to_send.popleft()
            self._send(entry)

    def resend(self, lost: Sequence[Pending]) -> None:
        """Send the frames ``lost`` again (the board read their last copies and did not take them), in seq order
        with whatever already waits, as room in flight allows."""
        waiting = set(map(id, self._to_send)) | set(map(id, lost))
        self._to_send = deque(entry for entry in self.window.pending() if id(entry) in waiting)
        self.flush()

    def resend_all(self) -> None:
        """Go back N: send every unacked frame again, oldest first, as room in flight allows."""
        self._to_send.clear()
        self._to_send.extend(self.window.pending())
        self.flush()

    def take_ack(self, ack: int, now_s: float) -> list[Pending]:
        """Drop what a cumulative ``ack`` covers; when its newest frame was sent once, the board read that very copy
        and all before it (the bytes leave flight). Returns the frames acked."""
        acked = self.window.take_ack(ack)
        if acked and acked[-1].transmissions == 1:
            self.flight.read_up_to(acked[-1].sent_order, now_s)
        return acked

    def is_waiting(self, entry: Pending) -> bool:
        """True if ``entry`` is next in line for room to be (re)sent."""
        return bool(self._to_send) and self._to_send[0] is entry

    def room_s(self, nbytes: int, lives: Lifetimes) -> float:
        """When ``nbytes`` more may be written, in s: -inf if they fit in flight now (never "now": a wall clock
        moves on while the timers are computed), else when the first question in flight expires (inf if none is:
        room comes with an answer), see :meth:`UnreadBytes.expire`."""
        if self.flight.has_room(nbytes):
            return -math.inf
        return self.flight.oldest_expires_s(lives)

    def flush_due_s(self, lives: Lifetimes) -> float:
        """When the next waiting frame will have room, in s (inf when none waits)."""
        if not self._to_send:
            return math.inf
        return self.room_s(len(self._to_send[0].frame) + QUERY_BYTES, lives)

    def restart(self, first_seq: int, *, ack: int) -> None:
        """After a SYNC: renumber the unacked frames from ``first_seq`` and queue them to be sent as room allows."""
        self.window.restart(first_seq, ack=ack)
        self._to_send.clear()
        self._to_send.extend(self.window.pending())

    def clear(self) -> None:
        """Forget every frame (the board rebooted)."""
        self.window.clear()
        self._to_send.clear()
        self.flight.clear()

    def _send(self, entry: Pending) -> None:
        """(Re)send one reliable frame and note when."""
        if entry.transmissions:
            self.retransmits += 1
        entry.transmissions += 1
        entry.sent_s = self._now_s()
        entry.sent_order = self.next_order
        self.write(entry.frame, reliable=True)
        entry.arrives_s = self.line_done_s()
        entry.end_offset = self.bytes_written
