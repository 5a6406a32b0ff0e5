"""What the link's timers do when they fire: resend, probe an overdue ack, ask about a reboot, feed the watchdog,
and give up after the silence bound.

:class:`TimerLoop` is given the parts it reads and updates (what was heard, the sender, the resend timeout, the
questions asked, the reboot watch) and, as :class:`TimerActions`, the sends only the engine makes. When each timer
fires is worked out by the pure functions of :mod:`hanoibot.link.timers`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol

from ..errors import LinkError, LinkLost
from .codes import Kind
from .flight import Lifetimes
from .heard import Heard
from .probe import Questions
from .rtt import RttEstimator
from .sender import QUERY_BYTES, Sender
from .timers import Deadlines, resend_timing
from .watch import BoardWatch

#: Questions (PING, STATUS) a silent board is asked, each a resend timeout after the last, before LinkLost: on a
#: noisy line answers are lost, so a board that answers slowly (a busy chip, a loaded machine, where the measured
#: resend timeout grows towards half the silence bound) is given that many chances, not only the two or three that
#: fit in the silence bound (then LinkLost under load at 1 % bit flips).
QUESTIONS_BEFORE_LOST = 6


class TimerActions(Protocol):
    """What the timers ask of the engine that holds the port."""

    def send_ping(self) -> str:
        """Send a PING; returns its token."""
        ...

    def send_immediate(self, kind: str, fields: Sequence[str | int] = (), *, urgent: bool = False) -> bool:
        """Send a frame the board acts on at once; False if there was no room in flight."""
        ...

    def traced(self, err: LinkError) -> LinkError:
        """``err`` with the last frames on the wire attached."""
        ...


class TimerLoop:
    """The link's timers, in s of the session clock ``now_s``; ``silence_s`` without a valid frame is LinkLost
    (longer while the measured resend timeout is long, see :meth:`silence_bound_s`); ``url`` names the port."""

    def __init__(
        self,
        *,
        heard: Heard,
        sender: Sender,
        rtt: RttEstimator,
        questions: Questions,
        watch: BoardWatch,
        now_s: Callable[[], float],
        link: TimerActions,
        silence_s: float,
        url: str,
    ) -> None:
        self.heard = heard
        self.sender = sender
        self.rtt = rtt
        self.questions = questions
        self.watch = watch
        self.now_s = now_s
        self.link = link
        self.silence_s = silence_s
        self.url = url
        self._probe_key = (-1, 0)  # (seq, transmissions) of the frame last probed with a PING
        self._probe_sent_s = 0.0

    def deadlines(self) -> Deadlines:
        """When each timer fires, in s of the session clock. A frame that needs room in flight is not due before
        there is room (answers come in reads, or the oldest frame in flight expires, see :mod:`hanoibot.link.
        flight`)."""
        never_s = math.inf
        rto_s = self.rtt.rto_s
        lives = self.lifetimes()
        query_room_s = self.sender.room_s(QUERY_BYTES, lives)
        retransmit_s = probe_s = never_s
        oldest = self.sender.window.oldest
        if oldest is not None and oldest.transmissions and not self.sender.is_waiting(oldest):
            # Timed from when the frame reached the board's end of the line (on a slow line it waits behind the
            # bytes written before it: it is not late for that), or from the last ack that made progress if that
            # is later (RFC 6298, 5.3): a frame behind others waits for the board to read those first.
            probed = (oldest.seq, oldest.transmissions) == self._probe_key
            retransmit_s, probe_s = resend_timing(
                since_s=max(oldest.arrives_s, self.heard.progress_s),
                rto_s=rto_s,
                probe_after_s=self.rtt.probe_s,
                probed_s=self._probe_sent_s if probed else None,
                query_room_s=query_room_s,
            )
        questions = self.questions
        heartbeat_s = questions.heartbeat_due_s(self.sender.last_write_s, rto_s, self.rtt.measured_rto_s)
        reset_check_s = questions.status_asked_s + self.reask_s() if self.watch.suspect_reset else never_s
        return Deadlines(
            retransmit_s=retransmit_s,
            probe_s=probe_s,
            heartbeat_s=max(heartbeat_s, query_room_s),
            silence_s=self.heard.last_rx_s + self.silence_bound_s(),
            flush_s=self.sender.flush_due_s(lives),
            reset_check_s=reset_check_s,
        )

    def lifetimes(self) -> Lifetimes:
        """How long unproved frames count in flight (see :class:`~hanoibot.link.flight.Lifetimes`): a question
        until its answer is overdue (the probe time, twice the shortest recent round trip; at most the resend
        timeout), so that the next can be asked; a reliable frame a resend timeout, once the board was heard after
        it was written (every answer since was spoiled)."""
        probe_s = self.rtt.probe_s
        rto_s = self.rtt.rto_s
        return Lifetimes(min(rto_s, probe_s) if probe_s > 0 else rto_s, rto_s, self.heard.heard_s)

    def run(self) -> None:
        """Retransmit on timeout, probe an overdue ack, send a heartbeat when idle, and give up after the
        silence bound."""
        sender, link = self.sender, self.link
        now_s = self.now_s()
        sender.flight.expire(now_s, self.lifetimes())
        due = self.deadlines()
        oldest = sender.window.oldest
        if oldest is not None and now_s >= due.retransmit_s:
            self.rtt.back_off()
            self.heard.refused.clear()
            sender.resend_all()
        else:
            sender.flush()  # what waited for room (after a resend timeout, the window is resent from its start)
        oldest_unread = sender.flight.oldest_order
        if (
            oldest is not None
            and not oldest.transmissions
            and oldest_unread is not None
            and self.questions.query_order < oldest_unread
        ):
            # A frame waits for room, every frame sent is acked (no ACK is coming that says how far the board read:
            # the one that would have was lost, and a DONE's ack proves no resent copy read), and no question asked
            # since the oldest frame counted in flight: a PONG tells, a round trip from now, not at its expiry.
            link.send_ping()
        if oldest is not None and now_s >= due.probe_s and now_s < due.retransmit_s:
            # Not acked as soon as expected: a PING now tells at once whether it was lost (see FrameDispatch).
            self._probe_key = (oldest.seq, oldest.transmissions)
            self._probe_sent_s = now_s
            link.send_ping()
        if now_s >= due.reset_check_s:
            # A sign of a reboot and no STATUS yet: ask again, room or not (a window of frames the new boot will
            # never ack must not keep the question from being asked).
            link.send_immediate(Kind.STATUS, urgent=True)
            # And a PING beside it: a STATUS is long and often spoiled on a noisy line (at 1 % flips and drops one
            # in eight comes whole), where a short PONG soon shows the board alive (the silence bound).
            link.send_ping()
        if now_s >= due.heartbeat_s:
            self._heartbeat(now_s)
        if now_s >= due.silence_s:
            raise link.traced(
                LinkLost(
                    f"no valid frame from {self.url!r} for {now_s - self.heard.last_rx_s:.2f} s"
                    f" (bound {self.silence_bound_s():.3g} s): check the cable and the board's power"
                )
            )

    def _heartbeat(self, now_s: float) -> None:
        """Keep the watchdog fed: a short PING, or a STATUS (see :meth:`Questions.heartbeat_is_status`)."""
        if self.questions.heartbeat_is_status(now_s, suspect_reset=self.watch.suspect_reset):
            self.link.send_immediate(Kind.STATUS)
        else:
            self.link.send_ping()

    def silence_bound_s(self) -> float:
        """How long the board may stay silent before LinkLost, in s: ``silence_s``, or longer while the measured
        resend timeout is long (:data:`QUESTIONS_BEFORE_LOST` questions asked a measured timeout apart)."""
        return max(self.silence_s, QUESTIONS_BEFORE_LOST * self.rtt.measured_rto_s)

    def reask_s(self) -> float:
        """How long after asking STATUS about a reboot to ask again, in s: once its answer is overdue (twice the
        smoothed round trip, not backed off: the frames lost were not these), at least the shortest timeout."""
        return max(self.rtt.min_rto_s, 2.0 * (self.rtt.srtt_s or 0.0))
