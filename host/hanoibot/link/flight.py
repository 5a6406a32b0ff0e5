"""Bytes the host has written that the board has not yet been seen to read: the host's side of flow control.

A board has a small serial input (the esp32 REPL's stdin ring holds 260 bytes, with no flow control) and one slow
CPU, so whatever the host writes faster than the board reads waits in front of every later frame, answers come
late, and a host that sends again because of that only makes it worse. :class:`UnreadBytes` keeps the bytes written
and not yet answered within a budget. Each frame is recorded with its write order and where it ends in the bytes
written; the board reads frames in order, so an answer proves that every frame up to the one it answers has been
read (:meth:`read_up_to`), and an ACK or PONG's byte count proves every byte before a point read
(:meth:`read_through`, see :mod:`hanoibot.link.board_reads`).

A question (PING, STATUS, SYNC, ESTOP) with no proof for a while, counted from when it was written or from the
last proof if that is later (a frame behind others waits for them), was lost, or its answer was: :meth:`expire`
stops counting it, so that the next question can always be asked (its answer's byte count then proves what the
board read). A reliable frame (one the window resends) stops counting when proved read, or when the board, heard
since the frame was written (a spoiled line too: it reads and answers), leaves it unproved for a resend timeout:
every answer was spoiled. A board that falls silent is never sent more than the budget.
"""

from __future__ import annotations

import math
from collections import deque
from typing import NamedTuple

#: Bytes the host may have in flight: within the esp32 REPL's 260-byte input ring, with room left for one more
#: question after one has expired unanswered (three MOVEs and a question fit: a lost answer does not stall a line
#: that carries MOVEs back to back).
MAX_IN_FLIGHT_BYTES = 220


class Lifetimes(NamedTuple):
    """How long unproved frames count in flight, in s: a question ``question_s``; a reliable frame ``reliable_s``,
    once the board has been heard after it was written (``heard_s``: when it was last heard, a spoiled line too)."""

    question_s: float
    reliable_s: float = math.inf
    heard_s: float = -math.inf


class UnreadBytes:
    """Frames written and not yet known read: (write order, bytes, when written in s, host offset of its end,
    whether it may expire), oldest first."""

    def __init__(self, max_bytes: int = MAX_IN_FLIGHT_BYTES) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.bytes_written = 0  # every byte ever written: the host's byte numbering (a frame ends at this offset)
        self._frames: deque[tuple[int, int, float, int, bool]] = deque()
        self._proof_s = -math.inf  # when an answer last proved a frame read

    def written(self, order: int, nbytes: int, now_s: float, *, reliable: bool = False) -> None:
        """Frame number ``order`` (increasing) of ``nbytes`` bytes was written at ``now_s``; a ``reliable`` one
        never expires."""
        self.bytes_written += nbytes
        self._frames.append((order, nbytes, now_s, self.bytes_written, not reliable))
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

    def read_through(self, offset: int, now_s: float) -> None:
        """At ``now_s`` an answer proved that the board has read every byte before host offset ``offset`` (see
        :mod:`hanoibot.link.board_reads`)."""
        frames = self._frames
        if frames and frames[0][3] <= offset:
            self._proof_s = now_s
        while frames and frames[0][3] <= offset:
            self.bytes -= frames.popleft()[1]

    def expire(self, now_s: float, lives: Lifetimes) -> None:
        """Stop counting the frames whose answer is overdue at ``now_s`` by ``lives`` (lost, or their answers)."""
        if self.oldest_expires_s(lives) > now_s:
            return
        kept = deque(frame for frame in self._frames if self._expires_s(frame, lives) > now_s)
        self._frames = kept
        self.bytes = sum(frame[1] for frame in kept)

    def oldest_expires_s(self, lives: Lifetimes) -> float:
        """When the first frame still counted stops counting unless proved read, in s (inf when none will)."""
        return min((self._expires_s(frame, lives) for frame in self._frames), default=math.inf)

    def _expires_s(self, frame: tuple[int, int, float, int, bool], lives: Lifetimes) -> float:
        """When ``frame`` stops counting unless proved read, in s (inf: only a proof frees it)."""
        _order, _nbytes, written_s, _end, is_question = frame
        since_s = max(written_s, self._proof_s)
        if is_question:
            return since_s + lives.question_s
        return since_s + lives.reliable_s if lives.heard_s > written_s else math.inf

    @property
    def oldest_order(self) -> int | None:
        """The write order of the oldest frame still counted (None when none is)."""
        return self._frames[0][0] if self._frames else None

    def clear(self) -> None:
        """Forget every frame (the board rebooted)."""
        self._frames.clear()
        self.bytes = 0
