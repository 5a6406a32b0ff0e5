"""The host's send window: reliable frames sent and not yet acked, in seq order (resent one by one when the board
shows them lost, all from the oldest on a resend timeout).

The board acks cumulatively with the seq of the last frame it took in order. Sequence numbers count modulo
:data:`hanoifw.protocol.SEQ_MOD`. After a SYNC the board expects SYNC's seq + 1, so :meth:`SendWindow.restart`
renumbers what is still unacked (same commands, new seqs; command ids keep a resent MOVE at-most-once).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from hanoifw.protocol import SEQ_MOD, encode


class Pending:
    """One reliable frame in flight: its seq, what it says, when it was last sent (s), when that copy will have
    reached the board's end of the line (``arrives_s``: later on a slow line with bytes queued before it) and, as
    ``sent_order``, the number of frames the host had written by then, that frame included (orders frames sent in
    one instant) and, as ``end_offset``, where that copy ends in the bytes the host has written."""

    __slots__ = (
        "acked",
        "arrives_s",
        "cmd_id",
        "end_offset",
        "fields",
        "frame",
        "kind",
        "sent_order",
        "sent_s",
        "seq",
        "transmissions",
    )

    def __init__(self, seq: int, kind: str, fields: Sequence[str | int], cmd_id: int | None) -> None:
        self.seq = seq
        self.kind = kind
        self.fields = tuple(fields)
        self.cmd_id = cmd_id
        self.frame = b""
        self.sent_s = 0.0
        self.arrives_s = 0.0
        self.sent_order = 0
        self.end_offset = 0
        self.transmissions = 0
        self.acked = False


class SendWindow:
    """Up to ``size`` unacked reliable frames; seqs start after ``first_seq`` - 1."""

    def __init__(self, size: int, first_seq: int = 0) -> None:
        self.size = size
        self.next_seq: int = first_seq % SEQ_MOD
        self._pending: deque[Pending] = deque()

    def __len__(self) -> int:
        return len(self._pending)

    @property
    def is_full(self) -> bool:
        """True when no more frames may be sent before an ack."""
        return len(self._pending) >= self.size

    @property
    def oldest(self) -> Pending | None:
        """The first unacked frame (the one a resend timeout resends from), or None."""
        return self._pending[0] if self._pending else None

    def pending(self) -> list[Pending]:
        """Every unacked frame, oldest first."""
        return list(self._pending)

    def add(self, kind: str, fields: Sequence[str | int], *, ack: int, cmd_id: int | None = None) -> Pending:
        """Give the next seq to a new frame and keep it until acked (the caller sends ``frame``)."""
        entry = Pending(self.next_seq, kind, fields, cmd_id)
        entry.frame = encode(kind, entry.seq, ack, entry.fields)
        self._pending.append(entry)
        self.next_seq = (self.next_seq + 1) % SEQ_MOD
        return entry

    def take_ack(self, ack: int) -> list[Pending]:
        """Remove and return the frames a cumulative ``ack`` covers (none if it acks nothing new)."""
        if not self._pending:
            return []
        covered = (ack - self._pending[0].seq) % SEQ_MOD
        if covered >= len(self._pending):
            return []
        acked = [self._pending.popleft() for _ in range(covered + 1)]
        for entry in acked:
            entry.acked = True
        return acked

    def restart(self, first_seq: int, *, ack: int) -> None:
        """Renumber the unacked frames from ``first_seq`` (after a SYNC) as never sent."""
        self.next_seq = first_seq % SEQ_MOD
        for entry in self._pending:
            entry.seq = self.next_seq
            entry.frame = encode(entry.kind, entry.seq, ack, entry.fields)
            entry.transmissions = 0
            self.next_seq = (self.next_seq + 1) % SEQ_MOD

    def clear(self) -> list[Pending]:
        """Forget every unacked frame (the board rebooted) and return them."""
        dropped = list(self._pending)
        self._pending.clear()
        return dropped
