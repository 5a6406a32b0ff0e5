"""The link engine a :class:`~hanoibot.link.session.Session` holds: port, handshake, frames in, timers, frames out.

:class:`LinkCore` owns the port and composes the parts of the link, each with one job:
:class:`~hanoibot.link.sender.Sender` (the window of reliable frames and the bytes in flight),
:class:`~hanoibot.link.probe.Questions` (PINGs, STATUS requests, heartbeats), :mod:`hanoibot.link.timers` (when
each timer fires), :class:`~hanoibot.link.watch.BoardWatch` (reboot and takeover), :class:`~hanoibot.link.
estop_relay.EstopRelay` (``hanoibot estop`` from another process), :class:`~hanoibot.link.rtt.RttEstimator` (the
resend timeout) and :class:`~hanoibot.link.trace.FrameTrace` (the last frames, attached to the errors it raises).

Its public surface is small: :meth:`~LinkCore.open`, :meth:`~LinkCore.send_reliable` (sequenced, acked, resent),
:meth:`~LinkCore.send_immediate` (ESTOP, STATUS, PING: acted on at once, never queued), :meth:`~LinkCore.service`
(read, act, run timers), :meth:`~LinkCore.request` (the one send-wait-resend loop) and the counters.

Each ACK and PONG says how far the board has read (:mod:`hanoibot.link.board_reads`) and which frames it keeps
ahead of a lost one: a frame whose last copy the board read, yet neither took nor keeps, is resent alone and at
once (selective repeat), and the bytes it read leave flight. A frame whose ack is overdue (twice the recent minimum
round trip) is asked about with a PING, and so is a spoiled answer the host was waiting for; the adaptive RTO is
the fallback. Lost DONEs are recovered from later DONEs (they are cumulative), PONGs and STATUS frames, which carry
``last_done_cmd``. When idle, a heartbeat keeps the firmware watchdog fed and shows a reboot quickly. A slow board
is never flooded: every frame but ESTOP waits until the bytes in flight leave room for it. Every blocking read is
bounded by the next timer, and on a simulator it advances the simulator's virtual clock.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Sequence

import serial
from hanoifw import protocol
from hanoifw.rxframe import FrameReader

from ..clock import Clock, WallClock
from ..errors import BadCommand, BoardError, LinkError, LinkLost, LinkTimeout, PortError
from .board_port import BoardPort, board_port_of
from .board_reads import BoardReads
from .estop_relay import EstopRelay
from .flight import Lifetimes
from .port import READ_QUANTUM_S, close_quietly, open_port, read_available, reopen_port
from .port_lock import PortLock
from .probe import PingSent, Questions
from .rtt import RttEstimator
from .sender import QUERY_BYTES, Sender
from .status import Hello, Mode, Status, for_people, parse_hello, parse_status
from .timers import Deadlines, read_wait_s, resend_timing
from .trace import FrameTrace
from .watch import BoardWatch
from .window import Pending

#: Board ERROR codes that are flow control, not failures.
_QUIET_ERRORS = (protocol.E_QUEUE_FULL,)
#: Questions (PING, STATUS) a silent board is asked, each a resend timeout after the last, before LinkLost: on a
#: noisy line answers are lost, so a board that answers slowly (a busy chip, a loaded machine, where the measured
#: resend timeout grows towards half the silence bound) is given that many chances, not only the two or three that
#: fit in the silence bound (then LinkLost under load at 1 % bit flips).
QUESTIONS_BEFORE_LOST = 6
#: A gap of fewer board seqs than this in a frame that acks our frames is frames lost on the line, not a reboot (a
#: new boot counts from 0 and acks nothing of ours). What they said comes again: DONE is cumulative, each ACK and
#: PONG says how far the board read, and the periodic STATUS carries the rest. No STATUS is asked for them: on a
#: noisy line that long answer would fill the board's side of the line (a PING asks what is done: the PONG says).
MAX_BOARD_FRAMES_LOST = 32


def stopped_by_estop_request(cmd_id: int) -> str:
    """What a session says when the board stopped command ``cmd_id`` for a `hanoibot estop` it served."""
    return f"`hanoibot estop` from another process stopped the arm with command {cmd_id} pending"


class LinkCore:
    """Port, protocol state and service loop of one host session (the board commands are on Session).

    Times in s of ``clock`` (a simulator port's virtual clock replaces it): ``silence_s`` without a valid frame is
    LinkLost; ``handshake_s`` bounds SYNC/HELLO; ``reconnect_s`` bounds reopening a vanished port (0 = PortError
    at once); ``heartbeat_s`` is the longest gap between frames to the board (also capped at a quarter of the
    board's watchdog); ``status_every_s`` is how often a heartbeat is a STATUS rather than a PING.
    """

    def __init__(
        self,
        url: str,
        *,
        clock: Clock | None = None,
        window: int = 8,
        silence_s: float = 1.0,
        handshake_s: float = 5.0,
        reconnect_s: float = 5.0,
        heartbeat_s: float = 0.075,
        status_every_s: float = 0.25,
        baudrate: int = 115200,
    ) -> None:
        if window < 1:
            raise BadCommand(f"window {window} is invalid: expected at least 1 frame")
        self.url = url
        self.clock: Clock = clock if clock is not None else WallClock()
        self.silence_s = silence_s
        self.handshake_s = handshake_s
        self.reconnect_s = reconnect_s
        self.baudrate = baudrate
        # A serial line has no congestion to back off from: back-off stops well below the silence bound. A slow
        # board's measured round trips may call for more (up to half the bound): it is never asked faster than it
        # answers, or its input fills with questions and every answer comes later still.
        self.rtt = RttEstimator(max_rto_s=min(1.0, silence_s / 5), max_measured_rto_s=silence_s / 2)
        self.reconnects = 0
        self.hello: Hello | None = None
        self.last_done_cmd = 0
        self.last_sent_cmd = 0
        self.last_status: Status | None = None
        self.statuses = 0
        #: The last frames written and read (see :mod:`hanoibot.link.trace`).
        self.trace = FrameTrace()
        self.sender = Sender(self._write_port, self._now_s, window=window)
        self.reads = BoardReads()
        self.questions = Questions(heartbeat_s=heartbeat_s, status_every_s=status_every_s)
        self.watch = BoardWatch(url)
        self.estop_relay = EstopRelay()
        self._rng: random.Random = random.SystemRandom()
        self._port: serial.SerialBase | None = None
        self._board_port: BoardPort | None = None
        self._read_timeout_s: float | None = None
        self._reader = FrameReader()
        self._board_seq: int | None = None
        self._open_cmds: deque[int] = deque()
        self._errors: list[BoardError] = []
        self._refused: set[int] = set()  # cmd ids of MOVEs the board refused for a full queue (resent on timeout)
        self._handshaking = False
        self._probe_key = (-1, 0)
        self._probe_sent_s = 0.0
        self._last_rx_s = 0.0
        self._progress_s = 0.0  # when an ack last covered a new frame
        self._question_arrives_s = 0.0  # when the last PING or STATUS reaches the board's end of the line
        self._heard_s = -math.inf  # when the board last sent a line, valid or spoiled
        self._lock: PortLock | None = None

    # --- what the link says --------------------------------------------------------------------------
    @property
    def port(self) -> serial.SerialBase | None:
        """The pyserial port object; None before the first open."""
        return self._port

    @property
    def board_port(self) -> BoardPort | None:
        """The port's typed face (its clock, its simulator if any); None before the first open."""
        return self._board_port

    @property
    def is_open(self) -> bool:
        """True while the port is open."""
        return self._port is not None and bool(self._port.is_open)

    @property
    def boot_id(self) -> str:
        """The board's boot id ("" before the first handshake)."""
        return self.watch.boot_id

    @property
    def retransmits(self) -> int:
        """Reliable frames sent again so far."""
        return self.sender.retransmits

    @property
    def estop_requests(self) -> int:
        """E-stop requests other processes sent to this port's control socket (see :mod:`hanoibot.link.control`)."""
        return self.estop_relay.requests

    @property
    def window_is_full(self) -> bool:
        """True while no more reliable frames may be sent before an ack."""
        return self.sender.window.is_full

    @property
    def window_size(self) -> int:
        """Reliable frames that may be unacked at once."""
        return self.sender.window.size

    @property
    def next_seq(self) -> int:
        """The seq the next reliable frame will get (unsequenced frames carry it too)."""
        return self.sender.window.next_seq

    def resend_timeout_s(self) -> float:
        """How long to wait for an answer before sending again, in s: the one retransmission decision (the
        adaptive RTO of :mod:`hanoibot.link.rtt`, doubled by back-off). Handshake, window and requests use it."""
        return self.rtt.rto_s

    # --- opening and closing -------------------------------------------------------------------------
    def open(self) -> None:
        """Take the port's lock (PortBusy names the process holding it), open the port, discard noise and shake
        hands; ProtocolMismatch or LinkTimeout if that fails (the port and its lock are let go then)."""
        if self._lock is None:
            self._lock = PortLock(self.url)
        self._lock.acquire()
        self.watch.taken_over_error = None
        try:
            self._open_port()
            self._handshake()
        except BaseException:
            self.close()
            raise

    def restart(self) -> None:
        """After :class:`BoardReset`: forget the old boot's frames and commands and shake hands again."""
        self.watch.reset_error = None
        self.sender.clear()
        self._open_cmds.clear()
        self.watch.boot_id = ""
        self._handshake()

    def close(self) -> None:
        """Close the port (the board keeps running; its watchdog holds the arm if it was moving). The port
        object is kept, so :meth:`open` reopens the same device (a sim:// port keeps its board). The port's lock
        is let go."""
        close_quietly(self._port)
        if self._lock is not None:
            self._lock.release()

    def reconnect(self) -> None:
        """Reopen the port within ``reconnect_s`` and shake hands again; unacked frames are resent if the
        board kept its boot id (command ids keep each MOVE at most once), else BoardReset. The lock stays held."""
        close_quietly(self._port)
        self.reconnects += 1
        deadline_s = self.clock.now_s() + self.reconnect_s
        while True:
            try:
                self._open_port()
                break
            except PortError as err:
                if self.clock.now_s() >= deadline_s:
                    raise PortError(
                        f"port {self.url!r} vanished and did not come back within {self.reconnect_s:g} s: {err}"
                    ) from err
                self.clock.sleep(0.1)
        self._handshake()

    def _open_port(self) -> None:
        """Open the port, adopt its face (a simulator's clock and seed), and drop whatever is waiting in it."""
        port = self._port
        if port is None:
            port = open_port(self.url, baudrate=self.baudrate)
            self._adopt_board_port(board_port_of(port))
        elif not port.is_open:
            reopen_port(port, self.url)
        self._port = port
        self._reader = FrameReader()
        self.trace.clear_partial()
        self._board_seq = None
        self._read_timeout_s = port.timeout
        try:
            port.reset_input_buffer()
        except (serial.SerialException, OSError) as err:
            raise PortError(f"cannot use port {self.url!r}: {err}") from err

    def _adopt_board_port(self, face: BoardPort) -> None:
        """Read the port's clock if it has one, draw the session's random numbers from its simulator's seed (a
        seeded simulator replays exactly), and time the line at its byte rate."""
        self._board_port = face
        if face.clock is not None:
            self.clock = face.clock
        simulator = face.simulator
        if simulator is not None and simulator.seed is not None:
            self._rng = random.Random(f"{simulator.seed}:link")
        self.sender.line_byte_s = face.line_byte_s
        self.sender.window.next_seq = self._rng.randrange(protocol.SEQ_MOD)

    def _handshake(self) -> None:
        """SYNC until a HELLO answers it; check protocol and boot id; renumber unacked frames.

        Every SYNC is the same frame (the board takes a repeated one as one), so a HELLO after several cannot be
        timed; a PING beside each SYNC can (its PONG names it), so on a noisy line the resend timeout soon fits
        the board's round trips instead of staying at its initial guess, and the questions after the handshake
        come as often as the board can answer them."""
        token = f"{self._rng.getrandbits(32):08x}"
        self.reads.forget()
        sync_seq = self.sender.window.next_seq
        sync = protocol.encode(protocol.SYNC, sync_seq, self._rx_ack(), [token])
        start_s = self.clock.now_s()
        first_sync_order = self.sender.next_order
        hello: Hello | None = None
        attempts = 0
        sent_s = start_s
        # No timer runs while handshaking, so reads must block (and let sim:// time pass) even when a timer of
        # the session being reopened is overdue; otherwise a lost HELLO meant a busy loop, endless on sim://.
        self._handshaking = True
        try:
            while hello is None:
                now_s = self.clock.now_s()
                attempts += 1
                if now_s - start_s >= self.handshake_s:
                    raise self._traced(
                        LinkTimeout(
                            f"no HELLO from {self.url!r} within {self.handshake_s:g} s: expected a hanoibot board there"
                        )
                    )
                self.sender.flight.expire(now_s, Lifetimes(self.resend_timeout_s()))
                sent_s = now_s
                self._transmit(sync)
                self.send_ping()
                damaged = self._damaged_lines()
                while hello is None and self.clock.now_s() - now_s < self.resend_timeout_s():
                    hello = self._read_hello(sync_seq)
                    if hello is None and any(line.startswith(b"HELLO,") for line in self._reader.spoiled):
                        break  # the answer came spoiled (a long frame, on a noisy line): ask again at once
                if hello is None and self._damaged_lines() == damaged and self._heard_s < now_s:
                    self.rtt.back_off()  # silence: maybe a slow board; any line from it shows it answers in time
        finally:
            self._handshaking = False
        if attempts == 1 or self.rtt.srtt_s is None:
            # One SYNC, one HELLO: an unambiguous round trip. After several, and no PONG to time (a noisy line),
            # the time since the last SYNC is a lower bound of the answered one's: the timeout it gives (three
            # times it) beats the initial guess, which let only five questions into the silence bound.
            self.rtt.sample(self.clock.now_s() - sent_s)
        self._adopt_hello(hello)
        self.sender.flight.read_up_to(first_sync_order, self.clock.now_s())  # it read a SYNC: all before the first
        self.questions.answered_before(first_sync_order)  # their answers, if any came, were dropped above
        self.sender.restart(sync_seq + 1, ack=self._rx_ack())  # unacked frames renumbered, sent as room allows
        self.watch.acked_seq = sync_seq

    def _read_hello(self, sync_seq: int) -> Hello | None:
        """Read once; the HELLO that acks ``sync_seq``, if it came. PONGs are taken (the one after the HELLO, read
        with it, pins the board's byte count: the first frames after the handshake are then timed by it); other
        frames are dropped here."""
        hello: Hello | None = None
        for kind, seq, ack, fields in self._reader.feed(self._read(wait=True)):
            self._board_seq = seq
            self._heard_s = self.clock.now_s()
            if kind == protocol.HELLO and ack == sync_seq and hello is None:
                hello = parse_hello(fields)
            elif kind == protocol.PONG and fields:
                now_s = self.clock.now_s()
                sent = self.questions.pong(fields[0], now_s)
                if sent is not None:
                    self.rtt.sample(now_s - sent.sent_s)
                    self._pin_reads(sent, fields)
        return hello

    def _adopt_hello(self, hello: Hello) -> None:
        """Take the board's HELLO; a changed boot id (after a reconnect) is a BoardReset."""
        if self.watch.boot_id and hello.boot_id != self.watch.boot_id:
            self._board_reset(hello.boot_id, hello.reset_cause)
        self.hello = hello
        self.watch.boot_id = hello.boot_id
        self.last_done_cmd = max(self.last_done_cmd, hello.last_done_cmd)
        self.last_sent_cmd = max(self.last_sent_cmd, hello.last_queued_cmd)
        self.questions.fit_watchdog(hello.watchdog_ms)
        self._last_rx_s = self.clock.now_s()

    # --- the service loop ----------------------------------------------------------------------------
    def service(self, *, wait: bool) -> None:
        """Read and act on frames, run the timers, and raise what the board reported (``wait``: block until a
        frame comes or a timer is due, at most READ_QUANTUM_S)."""
        verdict = self.watch.verdict()
        if verdict is not None:
            raise verdict
        self.estop_relay.serve(
            self._lock.control if self._lock is not None else None,
            now_s=self.clock.now_s(),
            statuses=self.statuses,
            resend_s=self.resend_timeout_s(),
            send_estop=lambda: self.send_immediate(protocol.ESTOP),
        )
        damaged = self._damaged_lines()
        for frame in self._reader.feed(self._read(wait=wait)):
            self._on_frame(*frame)
            self._heard_s = self.clock.now_s()
        if self._damaged_lines() > damaged:
            self._heard_s = self.clock.now_s()
            # The board answered but the line spoiled the answer: the board is as quick as its round trips say,
            # so drop the back-off; lost frames are then resent a measured resend timeout later, not a doubled
            # one, and on a noisy line enough of them fit in the silence bound.
            self.rtt.clear_back_off()
            if not all(line.startswith(b"DONE,") for line in self._reader.spoiled):
                self._ask_after_spoiled_answer()  # (a line that still reads DONE answered nothing)
        self._run_timers()
        if self._errors:
            raise self._traced(self._errors.pop(0))

    def _ask_after_spoiled_answer(self) -> None:
        """A line from the board came spoiled. If no new frame can go (the window is full, or frames wait for room
        in flight), and everything still to be answered (frames sent and not acked, the last question) has reached
        the board's end of the line, the spoiled line was an answer to wait for and no later one is coming: ask
        now (a PONG says what the board took and read) rather than when the probe timer would."""
        if not (self.sender.has_waiting or self.sender.window.is_full):
            return  # a new frame can go now: its answer will say as much
        awaited_s = [entry.arrives_s for entry in self.sender.window.pending() if entry.transmissions]
        if self.questions.query_order > self.questions.answered_order:
            awaited_s.append(self._question_arrives_s)
        if awaited_s and max(awaited_s) <= self.clock.now_s():
            self.send_ping()

    def _read(self, *, wait: bool) -> bytes:
        """Bytes from the port; if it vanished, reconnect (or PortError when that is off)."""
        if self._port is None or not self._port.is_open:
            raise PortError(f"port {self.url!r} is not open: call open() first")
        try:
            if wait:
                wait_s = self._time_to_next_timer_s()
                wait = wait_s > 0
                if wait and wait_s != self._read_timeout_s:
                    self._port.timeout = self._read_timeout_s = wait_s
            data = read_available(self._port, wait=wait)
        except (serial.SerialException, OSError) as err:
            self._port_lost(err)
            return b""
        self.trace.read(self.clock.now_s(), data)
        return data

    def _time_to_next_timer_s(self) -> float:
        """How long a read may block before a timer is due, in s (see :func:`~hanoibot.link.timers.read_wait_s`)."""
        if not self.watch.boot_id or self._handshaking:
            return READ_QUANTUM_S  # handshaking: no timers run
        return read_wait_s(self._deadlines(), self.clock.now_s(), READ_QUANTUM_S)

    def _deadlines(self) -> Deadlines:
        """When each timer fires, in s of the session clock. A frame that needs room in flight is not due before
        there is room (answers come in reads, or the oldest frame in flight expires, see :mod:`hanoibot.link.
        flight`)."""
        never_s = math.inf
        rto_s = self.resend_timeout_s()
        lives = self._lifetimes()
        query_room_s = self.sender.room_s(QUERY_BYTES, lives)
        retransmit_s = probe_s = never_s
        oldest = self.sender.window.oldest
        if oldest is not None and oldest.transmissions and not self.sender.is_waiting(oldest):
            # Timed from when the frame reached the board's end of the line (on a slow line it waits behind the
            # bytes written before it: it is not late for that), or from the last ack that made progress if that
            # is later (RFC 6298, 5.3): a frame behind others waits for the board to read those first.
            probed = (oldest.seq, oldest.transmissions) == self._probe_key
            retransmit_s, probe_s = resend_timing(
                since_s=max(oldest.arrives_s, self._progress_s),
                rto_s=rto_s,
                probe_after_s=self.rtt.probe_s,
                probed_s=self._probe_sent_s if probed else None,
                query_room_s=query_room_s,
            )
        questions = self.questions
        heartbeat_s = questions.heartbeat_due_s(self.sender.last_write_s, rto_s, self.rtt.measured_rto_s)
        reset_check_s = questions.status_asked_s + self._reask_s() if self.watch.suspect_reset else never_s
        return Deadlines(
            retransmit_s=retransmit_s,
            probe_s=probe_s,
            heartbeat_s=max(heartbeat_s, query_room_s),
            silence_s=self._last_rx_s + self.silence_bound_s(),
            flush_s=self.sender.flush_due_s(lives),
            reset_check_s=reset_check_s,
        )

    def _lifetimes(self) -> Lifetimes:
        """How long unproved frames count in flight (see :class:`~hanoibot.link.flight.Lifetimes`): a question
        until its answer is overdue (the probe time, twice the shortest recent round trip; at most the resend
        timeout), so that the next can be asked; a reliable frame a resend timeout, once the board was heard after
        it was written (every answer since was spoiled)."""
        probe_s = self.rtt.probe_s
        rto_s = self.resend_timeout_s()
        return Lifetimes(min(rto_s, probe_s) if probe_s > 0 else rto_s, rto_s, self._heard_s)

    def _damaged_lines(self) -> int:
        """Lines from the board dropped so far because they were damaged (bad CRC, malformed, oversized)."""
        reader = self._reader
        return int(reader.bad_crc + reader.malformed + reader.oversized)

    def _transmit(self, frame: bytes) -> None:
        """Write one frame and count it in flight (see :class:`~hanoibot.link.sender.Sender`)."""
        self.sender.write(frame)

    def _write_port(self, frame: bytes) -> None:
        """Put one frame on the port; if the port vanished, reconnect (the frame is resent by the window if
        reliable)."""
        if self._port is None or not self._port.is_open:
            raise PortError(f"port {self.url!r} is not open: call open() first")
        self.trace.wrote(self.clock.now_s(), frame)
        try:
            self._port.write(frame)
        except (serial.SerialException, OSError) as err:
            self._port_lost(err)

    def _now_s(self) -> float:
        """The session clock now, in s."""
        return self.clock.now_s()

    def _port_lost(self, err: BaseException) -> None:
        """The port failed under us: reconnect within the bound, else PortError naming it."""
        if self.reconnect_s <= 0:
            self.close()
            raise PortError(f"port {self.url!r} failed: {err}") from err
        self.reconnect()

    def _on_frame(self, kind: str, seq: int, ack: int, fields: list[str]) -> None:
        """Act on one valid frame from the board."""
        now_s = self.clock.now_s()
        self._last_rx_s = now_s
        if self._board_seq is not None:
            gap = (seq - self._board_seq - 1) % protocol.SEQ_MOD
            if gap and not (gap < MAX_BOARD_FRAMES_LOST and self._is_ours(ack)):
                self._ask_if_reset()  # not just a few frames lost: did it reboot? STATUS tells its boot
            elif gap and self._unfinished() and not len(self.sender.window):
                self.send_ping()  # a DONE may be among those lost, and no later one is coming: the PONG says
        self._board_seq = seq
        if kind == protocol.HELLO:
            if fields[2:3] != [self.watch.boot_id]:
                hello = parse_hello(fields)
                self._board_reset(hello.boot_id, hello.reset_cause)
            if not self._is_ours(ack):
                self._session_taken_over()  # the board answered someone else's SYNC
            return
        if kind == protocol.ERROR and fields[:1] == [protocol.E_NO_SESSION]:
            self._ask_if_reset()  # the board forgot our session: did it reboot?
            return
        if not self._is_ours(ack):
            if kind != protocol.STATUS:
                self._ask_if_reset()  # another boot or another host's session: the STATUS's boot id tells which
                return
            status = parse_status(fields)
            if status.boot_id != self.watch.boot_id:
                self._board_reset(status.boot_id, "unknown")
            self._session_taken_over()
        self.watch.acked_seq = ack
        acked = self._take_ack(ack, now_s)
        if acked and kind not in (protocol.ACK, protocol.PONG):
            self._ask_how_far_read(acked)
        if kind == protocol.ACK:
            self._on_reads(fields, ack, now_s)
        elif kind == protocol.DONE and fields:
            self._done_up_to(protocol.parse_uint(fields[0], protocol.MAX_CMD_ID))
        elif kind == protocol.STATUS:
            self._on_status(parse_status(fields), now_s)
        elif kind == protocol.PONG and fields:
            self._on_pong(fields, ack, now_s)
        elif kind == protocol.ERROR:
            self._on_error(fields)

    def _is_ours(self, ack: int) -> bool:
        """True if ``ack`` counts only frames this session sent (see :meth:`BoardWatch.is_ours`)."""
        return self.watch.is_ours(ack, self.sender.window.next_seq)

    def _session_taken_over(self) -> None:
        """Record and raise SessionTakenOver: from now on every service call raises it (nothing more is sent)."""
        raise self._traced(self.watch.taken_over())

    def _take_ack(self, ack: int, now_s: float) -> list[Pending]:
        """Drop what a cumulative ack covers; the newest frame it covers, if sent once, is an RTT sample. Returns
        the frames it acked."""
        acked = self.sender.take_ack(ack, now_s)
        if acked:
            self._refused.difference_update(entry.cmd_id for entry in acked)
            self.rtt.clear_back_off()
            self._progress_s = now_s
        if acked and acked[-1].transmissions == 1:
            self.rtt.sample(now_s - acked[-1].sent_s)  # sent once: a clean round trip
        return acked

    def _ask_how_far_read(self, acked: list[Pending]) -> None:
        """A frame without a byte count (a DONE, a STATUS) acked frames, the newest of them sent more than once: its
        last copy still counts in flight, since the ack may come from an earlier copy. If frames wait for that room,
        ask now (the PONG's count says whether the board read it) instead of waiting for a later ACK."""
        newest = acked[-1]
        if newest.transmissions > 1 and self.sender.has_waiting and self.questions.query_order < newest.sent_order:
            self.send_ping()

    def _on_pong(self, fields: list[str], ack: int, now_s: float) -> None:
        """A PONG gives a clean RTT sample, pins how far the board has read (its PING was written once), and with
        that shows which frames were lost (see :meth:`_on_reads`)."""
        sent = self.questions.pong(fields[0], now_s)
        if sent is None:
            return
        self.sender.flight.read_up_to(sent.order, now_s)
        self.rtt.sample(now_s - sent.sent_s)
        self._pin_reads(sent, fields)
        if len(fields) > 2:
            self._done_up_to(protocol.parse_uint(fields[2], protocol.MAX_CMD_ID))
        self._on_reads(fields[1:2] + fields[3:4], ack, now_s)

    def _pin_reads(self, sent: PingSent, fields: list[str]) -> None:
        """Pin the board's byte count to ours with the PONG (``fields``) of the PING ``sent``."""
        rx_count = protocol.parse_uint(fields[1], protocol.SEQ_MOD - 1) if len(fields) > 1 else -1
        if rx_count >= 0:
            self.reads.pin(sent.end_offset, rx_count)

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
            and entry.cmd_id not in self._refused
        ]
        if lost:
            self.sender.resend(lost)

    def _on_status(self, status: Status, now_s: float) -> None:
        """Keep a STATUS; a new boot id is a reset."""
        if status.boot_id != self.watch.boot_id:
            self._board_reset(status.boot_id, "unknown")
        order = self.questions.status_came(now_s)  # it answers the oldest request still open (or a later one)
        if order is not None:
            self.sender.flight.read_up_to(order, now_s)
        self.watch.suspect_reset = False
        self.last_status = status
        self.statuses += 1
        self._done_up_to(status.last_done_cmd)
        self.estop_relay.status_came(
            self._lock.control if self._lock is not None else None,
            latched=status.mode is Mode.ESTOP,
            statuses=self.statuses,
        )

    def _on_error(self, fields: list[str]) -> None:
        """Queue a board ERROR to be raised at the end of this service round (flow-control codes excepted)."""
        code = fields[0] if fields else "?"
        cmd_id = protocol.parse_uint(fields[1], protocol.MAX_CMD_ID) if len(fields) > 1 else -1
        if code in _QUIET_ERRORS:
            self._refused.add(cmd_id)  # not lost: sent again on the resend timeout, when the queue has room
            return
        text = for_people(",".join(fields[2:]))
        where = f" for command {cmd_id}" if cmd_id > 0 else ""
        message = f"board refused{where}: {code}: {text}"
        if code == protocol.E_ESTOPPED and self.estop_requests:  # the run latched it for `hanoibot estop`
            message = stopped_by_estop_request(cmd_id)
        self._errors.append(BoardError(message, code=code, cmd_id=cmd_id))

    def _done_up_to(self, cmd_id: int) -> None:
        """Commands finish in id order: everything up to ``cmd_id`` is done."""
        if cmd_id > self.last_done_cmd:
            self.last_done_cmd = cmd_id

    def _run_timers(self) -> None:
        """Retransmit on timeout, probe an overdue ack, send a heartbeat when idle, and give up after the
        silence bound."""
        now_s = self.clock.now_s()
        self.sender.flight.expire(now_s, self._lifetimes())
        due = self._deadlines()
        oldest = self.sender.window.oldest
        if oldest is not None and now_s >= due.retransmit_s:
            self.rtt.back_off()
            self._refused.clear()
            self.sender.resend_all()
        else:
            self.sender.flush()  # what waited for room (after a resend timeout, the window is resent from its start)
        oldest_unread = self.sender.flight.oldest_order
        if (
            oldest is not None
            and not oldest.transmissions
            and oldest_unread is not None
            and self.questions.query_order < oldest_unread
        ):
            # A frame waits for room, every frame sent is acked (no ACK is coming that says how far the board read:
            # the one that would have was lost, and a DONE's ack proves no resent copy read), and no question asked
            # since the oldest frame counted in flight: a PONG tells, a round trip from now, not at its expiry.
            self.send_ping()
        if oldest is not None and now_s >= due.probe_s and now_s < due.retransmit_s:
            # Not acked as soon as expected: a PING now tells at once whether it was lost (see _on_pong).
            self._probe_key = (oldest.seq, oldest.transmissions)
            self._probe_sent_s = now_s
            self.send_ping()
        if now_s >= due.reset_check_s:
            # A sign of a reboot and no STATUS yet: ask again, room or not (a window of frames the new boot will
            # never ack must not keep the question from being asked).
            self.send_immediate(protocol.STATUS, urgent=True)
            # And a PING beside it: a STATUS is long and often spoiled on a noisy line (at 1 % flips and drops one
            # in eight comes whole), where a short PONG soon shows the board alive (the silence bound).
            self.send_ping()
        if now_s >= due.heartbeat_s:
            self._heartbeat(now_s)
        if now_s >= due.silence_s:
            raise self._traced(
                LinkLost(
                    f"no valid frame from {self.url!r} for {now_s - self._last_rx_s:.2f} s"
                    f" (bound {self.silence_bound_s():.3g} s): check the cable and the board's power"
                )
            )

    def _traced(self, err: LinkError) -> LinkError:
        """``err`` with the last frames on the wire attached (see :mod:`hanoibot.link.trace`)."""
        err.frame_trace = self.trace.lines()
        return err

    # --- sending -------------------------------------------------------------------------------------
    def send_reliable(self, kind: str, fields: Sequence[str | int] = (), *, cmd_id: int | None = None) -> Pending:
        """Wait for room in the window, then send a sequenced frame that is resent until acked (a MOVE's
        ``cmd_id`` is kept in the window so its fate is known after a reset)."""
        while self.sender.window.is_full:
            self.service(wait=True)
        return self.sender.add(kind, fields, ack=self._rx_ack(), cmd_id=cmd_id)

    def send_immediate(self, kind: str, fields: Sequence[str | int] = (), *, urgent: bool = False) -> bool:
        """Send a frame the board acts on at once whatever its seq (ESTOP, STATUS, PING); never resent. All but
        ESTOP and ``urgent`` ones need room in flight: False (nothing sent; ask again later) when there is none."""
        frame = protocol.encode(kind, self.sender.window.next_seq, self._rx_ack(), list(fields))
        if not urgent and kind != protocol.ESTOP and not self.sender.flight.has_room(len(frame)):
            return False
        order = self.sender.next_order
        if kind in (protocol.STATUS, protocol.PING):
            self.questions.asked(kind == protocol.STATUS, order, self.clock.now_s())
        self._transmit(frame)
        self._question_arrives_s = self.sender.line_done_s()
        return True

    def wait_acked(self, entry: Pending) -> None:
        """Service the link until the reliable frame ``entry`` is acked."""
        while not entry.acked:
            self.service(wait=True)

    def request(self, send: Callable[[], object], answered: Callable[[], bool]) -> None:
        """``send()``, then service the link until ``answered()``; send again after each resend timeout. The
        silence bound ends it with LinkLost if the board never answers."""
        while True:
            send()
            sent_s = self.clock.now_s()
            while self.clock.now_s() - sent_s < self.resend_timeout_s():
                self.service(wait=True)
                if answered():
                    return

    def take_pong_rtt_s(self, token: str) -> float | None:
        """The round trip in s of the PING ``token`` once its PONG came (forgotten once taken), else None."""
        return self.questions.take_pong_rtt_s(token)

    def note_move_sent(self, cmd_id: int) -> None:
        """Book MOVE ``cmd_id`` as sent and not yet done."""
        self._open_cmds.append(cmd_id)
        self.last_sent_cmd = cmd_id

    def unfinished_cmds(self) -> tuple[int, ...]:
        """MOVE ids sent and not known done, oldest first."""
        return tuple(self._unfinished())

    def _heartbeat(self, now_s: float) -> None:
        """Keep the watchdog fed: a short PING, or a STATUS (see :meth:`Questions.heartbeat_is_status`)."""
        if self.questions.heartbeat_is_status(now_s, suspect_reset=self.watch.suspect_reset):
            self.ask_status()
        else:
            self.send_ping()

    def send_ping(self) -> str:
        """Send a PING with a fresh token and remember when; returns the token."""
        token = self.questions.new_ping_token()
        sent_s = self.clock.now_s()
        order = self.sender.next_order
        if self.send_immediate(protocol.PING, [token]):
            self.questions.ping_sent(token, PingSent(sent_s, order, self.sender.bytes_written))
        return token

    def ask_status(self) -> None:
        """Send a STATUS request (acted on at once by the board whatever its seq), if there is room in flight."""
        self.send_immediate(protocol.STATUS)

    def ask_fresh_status(self) -> str:
        """Send a PING, then a STATUS request; returns the PING's token. A STATUS has no token of its own, and an
        answer to an earlier request (a heartbeat's) may still be on its way, made before whatever the caller saw
        happen: the board handles frames in the order it reads them, so a STATUS that comes after this PING's
        PONG (:meth:`fresh_status_came`) was made after the board read the request."""
        token = self.send_ping()
        self.ask_status()
        return token

    def fresh_status_came(self, tokens: Sequence[str]) -> bool:
        """True once a STATUS came after the PONG of one of the PINGs ``tokens`` (see :meth:`ask_fresh_status`)."""
        return any(self.questions.status_came_after_pong(token) for token in tokens)

    def forget_fresh_status(self, tokens: Sequence[str]) -> None:
        """Drop the bookkeeping of the PINGs ``tokens`` sent by :meth:`ask_fresh_status`."""
        for token in tokens:
            self.questions.forget_pong(token)

    def _ask_if_reset(self) -> None:
        """A frame hints at a reboot or a lost answer: ask STATUS now, and again each :meth:`_reask_s` until one
        comes (a long STATUS or HELLO is often spoiled on a noisy line: asking often shows a reboot soon)."""
        self.watch.suspect_reset = True
        if self.clock.now_s() - self.questions.status_asked_s >= self._reask_s():
            self.send_immediate(protocol.STATUS, urgent=True)

    def silence_bound_s(self) -> float:
        """How long the board may stay silent before LinkLost, in s: ``silence_s``, or longer while the measured
        resend timeout is long (:data:`QUESTIONS_BEFORE_LOST` questions asked a measured timeout apart)."""
        return max(self.silence_s, QUESTIONS_BEFORE_LOST * self.rtt.measured_rto_s)

    def _reask_s(self) -> float:
        """How long after asking STATUS about a reboot to ask again, in s: once its answer is overdue (twice the
        smoothed round trip, not backed off: the frames lost were not these), at least the shortest timeout."""
        return max(self.rtt.min_rto_s, 2.0 * (self.rtt.srtt_s or 0.0))

    def _rx_ack(self) -> int:
        """Our ack of the board's frames: the last board seq seen (the board does not need it)."""
        return 0 if self._board_seq is None else self._board_seq

    def _unfinished(self) -> deque[int]:
        """MOVE ids sent and not known done, oldest first."""
        while self._open_cmds and self._open_cmds[0] <= self.last_done_cmd:
            self._open_cmds.popleft()
        return self._open_cmds

    def _board_reset(self, new_boot_id: str, cause: str) -> None:
        """Record and raise BoardReset: unfinished commands have unknown fate and are dropped, never replayed."""
        unknown = tuple(self._unfinished())
        self.sender.clear()
        self._open_cmds.clear()
        err = self.watch.reset(new_boot_id, cause, unknown)
        self.last_done_cmd = 0
        self.last_sent_cmd = 0
        self.last_status = None
        raise self._traced(err)
