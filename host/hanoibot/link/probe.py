"""Questions the host asks the board: PINGs (round trips, "was my frame lost?") and STATUS requests, and when the
next heartbeat is due.

:class:`Questions` remembers every PING awaiting its PONG (token -> when sent, its order among the frames written),
which STATUS requests are unanswered, the last question asked and the highest one known answered, and how many
STATUS frames had come when each PONG came (a STATUS after a PING's PONG is one the board made after it read that
PING: it handles frames in the order they arrive, so it tells a fresh STATUS from an older answer). From these it
says when a heartbeat is due: a period after the last frame written; but while a question is unanswered, a resend
timeout after it (at most a period, unless the measured round trips are longer), so a lost answer is asked again at
once, yet a board is never asked faster than it answers.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

#: PINGs remembered while their PONG is awaited.
MAX_PINGS = 32


class PingSent(NamedTuple):
    """A PING awaiting its PONG: when it was written (s), its order among the frames written, and where it ends in
    the bytes the host has written (see :mod:`hanoibot.link.board_reads`)."""

    sent_s: float
    order: int
    end_offset: int


class Questions:
    """PINGs and STATUS requests in the air, and the heartbeat timing; ``heartbeat_s`` is the longest gap between
    frames to the board, ``status_every_s`` how often a heartbeat is a STATUS rather than a PING (both in s)."""

    def __init__(self, *, heartbeat_s: float, status_every_s: float) -> None:
        self.heartbeat_max_s = heartbeat_s
        self.heartbeat_s = heartbeat_s
        self.status_every_s = status_every_s
        self.status_s = -1.0  # when the last STATUS came
        self.status_asked_s = -1.0  # when a STATUS was last asked
        self.query_order = 0  # the last question's order among the frames written ...
        self.query_s = 0.0  # ... and when it was asked
        self.answered_order = 0  # the highest question order known answered
        self._pings: dict[str, PingSent] = {}
        self._pong_rtt_s: dict[str, float] = {}
        self._ping_count = 0
        self._status_orders: deque[int] = deque(maxlen=MAX_PINGS)
        self.statuses_came = 0  # STATUS frames come so far
        self._statuses_at_pong: dict[str, int] = {}  # PING token -> statuses_came when its PONG came

    def fit_watchdog(self, watchdog_ms: int) -> None:
        """Beat at most every quarter of the board's watchdog (``watchdog_ms`` ms): with a lost answer asked again
        after a resend timeout, it trips only if several heartbeats in a row are lost."""
        self.heartbeat_s = min(self.heartbeat_max_s, watchdog_ms / 4000.0)

    def new_ping_token(self) -> str:
        """A fresh PING token (and room for it among the remembered ones)."""
        self._ping_count += 1
        if len(self._pings) >= MAX_PINGS:
            del self._pings[next(iter(self._pings))]  # its PONG was lost
        while len(self._pong_rtt_s) >= MAX_PINGS:
            del self._pong_rtt_s[next(iter(self._pong_rtt_s))]  # nobody asked for it
        while len(self._statuses_at_pong) >= MAX_PINGS:
            del self._statuses_at_pong[next(iter(self._statuses_at_pong))]  # nobody asked about it
        return str(self._ping_count)

    def asked(self, kind_is_status: bool, order: int, now_s: float) -> None:
        """A question (STATUS if ``kind_is_status``, else PING) was written as frame ``order`` at ``now_s``."""
        self.query_order = order
        self.query_s = now_s
        if kind_is_status:
            self.status_asked_s = now_s
            self._status_orders.append(order)

    def ping_sent(self, token: str, sent: PingSent) -> None:
        """PING ``token`` went out as ``sent`` says."""
        self._pings[token] = sent

    def pong(self, token: str, now_s: float) -> PingSent | None:
        """The PONG for ``token`` came at ``now_s``: the PING it answers (None for an unknown or stale token)."""
        sent = self._pings.pop(token, None)
        if sent is None:
            return None
        self.answered_order = max(self.answered_order, sent.order)
        self._pong_rtt_s[token] = now_s - sent.sent_s
        self._statuses_at_pong[token] = self.statuses_came
        return sent

    def take_pong_rtt_s(self, token: str) -> float | None:
        """The round trip in s of PING ``token`` once its PONG came (forgotten once taken), else None."""
        return self._pong_rtt_s.pop(token, None)

    def status_came_after_pong(self, token: str) -> bool:
        """True once a STATUS came after the PONG of PING ``token``: the board made it after reading that PING."""
        at = self._statuses_at_pong.get(token)
        return at is not None and self.statuses_came > at

    def forget_pong(self, token: str) -> None:
        """Drop what is kept about PING ``token``'s PONG (its asker has what it needed)."""
        self._statuses_at_pong.pop(token, None)
        self._pong_rtt_s.pop(token, None)

    def status_came(self, now_s: float) -> int | None:
        """A STATUS came at ``now_s``: the order of the oldest request still open it answers, if any."""
        self.status_s = now_s
        self.statuses_came += 1
        if not self._status_orders:
            return None
        order = self._status_orders.popleft()
        self.answered_order = max(self.answered_order, order)
        return order

    def answered_before(self, order: int) -> None:
        """Every question written before frame ``order`` counts as answered (or lost for good): the board has
        answered a SYNC written after them. A handshake calls this: the answers that came while it waited for the
        HELLO were dropped there, and a STATUS still counted open would be taken as answered by the next STATUS
        instead of the request that one answers, so that every later question looked unanswered and the
        heartbeats waited a resend timeout, longer than a board's watchdog."""
        while self._status_orders and self._status_orders[0] < order:
            self._status_orders.popleft()
        self.answered_order = max(self.answered_order, order - 1)

    def heartbeat_due_s(self, last_write_s: float, rto_s: float, measured_rto_s: float) -> float:
        """When the next heartbeat is due, in s (see the module docstring): a slow board reads the question still
        waiting in its input, which feeds its watchdog as well as a new one would."""
        if self.query_order > self.answered_order:
            return self.query_s + min(rto_s, max(self.heartbeat_s, measured_rto_s))
        return last_write_s + self.heartbeat_s

    def heartbeat_is_status(self, now_s: float, *, suspect_reset: bool) -> bool:
        """True when this heartbeat should be a STATUS (a reboot is suspected, or the last STATUS is older than
        ``status_every_s``); else a short PING, which survives a noisy line more often."""
        return suspect_reset or now_s - max(self.status_s, self.status_asked_s) >= self.status_every_s
