"""The link engine a :class:`~hanoibot.link.session.Session` holds: port, handshake, frames in, timers, frames out.

:class:`LinkCore` owns the port and the protocol state; its public surface is small: :meth:`~LinkCore.open`,
:meth:`~LinkCore.send_reliable` (sequenced, acked, resent), :meth:`~LinkCore.send_immediate` (ESTOP, STATUS, PING:
acted on at once, never queued), :meth:`~LinkCore.service` (read, act, run timers), :meth:`~LinkCore.request` (the
one send-wait-resend loop) and the counters. Reliable frames go through a go-back-N
:class:`~hanoibot.link.window.SendWindow`. A frame whose ack is overdue (twice the recent minimum round trip) is
asked about with a PING: the PONG's cumulative ack tells at once whether the board took it, so a loss costs a
round trip instead of a retransmission timeout; the adaptive RTO (:mod:`hanoibot.link.rtt`) is the fallback.
Lost ACKs and DONEs are recovered from later ACK and STATUS frames, which carry ``last_done_cmd``. When idle, a
heartbeat (PING, or STATUS every ``status_every_s``) keeps the firmware watchdog fed and shows a reboot quickly.
A slow board is never flooded: every frame but ESTOP waits until the bytes written and not yet answered
(:mod:`hanoibot.link.flight`) leave room for it, a heartbeat goes a period after the last frame and only once the
last question was answered or its answer is a resend timeout overdue (then it is asked again at once, so a lost
answer or a reboot is seen within round trips, not heartbeat periods), and go-back-N resends only what room allows.
Every blocking read is bounded by the next timer, and on ``sim://`` it advances the simulator's virtual clock.
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from collections.abc import Callable, Sequence

import serial
from hanoifw import protocol

from ..clock import Clock, WallClock
from ..errors import BadCommand, BoardError, BoardReset, LinkLost, LinkTimeout, PortError, SessionTakenOver
from .control import ESTOPPED
from .flight import InFlight
from .port import READ_QUANTUM_S, close_quietly, open_port, read_available, reopen_port
from .port_lock import PortLock
from .rtt import RttEstimator
from .status import Hello, Status, for_people, parse_hello, parse_status
from .window import Pending, SendWindow

#: Board ERROR codes that are flow control, not failures.
_QUIET_ERRORS = (protocol.E_QUEUE_FULL,)
#: Granularity of read time-outs, in s.
_TIMEOUT_STEP_S = 0.0005
#: Shortest time between two PINGs asking about the same unacked frame, in s.
_MIN_REPROBE_S = 0.001
#: Bytes of the longest PING or STATUS request: room in flight reliable frames leave free, so that the board can
#: always be asked (whether a frame was lost, whether it rebooted).
_QUERY_BYTES = 40
#: PINGs remembered while their PONG is awaited.
_MAX_PINGS = 32
#: How often the port's control socket is checked for e-stop requests, in s of wall-clock time.
_CONTROL_POLL_S = 0.02


def stopped_by_estop_request(cmd_id: int) -> str:
    """What a session says when the board stopped command ``cmd_id`` for a `hanoibot estop` it served."""
    return f"`hanoibot estop` from another process stopped the arm with command {cmd_id} pending"


class LinkCore:
    """Port, protocol state and service loop of one host session (the board commands are on Session).

    Times in s of ``clock`` (a sim:// port's virtual clock replaces it): ``silence_s`` without a valid frame is
    LinkLost; ``handshake_s`` bounds SYNC/HELLO; ``reconnect_s`` bounds reopening a vanished port (0 = PortError
    at once); ``heartbeat_s`` is the longest gap between frames to the board (also capped at a quarter of the
    board's watchdog); ``status_every_s`` is how often a heartbeat is a STATUS rather than a PING.
    """

    def __init__(
        self,
        url: str,
        *,
        clock: Clock | None = None,
        window: int = 4,
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
        self.status_every_s = status_every_s
        # A serial line has no congestion to back off from: back-off stops well below the silence bound. A slow
        # board's measured round trips may call for more (up to half the bound): it is never asked faster than it
        # answers, or its input fills with questions and every answer comes later still.
        self.rtt = RttEstimator(max_rto_s=min(1.0, silence_s / 5), max_measured_rto_s=silence_s / 2)
        self.retransmits = 0
        self.reconnects = 0
        self.hello: Hello | None = None
        self.boot_id = ""
        self.last_done_cmd = 0
        self.last_sent_cmd = 0
        self.last_status: Status | None = None
        self.statuses = 0
        self._heartbeat_max_s = heartbeat_s
        self._heartbeat_s = heartbeat_s
        self._window = SendWindow(window, first_seq=random.randrange(protocol.SEQ_MOD))
        self._port: serial.SerialBase | None = None
        self._read_timeout_s: float | None = None
        self._reader = protocol.FrameReader()
        self._board_seq: int | None = None
        self._open_cmds: deque[int] = deque()
        self._errors: list[BoardError] = []
        self._reset: BoardReset | None = None
        self._status_s = -1.0
        self._status_asked_s = -1.0
        self._fast_retransmit_key = (-1, 0)
        # PING token -> (when it was sent in s, its number among the frames written: see _on_pong)
        self._pings: dict[str, tuple[float, int]] = {}
        self._frames_written = 0
        self._handshaking = False
        self._pong_rtt_s: dict[str, float] = {}
        self._ping_count = 0
        self._probe_key = (-1, 0)
        self._probe_sent_s = 0.0
        self._last_rx_s = 0.0
        self._last_tx_s = 0.0
        self._flight = InFlight()
        self._progress_s = 0.0  # when an ack last covered a new frame
        # Reliable frames to be (re)sent as soon as there is room in flight, oldest first.
        self._to_send: deque[Pending] = deque()
        # The last question (PING or STATUS) asked: its number among the frames written and when; the highest
        # such number known answered; and the numbers of the STATUS requests not yet answered, oldest first.
        self._query_order = 0
        self._query_s = 0.0
        self._answered_order = 0
        self._status_orders: deque[int] = deque(maxlen=_MAX_PINGS)
        self._suspect_reset = False  # a sign of a reboot was seen: STATUS is asked again and again till one comes
        self._lock: PortLock | None = None
        self._taken_over: SessionTakenOver | None = None
        self._acked_seq = 0
        self._control_next_s = 0.0
        self._estop_sent_s = 0.0
        self._estop_statuses = 0
        #: E-stop requests other processes sent to this port's control socket (see :mod:`hanoibot.link.control`).
        self.estop_requests = 0

    @property
    def port(self) -> serial.SerialBase | None:
        """The pyserial port object (a sim:// port has ``.board`` and ``.clock``); None before the first open."""
        return self._port

    @property
    def is_open(self) -> bool:
        """True while the port is open."""
        return self._port is not None and bool(self._port.is_open)

    @property
    def window_is_full(self) -> bool:
        """True while no more reliable frames may be sent before an ack."""
        return self._window.is_full

    @property
    def next_seq(self) -> int:
        """The seq the next reliable frame will get (unsequenced frames carry it too)."""
        return self._window.next_seq

    def resend_timeout_s(self) -> float:
        """How long to wait for an answer before sending again, in s: the one retransmission decision (the
        adaptive RTO of :mod:`hanoibot.link.rtt`, doubled by back-off). Handshake, window and requests use it."""
        return self.rtt.rto_s

    def open(self) -> None:
        """Take the port's lock (PortBusy names the process holding it), open the port, discard noise and shake
        hands; ProtocolMismatch or LinkTimeout if that fails (the port and its lock are let go then)."""
        if self._lock is None:
            self._lock = PortLock(self.url)
        self._lock.acquire()
        self._taken_over = None
        try:
            self._open_port()
            self._handshake()
        except BaseException:
            self.close()
            raise

    def restart(self) -> None:
        """After :class:`BoardReset`: forget the old boot's frames and commands and shake hands again."""
        self._reset = None
        self._window.clear()
        self._to_send.clear()
        self._flight.clear()
        self._open_cmds.clear()
        self.boot_id = ""
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
        """Open the port, adopt its clock if it has one (sim://), and drop whatever is waiting in it."""
        port = self._port
        if port is None:
            port = open_port(self.url, baudrate=self.baudrate)
        elif not port.is_open:
            reopen_port(port, self.url)
        port_clock = getattr(port, "clock", None)
        if port_clock is not None:
            self.clock = port_clock
        self._port = port
        self._reader = protocol.FrameReader()
        self._board_seq = None
        self._read_timeout_s = port.timeout
        try:
            port.reset_input_buffer()
        except (serial.SerialException, OSError) as err:
            raise PortError(f"cannot use port {self.url!r}: {err}") from err

    def _handshake(self) -> None:
        """SYNC until a HELLO answers it; check protocol and boot id; renumber unacked frames."""
        token = f"{random.getrandbits(32):08x}"
        sync_seq = self._window.next_seq
        sync = protocol.encode(protocol.SYNC, sync_seq, self._rx_ack(), [token])
        start_s = self.clock.now_s()
        first_sync_order = self._frames_written + 1
        hello: Hello | None = None
        attempts = 0
        # No timer runs while handshaking, so reads must block (and let sim:// time pass) even when a timer of
        # the session being reopened is overdue; otherwise a lost HELLO meant a busy loop, endless on sim://.
        self._handshaking = True
        try:
            while hello is None:
                now_s = self.clock.now_s()
                attempts += 1
                if now_s - start_s >= self.handshake_s:
                    raise LinkTimeout(
                        f"no HELLO from {self.url!r} within {self.handshake_s:g} s: expected a hanoibot board there"
                    )
                self._transmit(sync)
                while hello is None and self.clock.now_s() - now_s < self.resend_timeout_s():
                    hello = self._read_hello(sync_seq)
                if hello is None:
                    self.rtt.back_off()
        finally:
            self._handshaking = False
        if attempts == 1:
            self.rtt.sample(self.clock.now_s() - start_s)  # one SYNC, one HELLO: an unambiguous round trip
        self._adopt_hello(hello)
        self._flight.read_up_to(first_sync_order, self.clock.now_s())  # it read a SYNC: all before the first
        self._window.restart(sync_seq + 1, ack=self._rx_ack())
        self._to_send.clear()
        self._to_send.extend(self._window.pending())  # renumbered, sent as room allows
        self._acked_seq = sync_seq

    def _read_hello(self, sync_seq: int) -> Hello | None:
        """Read once; the HELLO that acks ``sync_seq``, if it came (other frames are dropped here)."""
        for kind, seq, ack, fields in self._reader.feed(self._read(wait=True)):
            self._board_seq = seq
            if kind == protocol.HELLO and ack == sync_seq:
                return parse_hello(fields)
        return None

    def _adopt_hello(self, hello: Hello) -> None:
        """Take the board's HELLO; a changed boot id (after a reconnect) is a BoardReset."""
        if self.boot_id and hello.boot_id != self.boot_id:
            self._board_reset(hello.boot_id, hello.reset_cause)
        self.hello = hello
        self.boot_id = hello.boot_id
        self.last_done_cmd = max(self.last_done_cmd, hello.last_done_cmd)
        self.last_sent_cmd = max(self.last_sent_cmd, hello.last_queued_cmd)
        # At most a quarter of the board's watchdog: with a lost answer asked again after a resend timeout, it
        # trips only if several heartbeats in a row are lost.
        self._heartbeat_s = min(self._heartbeat_max_s, hello.watchdog_ms / 4000.0)
        self._last_rx_s = self.clock.now_s()

    def service(self, *, wait: bool) -> None:
        """Read and act on frames, run the timers, and raise what the board reported (``wait``: block until a
        frame comes or a timer is due, at most READ_QUANTUM_S)."""
        if self._reset is not None:
            raise self._reset
        if self._taken_over is not None:
            raise self._taken_over
        self._serve_control()
        damaged = self._damaged_lines()
        for frame in self._reader.feed(self._read(wait=wait)):
            self._on_frame(*frame)
        if self._damaged_lines() > damaged:
            self._on_damaged_frame()
        self._run_timers()
        if self._errors:
            raise self._errors.pop(0)

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
            return read_available(self._port, wait=wait)
        except (serial.SerialException, OSError) as err:
            self._port_lost(err)
            return b""

    def _time_to_next_timer_s(self) -> float:
        """How long a read may block before a timer is due, in s: 0 to READ_QUANTUM_S, in 0.5 ms steps (so
        a real port is not reconfigured for every read)."""
        if not self.boot_id or self._handshaking:
            return READ_QUANTUM_S  # handshaking: no timers run
        wait_s = min(READ_QUANTUM_S, min(self._timer_deadlines_s()) - self.clock.now_s())
        return 0.0 if wait_s <= 0 else math.ceil(wait_s / _TIMEOUT_STEP_S) * _TIMEOUT_STEP_S

    def _timer_deadlines_s(self) -> tuple[float, float, float, float, float, float]:
        """When each timer fires, in s of the session clock: (retransmit, probe, heartbeat, silence, flush, ask
        whether the board rebooted). The same numbers decide both how long to block and what fires, so a timer
        can never be due yet not fire: a frame that needs room in flight is not due before there is room (answers
        come in reads, or the oldest frame in flight expires, see :mod:`hanoibot.link.flight`)."""
        never_s = math.inf
        rto_s = self.resend_timeout_s()
        query_room_s = self._room_s(_QUERY_BYTES, rto_s)
        retransmit_s = probe_s = flush_s = never_s
        oldest = self._window.oldest
        if oldest is not None and oldest.transmissions and not self._is_queued(oldest):
            # Timed from the last ack that made progress if that is later (RFC 6298, 5.3): a frame behind others
            # waits for the board to read those first, and is not late for that.
            since_s = max(oldest.sent_s, self._progress_s)
            retransmit_s = since_s + rto_s
            probe_s = since_s + self.rtt.probe_s
            if (oldest.seq, oldest.transmissions) == self._probe_key:
                # Asked already and no verdict yet (the PING or PONG may be lost too): ask again soon.
                probe_s = max(probe_s, self._probe_sent_s + max(2 * self.rtt.probe_s, _MIN_REPROBE_S))
            probe_s = max(probe_s, query_room_s)
        if self._to_send:
            flush_s = self._room_s(len(self._to_send[0].frame) + _QUERY_BYTES, rto_s)
        heartbeat_s = max(self._heartbeat_due_s(rto_s), query_room_s)
        reset_check_s = self._status_asked_s + self._reask_s() if self._suspect_reset else never_s
        return retransmit_s, probe_s, heartbeat_s, self._last_rx_s + self.silence_s, flush_s, reset_check_s

    def _damaged_lines(self) -> int:
        """Lines from the board dropped so far because they were damaged (bad CRC, malformed, oversized)."""
        reader = self._reader
        return int(reader.bad_crc + reader.malformed + reader.oversized)

    def _on_damaged_frame(self) -> None:
        """The board answered but the line spoiled the answer: the board is as quick as its round trips say, so
        drop the back-off. Lost questions and frames are then asked and resent a measured resend timeout later, not
        a doubled one, and on a noisy line enough of them fit in the silence bound."""
        self.rtt.clear_back_off()

    def _heartbeat_due_s(self, rto_s: float) -> float:
        """When the next heartbeat is due, in s: a heartbeat period after the last frame sent; but while a question
        is unanswered, a resend timeout after it (at most a period, unless the measured round trips are longer: a
        slow board reads the question still waiting in its input, which feeds its watchdog as well as a new one
        would): a lost answer is asked again at once, yet a board is never asked faster than it answers."""
        if self._query_order > self._answered_order:
            return self._query_s + min(rto_s, max(self._heartbeat_s, self.rtt.measured_rto_s))
        return self._last_tx_s + self._heartbeat_s

    def _room_s(self, nbytes: int, rto_s: float) -> float:
        """When ``nbytes`` more may be written, in s: -inf if they fit in flight now (never "now": a wall clock
        moves on while the timers are computed), else when the oldest frame in flight expires (more room may come
        sooner, with an answer)."""
        if self._flight.has_room(nbytes):
            return -math.inf
        return self._flight.oldest_expires_s(rto_s)

    def _is_queued(self, entry: Pending) -> bool:
        """True if ``entry`` waits for room to be (re)sent."""
        return bool(self._to_send) and self._to_send[0] is entry

    def _transmit(self, frame: bytes) -> None:
        """Write one frame; if the port vanished, reconnect (the frame is resent by the window if reliable)."""
        if self._port is None or not self._port.is_open:
            raise PortError(f"port {self.url!r} is not open: call open() first")
        try:
            self._port.write(frame)
        except (serial.SerialException, OSError) as err:
            self._port_lost(err)
        self._last_tx_s = self.clock.now_s()
        self._frames_written += 1
        self._flight.written(self._frames_written, len(frame), self._last_tx_s)

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
        if self._board_seq is not None and seq != (self._board_seq + 1) % protocol.SEQ_MOD:
            self._ask_if_reset()  # a board frame was lost (or it rebooted): STATUS tells what it said and its boot
        self._board_seq = seq
        if kind == protocol.HELLO:
            if fields[2:3] != [self.boot_id]:
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
            if status.boot_id != self.boot_id:
                self._board_reset(status.boot_id, "unknown")
            self._session_taken_over()
        self._acked_seq = ack
        self._take_ack(kind, ack, now_s)
        if kind == protocol.ACK and len(fields) == 2:
            self._done_up_to(protocol.parse_uint(fields[1], protocol.MAX_CMD_ID))
        elif kind == protocol.DONE and fields:
            self._done_up_to(protocol.parse_uint(fields[0], protocol.MAX_CMD_ID))
        elif kind == protocol.STATUS:
            self._on_status(parse_status(fields), now_s)
        elif kind == protocol.PONG and fields:
            self._on_pong(fields[0], now_s)
        elif kind == protocol.ERROR:
            self._on_error(fields)

    def _is_ours(self, ack: int) -> bool:
        """True if ``ack`` lies between the last ack seen and the last seq sent: in one boot the board's
        cumulative ack only ever counts our frames, until another program sends it a SYNC of its own."""
        sent_since = (self._window.next_seq - 1 - self._acked_seq) % protocol.SEQ_MOD
        return bool((ack - self._acked_seq) % protocol.SEQ_MOD <= sent_since)

    def _session_taken_over(self) -> None:
        """Record and raise SessionTakenOver: from now on every service call raises it (nothing more is sent)."""
        self._taken_over = SessionTakenOver(
            f"another program started its own session with the board on {self.url} (the board acks frames this"
            " session never sent): stopped here so that two programs never drive one arm; close the other"
            f" program, then check the arm with `hanoibot status --port {self.url}`"
        )
        raise self._taken_over

    def _serve_control(self) -> None:
        """Act on e-stop requests from other processes (``hanoibot estop``) that came to the port's control
        socket: send ESTOP at once, and again every resend timeout until a STATUS confirms the latch."""
        control = self._lock.control if self._lock is not None else None
        if control is None:
            return
        wall_s = time.monotonic()
        if wall_s < self._control_next_s:
            return
        self._control_next_s = wall_s + _CONTROL_POLL_S
        asked = control.take_estop_requests()
        self.estop_requests += asked
        overdue = control.is_waiting and self.clock.now_s() - self._estop_sent_s >= self.resend_timeout_s()
        if asked or overdue:
            self._estop_statuses = self.statuses
            self._estop_sent_s = self.clock.now_s()
            self.send_immediate(protocol.ESTOP)  # the board answers with a STATUS

    def _take_ack(self, kind: str, ack: int, now_s: float) -> None:
        """Drop what a cumulative ack covers; the newest frame it covers, if sent once, is an RTT sample and
        proves the board read everything written up to it."""
        acked = self._window.take_ack(ack)
        if acked:
            self.rtt.clear_back_off()
            self._progress_s = now_s
        if acked and acked[-1].transmissions == 1:
            # Sent once: the board read that very copy (and all before it), and its round trip is a clean sample.
            self._flight.read_up_to(acked[-1].sent_order, now_s)
            self.rtt.sample(now_s - acked[-1].sent_s)

    def _on_pong(self, token: str, now_s: float) -> None:
        """A PONG gives a clean RTT sample, and proves a loss: the board saw the oldest frame's last
        transmission before this PING, yet its ack (already taken) does not cover it."""
        sent = self._pings.pop(token, None)
        if sent is None:
            return
        sent_s, ping_order = sent
        self._flight.read_up_to(ping_order, now_s)
        self._answered_order = max(self._answered_order, ping_order)
        self.rtt.sample(now_s - sent_s)
        self._pong_rtt_s[token] = now_s - sent_s
        oldest = self._window.oldest
        # Order by frames written, not by time: on a virtual clock a PING written just before the oldest frame
        # has the same timestamp, and its PONG (whose ack cannot cover that frame) would fake a loss.
        if oldest is None or not oldest.transmissions or ping_order < oldest.sent_order:
            return
        key = (oldest.seq, oldest.transmissions)
        if key != self._fast_retransmit_key:
            self._fast_retransmit_key = key
            self._resend_window()

    def _on_status(self, status: Status, now_s: float) -> None:
        """Keep a STATUS; a new boot id is a reset."""
        if status.boot_id != self.boot_id:
            self._board_reset(status.boot_id, "unknown")
        if self._status_orders:  # it answers the oldest request still open (or a later one)
            order = self._status_orders.popleft()
            self._flight.read_up_to(order, now_s)
            self._answered_order = max(self._answered_order, order)
        self._suspect_reset = False
        self.last_status = status
        self._status_s = now_s
        self.statuses += 1
        self._done_up_to(status.last_done_cmd)
        control = self._lock.control if self._lock is not None else None
        confirmed = status.mode == "ESTOP" and self.statuses > self._estop_statuses  # a STATUS after our ESTOP
        if control is not None and control.is_waiting and confirmed:
            control.answer(ESTOPPED)

    def _on_error(self, fields: list[str]) -> None:
        """Queue a board ERROR to be raised at the end of this service round (flow-control codes excepted)."""
        code = fields[0] if fields else "?"
        if code in _QUIET_ERRORS:
            return
        cmd_id = protocol.parse_uint(fields[1], protocol.MAX_CMD_ID) if len(fields) > 1 else -1
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
        self._flight.expire(now_s, self.resend_timeout_s())
        retransmit_s, probe_s, heartbeat_s, silence_s, _, reset_check_s = self._timer_deadlines_s()
        oldest = self._window.oldest
        if oldest is not None and now_s >= retransmit_s:
            self.rtt.back_off()
            self._resend_window()
        else:
            self._flush()  # what waited for room (after a resend timeout, the window is resent from its start)
        if oldest is not None and now_s >= probe_s and now_s < retransmit_s:
            # Not acked as soon as expected: a PING now tells at once whether it was lost (see _on_pong).
            self._probe_key = (oldest.seq, oldest.transmissions)
            self._probe_sent_s = now_s
            self.send_ping()
        if now_s >= reset_check_s:
            # A sign of a reboot and no STATUS yet: ask again, room or not (a window of frames the new boot will
            # never ack must not keep the question from being asked).
            self.send_immediate(protocol.STATUS, urgent=True)
        if now_s >= heartbeat_s:
            self._heartbeat(now_s)
        if now_s >= silence_s:
            raise LinkLost(
                f"no valid frame from {self.url!r} for {now_s - self._last_rx_s:.2f} s (bound {self.silence_s:g} s):"
                " check the cable and the board's power"
            )

    def send_reliable(self, kind: str, fields: Sequence[str | int] = (), *, cmd_id: int | None = None) -> Pending:
        """Wait for room in the window, then send a sequenced frame that is resent until acked (a MOVE's
        ``cmd_id`` is kept in the window so its fate is known after a reset)."""
        while self._window.is_full:
            self.service(wait=True)
        entry = self._window.add(kind, fields, ack=self._rx_ack(), cmd_id=cmd_id)
        self._to_send.append(entry)
        self._flush()
        return entry

    def send_immediate(self, kind: str, fields: Sequence[str | int] = (), *, urgent: bool = False) -> bool:
        """Send a frame the board acts on at once whatever its seq (ESTOP, STATUS, PING); never resent. All but
        ESTOP and ``urgent`` ones need room in flight: False (nothing sent; ask again later) when there is none."""
        frame = protocol.encode(kind, self._window.next_seq, self._rx_ack(), list(fields))
        if not urgent and kind != protocol.ESTOP and not self._flight.has_room(len(frame)):
            return False
        order = self._frames_written + 1
        if kind in (protocol.STATUS, protocol.PING):
            self._query_order = order
            self._query_s = self.clock.now_s()
        if kind == protocol.STATUS:
            self._status_asked_s = self.clock.now_s()
            self._status_orders.append(order)
        self._transmit(frame)
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
        return self._pong_rtt_s.pop(token, None)

    def note_move_sent(self, cmd_id: int) -> None:
        """Book MOVE ``cmd_id`` as sent and not yet done."""
        self._open_cmds.append(cmd_id)
        self.last_sent_cmd = cmd_id

    def unfinished_cmds(self) -> tuple[int, ...]:
        """MOVE ids sent and not known done, oldest first."""
        return tuple(self._unfinished())

    def _send_entry(self, entry: Pending) -> None:
        """(Re)send one reliable frame and note when."""
        if entry.transmissions:
            self.retransmits += 1
        entry.transmissions += 1
        entry.sent_s = self.clock.now_s()
        entry.sent_order = self._frames_written + 1
        self._transmit(entry.frame)

    def _resend_window(self) -> None:
        """Go back N: send every unacked frame again, oldest first, as room in flight allows."""
        self._to_send.clear()
        self._to_send.extend(self._window.pending())
        self._flush()

    def _flush(self) -> None:
        """Send the reliable frames waiting to be (re)sent, oldest first, while they fit in flight."""
        while self._to_send:
            entry = self._to_send[0]
            if entry.acked:
                self._to_send.popleft()
                continue
            if not self._flight.has_room(len(entry.frame), keep_bytes=_QUERY_BYTES):
                return
            self._to_send.popleft()
            self._send_entry(entry)

    def _heartbeat(self, now_s: float) -> None:
        """Keep the watchdog fed: a short PING, or a STATUS when the last one is older than ``status_every_s``
        (STATUS shows a reboot and what was done; PONG is short, so it survives a noisy line more often)."""
        if self._suspect_reset or now_s - max(self._status_s, self._status_asked_s) >= self.status_every_s:
            self.ask_status()
        else:
            self.send_ping()

    def send_ping(self) -> str:
        """Send a PING with a fresh token and remember when; returns the token."""
        self._ping_count += 1
        token = str(self._ping_count)
        if len(self._pings) >= _MAX_PINGS:
            del self._pings[next(iter(self._pings))]  # its PONG was lost
        while len(self._pong_rtt_s) >= _MAX_PINGS:
            del self._pong_rtt_s[next(iter(self._pong_rtt_s))]  # nobody asked for it
        sent_s, order = self.clock.now_s(), self._frames_written + 1
        if self.send_immediate(protocol.PING, [token]):
            self._pings[token] = (sent_s, order)
        return token

    def ask_status(self) -> None:
        """Send a STATUS request (acted on at once by the board whatever its seq), if there is room in flight."""
        self.send_immediate(protocol.STATUS)

    def _ask_if_reset(self) -> None:
        """A frame hints at a reboot or a lost answer: ask STATUS now, and again each :meth:`_reask_s` until one
        comes (a long STATUS or HELLO is often spoiled on a noisy line: asking often shows a reboot soon)."""
        self._suspect_reset = True
        if self.clock.now_s() - self._status_asked_s >= self._reask_s():
            self.send_immediate(protocol.STATUS, urgent=True)

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
        self._window.clear()
        self._to_send.clear()
        self._flight.clear()
        self._open_cmds.clear()
        shown = ", ".join(map(str, unknown[:8])) + (" ..." if len(unknown) > 8 else "")
        self._reset = BoardReset(
            f"board at {self.url!r} was reset (boot id {self.boot_id} -> {new_boot_id}, cause {cause}):"
            f" {len(unknown)} unfinished command(s) [{shown}] have unknown fate and were not replayed",
            old_boot_id=self.boot_id,
            new_boot_id=new_boot_id,
            unknown_cmd_ids=unknown,
        )
        self.last_done_cmd = 0
        self.last_sent_cmd = 0
        self.last_status = None
        raise self._reset
