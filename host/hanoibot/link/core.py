"""The link engine a :class:`~hanoibot.link.session.Session` holds: port, handshake, frames in, timers, frames out.

:class:`LinkCore` owns the port and composes the parts of the link, each with one job, each given the parts it
needs: :func:`~hanoibot.link.handshake.shake_hands` (SYNC until a HELLO), :class:`~hanoibot.link.dispatch.
FrameDispatch` (each frame from the board acted on), :class:`~hanoibot.link.timer_loop.TimerLoop` (what each timer
does), :class:`~hanoibot.link.heard.Heard` (what the board said), :class:`~hanoibot.link.sender.Sender` (the window
of reliable frames and the bytes in flight), :class:`~hanoibot.link.probe.Questions` (PINGs, STATUS requests,
heartbeats), :class:`~hanoibot.link.watch.BoardWatch` (reboot and takeover), :class:`~hanoibot.link.estop_relay.
EstopRelay` (``hanoibot estop`` from another process), :class:`~hanoibot.link.rtt.RttEstimator` (the resend
timeout) and :class:`~hanoibot.link.trace.FrameTrace` (the last frames, attached to the errors it raises).

Its public surface is small: :meth:`~LinkCore.open`, :meth:`~LinkCore.send_reliable` (sequenced, acked, resent),
:meth:`~LinkCore.send_immediate` (ESTOP, STATUS, PING: acted on at once, never queued), :meth:`~LinkCore.service`
(read, act, run timers), :meth:`~LinkCore.request` (the one send-wait-resend loop) and the counters.

A frame whose ack is overdue (twice the recent minimum round trip) is asked about with a PING, and so is a spoiled
answer the host was waiting for; the adaptive RTO is the fallback. When idle, a heartbeat keeps the firmware
watchdog fed and shows a reboot quickly. A slow board is never flooded: every frame but ESTOP waits until the bytes
in flight leave room for it. Every blocking read is bounded by the next timer, and on a simulator it advances the
simulator's virtual clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import NoReturn

import serial
from hanoifw import protocol
from hanoifw.rxframe import FrameReader

from ..clock import Clock, WallClock
from ..errors import BadCommand, LinkError, PortError
from .board_port import BoardPort, board_port_of
from .board_reads import BoardReads
from .codes import Kind
from .control import ControlServer
from .dispatch import FrameDispatch
from .estop_relay import EstopRelay
from .handshake import shake_hands
from .heard import Heard
from .port import READ_QUANTUM_S, close_quietly, open_port, read_available, reopen_port
from .port_lock import PortLock
from .probe import PingSent, Questions
from .rtt import RttEstimator
from .sender import Sender
from .timer_loop import TimerLoop
from .timers import read_wait_s
from .trace import FrameTrace
from .watch import BoardWatch
from .window import Pending


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
        #: What this session heard from the board (its HELLO, its last STATUS, how far its commands got).
        self.heard = Heard()
        #: The last frames written and read (see :mod:`hanoibot.link.trace`).
        self.trace = FrameTrace()
        self.sender = Sender(self._write_port, self._now_s, window=window)
        self.reads = BoardReads()
        self.questions = Questions(heartbeat_s=heartbeat_s, status_every_s=status_every_s)
        self.watch = BoardWatch(url)
        self.estop_relay = EstopRelay()
        #: Acts on each frame from the board (see :mod:`hanoibot.link.dispatch`).
        self.frames = FrameDispatch(
            heard=self.heard,
            sender=self.sender,
            rtt=self.rtt,
            questions=self.questions,
            reads=self.reads,
            watch=self.watch,
            estop_relay=self.estop_relay,
            now_s=self._now_s,
            link=self,
        )
        #: Runs the timers (see :mod:`hanoibot.link.timer_loop`).
        self.timers = TimerLoop(
            heard=self.heard,
            sender=self.sender,
            rtt=self.rtt,
            questions=self.questions,
            watch=self.watch,
            now_s=self._now_s,
            link=self,
            silence_s=silence_s,
            url=url,
        )
        self._rng: random.Random = random.SystemRandom()
        self._port: serial.SerialBase | None = None
        self._board_port: BoardPort | None = None
        self._read_timeout_s: float | None = None
        self._reader = FrameReader()
        self._handshaking = False
        self._question_arrives_s = 0.0  # when the last PING or STATUS reaches the board's end of the line
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
        self.heard.open_cmds.clear()
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
        self.heard.board_seq = None
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
        """SYNC until a HELLO answers it (see :func:`~hanoibot.link.handshake.shake_hands`). No timer runs while
        handshaking, so reads block (and let sim:// time pass) even when a timer of the session being reopened is
        overdue; otherwise a lost HELLO meant a busy loop, endless on sim://."""
        self._handshaking = True
        try:
            shake_hands(
                self,
                self,
                url=self.url,
                handshake_s=self.handshake_s,
                rng=self._rng,
                now_s=self._now_s,
                pin_reads=self.frames.pin_reads,
            )
        finally:
            self._handshaking = False

    def read_frames(self) -> list[tuple[str, int, int, list[str]]]:
        """One blocking read, as whole frames (for the handshake)."""
        frames: list[tuple[str, int, int, list[str]]] = self._reader.feed(self._read(wait=True))
        return frames

    def spoiled_lines(self) -> list[bytes]:
        """The first bytes of each line the last read dropped as damaged."""
        spoiled: list[bytes] = self._reader.spoiled
        return spoiled

    # --- the service loop ----------------------------------------------------------------------------
    def service(self, *, wait: bool) -> None:
        """Read and act on frames, run the timers, and raise what the board reported (``wait``: block until a
        frame comes or a timer is due, at most READ_QUANTUM_S)."""
        verdict = self.watch.verdict()
        if verdict is not None:
            raise verdict
        self.estop_relay.serve(
            self.control(),
            now_s=self.clock.now_s(),
            statuses=self.heard.statuses,
            resend_s=self.resend_timeout_s(),
            send_estop=lambda: self.send_immediate(Kind.ESTOP),
        )
        damaged = self.damaged_lines()
        for frame in self._reader.feed(self._read(wait=wait)):
            self.frames.on_frame(*frame)
            self.heard.heard_s = self.clock.now_s()
        if self.damaged_lines() > damaged:
            self.heard.heard_s = self.clock.now_s()
            # The board answered but the line spoiled the answer: the board is as quick as its round trips say,
            # so drop the back-off; lost frames are then resent a measured resend timeout later, not a doubled
            # one, and on a noisy line enough of them fit in the silence bound.
            self.rtt.clear_back_off()
            if not all(Kind.DONE.starts(line) for line in self._reader.spoiled):
                self._ask_after_spoiled_answer()  # (a line that still reads DONE answered nothing)
        self.timers.run()
        if self.heard.errors:
            raise self.traced(self.heard.errors.pop(0))

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
        return read_wait_s(self.timers.deadlines(), self.clock.now_s(), READ_QUANTUM_S)

    def damaged_lines(self) -> int:
        """Lines from the board dropped so far because they were damaged (bad CRC, malformed, oversized)."""
        reader = self._reader
        return int(reader.bad_crc + reader.malformed + reader.oversized)

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

    def session_taken_over(self) -> NoReturn:
        """Record and raise SessionTakenOver: from now on every service call raises it (nothing more is sent)."""
        raise self.traced(self.watch.taken_over())

    def control(self) -> ControlServer | None:
        """The port's control socket (``hanoibot estop``), while its lock is held."""
        return self._lock.control if self._lock is not None else None

    def traced(self, err: LinkError) -> LinkError:
        """``err`` with the last frames on the wire attached (see :mod:`hanoibot.link.trace`)."""
        err.frame_trace = self.trace.lines()
        return err

    # --- sending -------------------------------------------------------------------------------------
    def send_reliable(self, kind: str, fields: Sequence[str | int] = (), *, cmd_id: int | None = None) -> Pending:
        """Wait for room in the window, then send a sequenced frame that is resent until acked (a MOVE's
        ``cmd_id`` is kept in the window so its fate is known after a reset)."""
        while self.sender.window.is_full:
            self.service(wait=True)
        return self.sender.add(kind, fields, ack=self.heard.rx_ack(), cmd_id=cmd_id)

    def send_immediate(self, kind: str, fields: Sequence[str | int] = (), *, urgent: bool = False) -> bool:
        """Send a frame the board acts on at once whatever its seq (ESTOP, STATUS, PING); never resent. All but
        ESTOP and ``urgent`` ones need room in flight: False (nothing sent; ask again later) when there is none."""
        frame = protocol.encode(kind, self.sender.window.next_seq, self.heard.rx_ack(), list(fields))
        if not urgent and kind != Kind.ESTOP and not self.sender.flight.has_room(len(frame)):
            return False
        order = self.sender.next_order
        if kind in (Kind.STATUS, Kind.PING):
            self.questions.asked(kind == Kind.STATUS, order, self.clock.now_s())
        self.sender.write(frame)  # counted in flight
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

    def send_ping(self) -> str:
        """Send a PING with a fresh token and remember when; returns the token."""
        token = self.questions.new_ping_token()
        sent_s = self.clock.now_s()
        order = self.sender.next_order
        if self.send_immediate(Kind.PING, [token]):
            self.questions.ping_sent(token, PingSent(sent_s, order, self.sender.bytes_written))
        return token

    def ask_status(self) -> None:
        """Send a STATUS request (acted on at once by the board whatever its seq), if there is room in flight."""
        self.send_immediate(Kind.STATUS)

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

    def ask_if_reset(self) -> None:
        """A frame hints at a reboot or a lost answer: ask STATUS now, and again each :meth:`TimerLoop.reask_s`
        until one comes (a long STATUS or HELLO is often spoiled on a noisy line: asking often shows a reboot
        soon)."""
        self.watch.suspect_reset = True
        if self.clock.now_s() - self.questions.status_asked_s >= self.timers.reask_s():
            self.send_immediate(Kind.STATUS, urgent=True)

    def board_reset(self, new_boot_id: str, cause: str) -> NoReturn:
        """Record and raise BoardReset: unfinished commands have unknown fate and are dropped, never replayed."""
        unknown = self.heard.forget_boot()
        self.sender.clear()
        raise self.traced(self.watch.reset(new_boot_id, cause, unknown))
