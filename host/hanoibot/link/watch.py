"""Watching the board for a reboot and for another program's session.

:class:`BoardWatch` knows the board's boot id and the last ack seen. A changed boot id (in a HELLO or a STATUS) is a
reboot: :meth:`BoardWatch.reset` makes the :class:`~hanoibot.errors.BoardReset` naming the commands whose fate is
unknown. An ack outside what this session sent means the board answered someone else's SYNC: :meth:`is_ours` tells,
:meth:`taken_over` makes the :class:`~hanoibot.errors.SessionTakenOver`. Both errors are kept, so every later
service call raises the same one. A sign of a reboot (a lost board frame, NO_SESSION) sets ``suspect_reset``:
STATUS is asked again and again until one comes.
"""

from __future__ import annotations

from collections.abc import Sequence

from hanoifw import protocol

from ..errors import BoardReset, LinkError, SessionTakenOver


class BoardWatch:
    """Boot id, last ack and the verdicts of one session with the board at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.boot_id = ""
        self.acked_seq = 0
        self.suspect_reset = False
        self.reset_error: BoardReset | None = None
        self.taken_over_error: SessionTakenOver | None = None

    def verdict(self) -> LinkError | None:
        """The reset or takeover seen, if any (raised by every service call from then on)."""
        return self.reset_error or self.taken_over_error

    def is_ours(self, ack: int, next_seq: int) -> bool:
        """True if ``ack`` lies between the last ack seen and the last seq sent (``next_seq`` - 1): in one boot the
        board's cumulative ack only ever counts our frames, until another program sends it a SYNC of its own."""
        sent_since = (next_seq - 1 - self.acked_seq) % protocol.SEQ_MOD
        return bool((ack - self.acked_seq) % protocol.SEQ_MOD <= sent_since)

    def taken_over(self) -> SessionTakenOver:
        """Record and return SessionTakenOver (nothing more is sent from now on)."""
        self.taken_over_error = SessionTakenOver(
            f"another program started its own session with the board on {self.url} (the board acks frames this"
            " session never sent): stopped here so that two programs never drive one arm; close the other"
            f" program, then check the arm with `hanoibot status --port {self.url}`"
        )
        return self.taken_over_error

    def reset(self, new_boot_id: str, cause: str, unknown_cmd_ids: Sequence[int]) -> BoardReset:
        """Record and return BoardReset: the board now runs boot ``new_boot_id``; ``unknown_cmd_ids`` were sent and
        not known done, and are never replayed into the new boot."""
        unknown = tuple(unknown_cmd_ids)
        shown = ", ".join(map(str, unknown[:8])) + (" ..." if len(unknown) > 8 else "")
        self.reset_error = BoardReset(
            f"board at {self.url!r} was reset (boot id {self.boot_id} -> {new_boot_id}, cause {cause}):"
            f" {len(unknown)} unfinished command(s) [{shown}] have unknown fate and were not replayed",
            old_boot_id=self.boot_id,
            new_boot_id=new_boot_id,
            unknown_cmd_ids=unknown,
        )
        return self.reset_error
