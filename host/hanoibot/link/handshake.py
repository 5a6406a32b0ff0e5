"""The handshake: SYNC until a HELLO answers it, then the board's HELLO taken and the unacked frames renumbered.

Every SYNC is the same frame (the board takes a repeated one as one), so a HELLO after several cannot be timed; a
PING beside each SYNC can (its PONG names it), so on a noisy line the resend timeout soon fits the board's round
trips instead of staying at its initial guess, and the questions after the handshake come as often as the board can
answer them. :func:`shake_hands` is given the parts it updates and, as :class:`HandshakeLink`, what only the
engine that holds the port does (read, write, raise).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import NoReturn, Protocol

from hanoifw import protocol

from ..errors import LinkError, LinkTimeout
from .board_reads import BoardReads
from .codes import Kind
from .flight import Lifetimes
from .heard import Heard
from .probe import PingSent, Questions
from .rtt import RttEstimator
from .sender import Sender
from .status import Hello, parse_hello
from .watch import BoardWatch

Frame = tuple[str, int, int, list[str]]


class HandshakeLink(Protocol):
    """What the handshake asks of the engine that holds the port."""

    def read_frames(self) -> list[Frame]:
        """One blocking read, as whole frames (the spoiled lines' heads in :meth:`spoiled_lines`)."""
        ...

    def spoiled_lines(self) -> Sequence[bytes]:
        """The first bytes of each line the last read dropped as damaged."""
        ...

    def damaged_lines(self) -> int:
        """Lines from the board dropped so far because they were damaged."""
        ...

    def send_ping(self) -> str:
        """Send a PING; returns its token."""
        ...

    def board_reset(self, new_boot_id: str, cause: str) -> NoReturn:
        """Record and raise BoardReset."""
        ...

    def traced(self, err: LinkError) -> LinkError:
        """``err`` with the last frames on the wire attached."""
        ...


class HandshakeParts(Protocol):
    """The parts of the link the handshake updates."""

    heard: Heard
    sender: Sender
    rtt: RttEstimator
    questions: Questions
    reads: BoardReads
    watch: BoardWatch


def shake_hands(
    parts: HandshakeParts,
    link: HandshakeLink,
    *,
    url: str,
    handshake_s: float,
    rng: random.Random,
    now_s: Callable[[], float],
    pin_reads: Callable[[PingSent, list[str]], None],
) -> Hello:
    """SYNC until a HELLO answers it within ``handshake_s`` (s of ``now_s``), else LinkTimeout naming ``url``; take
    the HELLO (a changed boot id is a BoardReset) and renumber the unacked frames. Returns the HELLO."""
    sender, rtt, heard = parts.sender, parts.rtt, parts.heard
    token = f"{rng.getrandbits(32):08x}"
    parts.reads.forget()
    sync_seq = sender.window.next_seq
    sync = protocol.encode(Kind.SYNC, sync_seq, heard.rx_ack(), [token])
    start_s = now_s()
    first_sync_order = sender.next_order
    hello: Hello | None = None
    attempts = 0
    sent_s = start_s
    while hello is None:
        asked_s = now_s()
        attempts += 1
        if asked_s - start_s >= handshake_s:
            raise link.traced(
                LinkTimeout(f"no HELLO from {url!r} within {handshake_s:g} s: expected a hanoibot board there")
            )
        sender.flight.expire(asked_s, Lifetimes(rtt.rto_s))
        sent_s = asked_s
        sender.write(sync)
        link.send_ping()
        damaged = link.damaged_lines()
        while hello is None and now_s() - asked_s < rtt.rto_s:
            hello = _read_hello(parts, link, sync_seq, now_s, pin_reads)
            if hello is None and any(Kind.HELLO.starts(line) for line in link.spoiled_lines()):
                break  # the answer came spoiled (a long frame, on a noisy line): ask again at once
        if hello is None and link.damaged_lines() == damaged and heard.heard_s < asked_s:
            rtt.back_off()  # silence: maybe a slow board; any line from it shows it answers in time
    if attempts == 1 or rtt.srtt_s is None:
        # One SYNC, one HELLO: an unambiguous round trip. After several, and no PONG to time (a noisy line), the
        # time since the last SYNC is a lower bound of the answered one's: the timeout it gives (three times it)
        # beats the initial guess, which let only five questions into the silence bound.
        rtt.sample(now_s() - sent_s)
    _adopt_hello(parts, link, hello, now_s())
    sender.flight.read_up_to(first_sync_order, now_s())  # it read a SYNC: all before the first
    parts.questions.answered_before(first_sync_order)  # their answers, if any came, were dropped above
    sender.restart(sync_seq + 1, ack=heard.rx_ack())  # unacked frames renumbered, sent as room allows
    parts.watch.acked_seq = sync_seq
    return hello


def _read_hello(
    parts: HandshakeParts,
    link: HandshakeLink,
    sync_seq: int,
    now_s: Callable[[], float],
    pin_reads: Callable[[PingSent, list[str]], None],
) -> Hello | None:
    """Read once; the HELLO that acks ``sync_seq``, if it came. PONGs are taken (the one after the HELLO, read with
    it, pins the board's byte count: the first frames after the handshake are then timed by it); other frames are
    dropped here."""
    hello: Hello | None = None
    for kind, seq, ack, fields in link.read_frames():
        parts.heard.board_seq = seq
        parts.heard.heard_s = now_s()
        if kind == Kind.HELLO and ack == sync_seq and hello is None:
            hello = parse_hello(fields)
        elif kind == Kind.PONG and fields:
            pong_s = now_s()
            sent = parts.questions.pong(fields[0], pong_s)
            if sent is not None:
                parts.rtt.sample(pong_s - sent.sent_s)
                pin_reads(sent, fields)
    return hello


def _adopt_hello(parts: HandshakeParts, link: HandshakeLink, hello: Hello, now_s: float) -> None:
    """Take the board's HELLO; a changed boot id (after a reconnect) is a BoardReset."""
    heard, watch = parts.heard, parts.watch
    if watch.boot_id and hello.boot_id != watch.boot_id:
        link.board_reset(hello.boot_id, hello.reset_cause)
    heard.hello = hello
    watch.boot_id = hello.boot_id
    heard.last_done_cmd = max(heard.last_done_cmd, hello.last_done_cmd)
    heard.last_sent_cmd = max(heard.last_sent_cmd, hello.last_queued_cmd)
    parts.questions.fit_watchdog(hello.watchdog_ms)
    heard.last_rx_s = now_s
