"""Frames from the board, acted on: acks, DONEs, PONGs, STATUS and ERROR frames, and signs of a reboot or a takeover.

:class:`FrameDispatch` is given the parts it updates (what was heard, the window and flight of
:class:`~hanoibot.link.sender.Sender`, the questions asked, the resend timeout, the board's byte count, the reboot
watch, the e-stop relay) and, as :class:`LinkActions`, the few things only the engine does (send a PING, ask for a
STATUS, raise a reset or a takeover).

Each ACK and PONG says how far the board has read (:mod:`hanoibot.link.board_reads`) and which frames it keeps
ahead of a lost one: a frame whose last copy the board read, yet neither took nor keeps, is resent alone and at
once (selective repeat), and the bytes it read leave flight. Lost DONEs are recovered from later DONEs (they are
cumulative), PONGs and STATUS frames, which carry ``last_done_cmd``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn, Protocol

from hanoifw import protocol

from ..errors import BoardError
from .board_reads import BoardReads
from .codes import QUIET_ERRORS, ErrorCode, Kind
from .control import ControlServer
from .estop_relay import EstopRelay
from .heard import Heard
from .probe import PingSent, Questions
from .rtt import RttEstimator
from .sender import Sender
from .status import Mode, Status, for_people, parse_hello, parse_status
from .watch import BoardWatch
from .window import Pending

#: A gap of fewer board seqs than this in a frame that acks our frames is frames lost on the line, not a reboot (a
#: new boot counts from 0 and acks nothing of ours). What they said comes again: DONE is cumulative, each ACK and
#: PONG says how far the board read, and the periodic STATUS carries the rest. No STATUS is asked for them: on a
#: noisy line that long answer would fill the board's side of the line (a PING asks what is done: the PONG says).
MAX_BOARD_FRAMES_LOST = 32


def stopped_by_estop_request(cmd_id: int) -> str:
    """What a session says when the board stopped command ``cmd_id`` for a `hanoibot estop` it served."""
    return f"`hanoibot estop` from another process stopped the arm with command {cmd_id} pending"


class LinkActions(Protocol):
    """What the frame dispatch asks of the engine that holds the port."""

    def send_ping(self) -> str:
        """Send a PING; returns its token."""
        ...

    def ask_if_reset(self) -> None:
        """A frame hints at a reboot or a lost answer: ask STATUS."""
        ...

    def board_reset(self, new_boot_id: str, cause: str) -> NoReturn:
        """Record and raise BoardReset."""
        ...

    def session_taken_over(self) -> NoReturn:
        """Record and raise SessionTakenOver."""
        ...

    def control(self) -> ControlServer | None:
        """The port's control socket (``hanoibot estop``), if the port's lock is held."""
        ...


class FrameDispatch:
    """Acts on each valid frame from the board (times in s of the session clock ``now_s``)."""

    def __init__(
        self,
        *,
        heard: Heard,
        sender: Sender,
        rtt: RttEstimator,
        questions: Questions,
        reads: BoardReads,
        watch: BoardWatch,
        estop_relay: EstopRelay,
        now_s: Callable[[], float],
        link: LinkActions,
    ) -> None:
        self.heard = heard
        self.sender = sender
        self.rtt = rtt
        self.questions = questions
        self.reads = reads
        self.watch = watch
        self.estop_relay = estop_relay
        self.now_s = now_s
        self.link = link

    def on_frame(self, kind: str, seq: int, ack: int, fields: list[str]) -> None:
        """Act on one valid frame from the board."""
        heard = self.heard
        now_s = self.now_s()
        heard.last_rx_s = now_s
        if heard.board_seq is not None:
            gap = (seq - heard.board_seq - 1) % protocol.SEQ_MOD
            if gap and not (gap < MAX_BOARD_FRAMES_LOST and self.is_ours(ack)):
                self.link.ask_if_reset()  # not just a few frames lost: did it reboot? STATUS tells its boot
            elif gap and heard.unfinished() and not len(self.sender.window):
                self.link.send_ping()  # a DONE may be among those lost, and no later one is coming: the PONG says
        heard.board_seq = seq
        if kind == Kind.HELLO:
            if fields[2:3] != [self.watch.boot_id]:
                hello = parse_hello(fields)
                self.link.board_reset(hello.boot_id, hello.reset_cause)
            if not self.is_ours(ack):
                self.link.session_taken_over()  # the board answered someone else's SYNC
            return
        if kind == Kind.ERROR and fields[:1] == [ErrorCode.NO_SESSION]:
            self.link.ask_if_reset()  # the board forgot our session: did it reboot?
            return
        if not self.is_ours(ack):
            if kind != Kind.STATUS:
                self.link.ask_if_reset()  # another boot or another host's session: the STATUS's boot id tells which
                return
            status = parse_status(fields)
            if status.boot_id != self.watch.boot_id:
                self.link.board_reset(status.boot_id, "unknown")
            self.link.session_taken_over()
        self.watch.acked_seq = ack
        acked = self.take_ack(ack, now_s)
        if acked and kind not in (Kind.ACK, Kind.PONG):
            self._ask_how_far_read(acked)
        if kind == Kind.ACK:
            self._on_reads(fields, ack, now_s)
        elif kind == Kind.DONE and fields:
            heard.done_up_to(protocol.parse_uint(fields[0], protocol.MAX_CMD_ID))
        elif kind == Kind.STATUS:
            self._on_status(parse_status(fields), now_s)
        elif kind == Kind.PONG and fields:
            self._on_pong(fields, ack, now_s)
        elif kind == Kind.ERROR:
            self._on_error(fields)

    def is_ours(self, ack: int) -> bool:
        """True if ``ack`` counts only frames this session sent (see :meth:`BoardWatch.is_ours`)."""
        return self.watch.is_ours(ack, self.sender.window.next_seq)

    def take_ack(self, ack: int, now_s: float) -> list[Pending]:
        """Drop what a cumulative ack covers; the newest frame it covers, if sent once, is an RTT sample. Returns
        the frames it acked."""
        acked = self.sender.take_ack(ack, now_s)
        if acked:
            self.heard.refused.difference_update(entry.cmd_id for entry in acked)
            self.rtt.clear_back_off()
            self.heard.progress_s = now_s
        if acked and acked[-1].transmissions == 1:
            self.rtt.sample(now_s - acked[-1].sent_s)  # sent once: a clean round trip
        return acked

    def pin_reads(self, sent: PingSent, fields: list[str]) -> None:
        """Pin the board's byte count to ours with the PONG (``fields``) of the PING ``sent``."""
        rx_count = protocol.parse_uint(fields[1], protocol.SEQ_MOD - 1) if len(fields) > 1 else -1
        if rx_count >= 0:
            self.reads.pin(sent.end_offset, rx_count)

    def _ask_how_far_read(self, acked: list[Pending]) -> None:
        """A frame without a byte count (a DONE, a STATUS) acked frames, the newest of them sent more than once: its
        last copy still counts in flight, since the ack may come from an earlier copy. If frames wait for that room,
        ask now (the PONG's count says whether the board read it) instead of waiting for a later ACK."""
        newest = acked[-1]
        if newest.transmissions > 1 and self.sender.has_waiting and self.questions.query_order < newest.sent_order:
            self.link.send_ping()

    def _on_pong(self, fields: list[str], ack: int, now_s: float) -> None:
        """A PONG gives a clean RTT sample, pins how far the board has read (its PING was written once), and with
        that shows which frames were lost (see :meth:`_on_reads`)."""
        sent = self.questions.pong(fields[0], now_s)
        if sent is None:
            return
        self.sender.flight.read_up_to(sent.order, now_s)
        self.rtt.sample(now_s - sent.sent_s)
        self.pin_reads(sent, fields)
        if len(fields) > 2:
            self.heard.done_up_to(protocol.parse_uint(fields[2], protocol.MAX_CMD_ID))
        self._on_reads(fields[1:2] + fields[3:4], ack, now_s)

    def _on_reads(self, fields: list[str], ack: int, now_s: float) -> None:
        """An ACK or PONG said how far the board had read (``fields``: rx_count and, if any frame is kept, held)
        and, in ``ack``, what it took: the bytes before that leave flight, and every unacked frame whose last copy
        it had read, yet neither took nor keeps, was lost and goes again at once (selective repeat: a loss costs
        about one frame's time on the line instead of a timeout)."""
        rx_count = protocol.parse_uint(fields[0], protocol.SEQ_MOD - 1) if fields else -1
        mask = protocol.parse_uint(fields[1], protocol.SEQ_MOD - 1) if len(fields) > 1 else 0
        read_to = self.reads.host_offset(rx_count, self.sender.bytes_written) if rx_count >= 0 and mask >= 0 else None
        if read_to is None:
            return
        self.sender.flight.read_through(read_to, now_s)
        held = {(ack + 2 + bit) % protocol.SEQ_MOD for bit in range(mask.bit_length()) if mask >> bit & 1}
        lost = [
            entry
            for entry in self.sender.window.pending()
            if entry.transmissions
            and entry.end_offset <= read_to
            and entry.seq not in held
            and entry.cmd_id not in self.heard.refused
        ]
        if lost:
            self.sender.resend(lost)

    def _on_status(self, status: Status, now_s: float) -> None:
        """Keep a STATUS; a new boot id is a reset."""
        if status.boot_id != self.watch.boot_id:
            self.link.board_reset(status.boot_id, "unknown")
        order = self.questions.status_came(now_s)  # it answers the oldest request still open (or a later one)
        if order is not None:
            self.sender.flight.read_up_to(order, now_s)
        heard = self.heard
        self.watch.suspect_reset = False
        heard.last_status = status
        heard.statuses += 1
        heard.done_up_to(status.last_done_cmd)
        self.estop_relay.status_came(self.link.control(), latched=status.mode is Mode.ESTOP, statuses=heard.statuses)

    def _on_error(self, fields: list[str]) -> None:
        """Queue a board ERROR to be raised at the end of this service round (flow-control codes excepted)."""
        code = fields[0] if fields else "?"
        cmd_id = protocol.parse_uint(fields[1], protocol.MAX_CMD_ID) if len(fields) > 1 else -1
        if code in QUIET_ERRORS:
            self.heard.refused.add(cmd_id)  # not lost: sent again on the resend timeout, when the queue has room
            return
        text = for_people(",".join(fields[2:]))
        where = f" for command {cmd_id}" if cmd_id > 0 else ""
        message = f"board refused{where}: {code}: {text}"
        if code == ErrorCode.ESTOPPED and self.estop_relay.requests:  # the run latched it for `hanoibot estop`
            message = stopped_by_estop_request(cmd_id)
        self.heard.errors.append(BoardError(message, code=code, cmd_id=cmd_id))
