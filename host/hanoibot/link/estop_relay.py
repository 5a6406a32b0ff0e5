"""Relaying ``hanoibot estop`` from another process to the board: the port holder's side of the control socket.

:class:`EstopRelay` polls the port's :class:`~hanoibot.link.control.ControlServer` between link reads (every
``poll_s`` of wall-clock time: the other process lives in real time whatever clock the link reads); on a request it
has ESTOP sent at once, and again every resend timeout until a STATUS sent after it confirms the latch, which it
then answers (``estopped``) to every waiting client.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .control import ESTOPPED, ControlServer

#: How often the control socket is checked for e-stop requests, in s of wall-clock time.
CONTROL_POLL_S = 0.02


class EstopRelay:
    """E-stop requests from other processes, relayed to the board; ``wall_now_s`` reads real time in s."""

    def __init__(self, *, poll_s: float = CONTROL_POLL_S, wall_now_s: Callable[[], float] = time.monotonic) -> None:
        self.requests = 0  # e-stop requests taken so far
        self._poll_s = poll_s
        self._wall_now_s = wall_now_s
        self._next_poll_s = 0.0
        self._sent_s = -float("inf")
        self._statuses_at_send = 0

    def serve(
        self,
        control: ControlServer | None,
        *,
        now_s: float,
        statuses: int,
        resend_s: float,
        send_estop: Callable[[], object],
    ) -> None:
        """Take new requests from ``control`` (at most every poll period) and call ``send_estop`` for them, or
        again when a request still waits ``resend_s`` after the last ESTOP (``now_s`` and ``resend_s`` in s of the
        link clock; ``statuses``: STATUS frames received so far)."""
        if control is None:
            return
        wall_s = self._wall_now_s()
        if wall_s < self._next_poll_s:
            return
        self._next_poll_s = wall_s + self._poll_s
        asked = control.take_estop_requests()
        self.requests += asked
        overdue = control.is_waiting and now_s - self._sent_s >= resend_s
        if asked or overdue:
            self._statuses_at_send = statuses
            self._sent_s = now_s
            send_estop()  # the board answers with a STATUS

    def status_came(self, control: ControlServer | None, *, latched: bool, statuses: int) -> None:
        """A STATUS came (the ``statuses``-th): if it shows the e-stop ``latched`` and came after our ESTOP, tell
        every waiting client."""
        if control is not None and control.is_waiting and latched and statuses > self._statuses_at_send:
            control.answer(ESTOPPED)
