"""The host end of the wire: a reliable, checked session with one board over any pyserial URL.

:meth:`Session.open` opens the port, discards noise until the first valid frame, sends SYNC and checks the
board's HELLO (protocol version: a mismatch is one clear ProtocolMismatch; boot id, channels, queue depth).
:meth:`Session.send_move` streams MOVEs through a window of ``window`` frames and never lets more MOVEs be
unfinished than the board can queue; :meth:`Session.wait_done` services the link until a command is done.
A changed boot id raises :class:`~hanoibot.errors.BoardReset` naming the commands whose fate is unknown; they
are never replayed into the new boot (call :meth:`Session.resync` to start over). If the port vanishes, the
session reopens it within ``reconnect_s`` and carries on if the board kept its boot id. Frames, retransmission,
heartbeat and the silence bound live in the :class:`~hanoibot.link.core.LinkCore` the session holds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import serial
from hanoifw import protocol

from ..clock import Clock
from ..errors import BadCommand, BoardError, LinkTimeout
from .board_port import BoardPort
from .core import LinkCore
from .dispatch import stopped_by_estop_request
from .status import Hello, Mode, Status


class Session:
    """One host session with one board; a context manager (``with Session(url) as s: ...``).

    ``link`` is a pyserial URL (the link engine gets its default settings and ``clock``), or a
    :class:`~hanoibot.link.core.LinkCore` made with other settings (window, silence bound, reconnect bound, ...).
    """

    def __init__(self, link: str | LinkCore, *, clock: Clock | None = None) -> None:
        self.core = link if isinstance(link, LinkCore) else LinkCore(link, clock=clock)
        #: What the link heard from the board: its HELLO, its last STATUS, how far the commands got.
        self.heard = self.core.heard
        self._stop_wanted: threading.Event | None = None
        self._stop_reason = ""
        self._on_tick: Callable[[], object] | None = None

    def __enter__(self) -> Session:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- what the board and the link say -------------------------------------------------------------
    @property
    def url(self) -> str:
        """The pyserial URL of the board."""
        return self.core.url

    @property
    def clock(self) -> Clock:
        """The session clock (a sim:// port's virtual clock once open)."""
        return self.core.clock

    @property
    def port(self) -> serial.SerialBase | None:
        """The pyserial port object; None before the first open."""
        return self.core.port

    @property
    def board_port(self) -> BoardPort | None:
        """The port's typed face: its own clock and, for a simulated board, the simulator; None before the first
        open."""
        return self.core.board_port

    @property
    def frame_trace(self) -> tuple[str, ...]:
        """The last frames written and read, oldest first, one line each (see :mod:`hanoibot.link.trace`)."""
        return self.core.trace.lines()

    @property
    def is_open(self) -> bool:
        """True while the port is open."""
        return self.core.is_open

    @property
    def hello(self) -> Hello | None:
        """The board's last HELLO (None before the first handshake)."""
        return self.heard.hello

    @property
    def boot_id(self) -> str:
        """The board's boot id ("" before the first handshake); a change means the board was reset."""
        return self.core.boot_id

    @property
    def channels(self) -> int:
        """Servo channels the board drives (0 before the first handshake)."""
        return self.heard.hello.channels if self.heard.hello is not None else 0

    @property
    def queue_depth(self) -> int:
        """MOVEs the board can queue (0 before the first handshake)."""
        return self.heard.hello.queue_depth if self.heard.hello is not None else 0

    @property
    def last_done_cmd(self) -> int:
        """The highest command id the board reported done in this boot."""
        return self.heard.last_done_cmd

    @property
    def last_sent_cmd(self) -> int:
        """The highest command id sent in this boot (from HELLO after a handshake: ids of other sessions too)."""
        return self.heard.last_sent_cmd

    @property
    def last_status(self) -> Status | None:
        """The last STATUS the board sent (None after a reset or a CLEAR)."""
        return self.heard.last_status

    @property
    def estop_requests(self) -> int:
        """E-stop requests other processes (``hanoibot estop``) sent to this port's control socket so far."""
        return self.core.estop_requests

    @property
    def retransmits(self) -> int:
        """Reliable frames sent again so far."""
        return self.core.retransmits

    @property
    def reconnects(self) -> int:
        """Times the port was reopened after it vanished."""
        return self.core.reconnects

    # --- commands ------------------------------------------------------------------------------------
    def open(self) -> None:
        """Open the port, discard noise and shake hands; ProtocolMismatch or LinkTimeout if that fails."""
        self.core.open()

    def close(self) -> None:
        """Close the port (the board keeps running; its watchdog holds the arm if it was moving)."""
        self.core.close()

    def reconnect(self) -> None:
        """Reopen the port and shake hands again (see :meth:`LinkCore.reconnect`)."""
        self.core.reconnect()

    def resync(self) -> None:
        """After :class:`BoardReset`: start a fresh session with the rebooted board (nothing is replayed)."""
        self.core.restart()

    def configure(
        self,
        min_us: Sequence[int],
        max_us: Sequence[int],
        start_us: Sequence[int],
        max_speeds_us_s: Sequence[int] | None = None,
        grip_threshold: int = 0,
    ) -> None:
        """Send per-channel pulse limits, start pulses (µs), top speeds (µs/s; None = the firmware's maximum) and
        the grip-current threshold (a 0..65535 ADC reading; 0 = none); returns once the board has taken them."""
        speeds = [protocol.HARD_MAX_SPEED_US_S] * len(min_us) if max_speeds_us_s is None else max_speeds_us_s
        for name, values in (("min_us", min_us), ("max_us", max_us), ("start_us", start_us), ("speeds", speeds)):
            self._check_channels(name, values)
        fields: list[str | int] = []
        for low, high, start, speed in zip(min_us, max_us, start_us, speeds, strict=True):
            fields += [int(low), int(high), int(start), int(speed)]
        fields.append(int(grip_threshold))
        self.core.wait_acked(self.core.send_reliable(protocol.CONFIG, fields))
        status = self.status()
        if status.mode == Mode.UNCONFIGURED or status.is_stopped:
            raise BoardError(f"board did not take CONFIG: mode {status.mode}, faults {status.faults or 'none'}")

    def release(self) -> None:
        """Switch every servo output off on purpose (the arm goes limp); a new :meth:`configure` switches them on."""
        self.core.wait_acked(self.core.send_reliable(protocol.RELEASE, []))
        self.heard.last_status = None

    def send_move(
        self, cmd_id: int, pulses_us: Sequence[int], duration_ms: int, *, ramp_ms: int | None = None, blend_ms: int = 0
    ) -> None:
        """Queue MOVE ``cmd_id`` (targets in µs per channel, over ``duration_ms`` ms); blocks only while the
        window or the board's queue is full.

        ``ramp_ms`` None sends the plain MOVE (minimum-jerk profile); else a trapezoidal profile with that ramp
        (0..duration/2 ms) that blends ``blend_ms`` (0..ramp) into the MOVE before it (docs/protocol.md).
        """
        self._stop_if_wanted()
        self._check_channels("pulses_us", pulses_us)
        if not self.last_sent_cmd < cmd_id <= protocol.MAX_CMD_ID:
            raise BadCommand(
                f"cmd_id {cmd_id} is invalid: expected {self.last_sent_cmd + 1}..{protocol.MAX_CMD_ID} (increasing)"
            )
        max_duration_ms = self.heard.hello.max_duration_ms if self.heard.hello is not None else 60000
        if not 1 <= duration_ms <= max_duration_ms:
            raise BadCommand(f"duration {duration_ms} ms is invalid: expected 1..{max_duration_ms} ms")
        fields = [cmd_id, duration_ms, *(int(p) for p in pulses_us)]
        if ramp_ms is not None:
            if not 0 <= ramp_ms <= duration_ms // 2:
                raise BadCommand(f"ramp {ramp_ms} ms is invalid: expected 0..{duration_ms // 2} ms (half the duration)")
            if not 0 <= blend_ms <= ramp_ms:
                raise BadCommand(f"blend {blend_ms} ms is invalid: expected 0..{ramp_ms} ms (the ramp)")
            fields += [ramp_ms, blend_ms]
        while self.core.window_is_full or len(self.heard.unfinished()) >= self.queue_depth:
            self.core.service(wait=True)
            self._raise_if_stopped(cmd_id)
        self.core.send_reliable(protocol.MOVE, fields, cmd_id=cmd_id)
        self.heard.note_move_sent(cmd_id)

    def skip_cmd_ids(self, up_to: int) -> None:
        """Never send a MOVE with an id up to ``up_to``: the next one must be higher (ids another command may have
        planned stay unused)."""
        self.heard.last_sent_cmd = max(self.heard.last_sent_cmd, up_to)

    def wait_done(self, cmd_id: int, timeout_s: float | None = None) -> None:
        """Service the link until MOVE ``cmd_id`` has finished; LinkTimeout after ``timeout_s`` s."""
        if cmd_id > self.last_sent_cmd:
            raise BadCommand(f"cmd_id {cmd_id} was never sent: expected at most {self.last_sent_cmd}")
        deadline_s = None if timeout_s is None else self.clock.now_s() + timeout_s
        while self.last_done_cmd < cmd_id:
            self._stop_if_wanted()
            self.core.service(wait=True)
            self._raise_if_stopped(cmd_id)
            if deadline_s is not None and self.clock.now_s() >= deadline_s:
                raise LinkTimeout(
                    f"command {cmd_id} not done within {timeout_s:g} s: the board has done up to {self.last_done_cmd}"
                )
            if self._on_tick is not None:
                self._on_tick()

    def status(self) -> Status:
        """A STATUS report asked for now: one the board made after it read this request, never the answer to an
        earlier one (a heartbeat's) still on its way (asked again every resend timeout; LinkLost if the board
        stays silent)."""
        tokens: list[str] = []
        try:
            self.core.request(
                lambda: tokens.append(self.core.ask_fresh_status()), lambda: self.core.fresh_status_came(tokens)
            )
        finally:
            self.core.forget_fresh_status(tokens)
        assert self.heard.last_status is not None  # a STATUS came in
        return self.heard.last_status

    def ping(self) -> float:
        """Round-trip time in s of one PING/PONG (a new PING every resend timeout until one is answered)."""
        tokens: list[str] = []
        answers: list[float] = []

        def send() -> None:
            tokens.append(self.core.send_ping())

        def answered() -> bool:
            rtt_s = self.core.take_pong_rtt_s(tokens[-1])
            if rtt_s is not None:
                answers.append(rtt_s)
            return bool(answers)

        self.core.request(send, answered)
        return answers[0]

    def hold(self) -> None:
        """Pause the motion queue at the end of nothing: the arm stops where it is (reliable, waits for ack)."""
        self.core.wait_acked(self.core.send_reliable(protocol.HOLD))

    def resume(self) -> None:
        """Continue the motion queue after :meth:`hold`."""
        self.core.wait_acked(self.core.send_reliable(protocol.RESUME))

    def clear(self) -> None:
        """Release a latched e-stop or fault (and a refused MOVE) on the board."""
        self.core.wait_acked(self.core.send_reliable(protocol.CLEAR))
        self.heard.last_status = None  # the faults it showed are gone

    def estop(self) -> None:
        """Emergency stop: sent at once, repeated until a STATUS confirms the latch."""
        seen = self.heard.statuses

        def latched() -> bool:
            status = self.heard.last_status
            return status is not None and self.heard.statuses > seen and status.mode == Mode.ESTOP

        self.core.request(lambda: self.core.send_immediate(protocol.ESTOP), latched)

    def stop_when(self, wanted: threading.Event, reason: str, on_tick: Callable[[], object] | None = None) -> None:
        """The fast path of an e-stop asked for in this process (a button, from any thread): once ``wanted`` is
        set, the next MOVE sent or the wait for one (checked after every read of the link, at most
        READ_QUANTUM_S apart) latches ESTOP on the board at once and raises BoardError(``reason``, code ESTOP),
        which a run's sequencer turns into its e-stopped state. ``on_tick()`` runs after each of those reads (a
        live view)."""
        self._stop_wanted, self._stop_reason, self._on_tick = wanted, reason, on_tick

    def _stop_if_wanted(self) -> None:
        """If an e-stop was asked for (:meth:`stop_when`): latch it on the board now and raise BoardError."""
        if self._stop_wanted is not None and self._stop_wanted.is_set():
            self.estop()
            raise BoardError(self._stop_reason, code=protocol.FAULT_ESTOP)

    def poll(self) -> None:
        """Service the link without blocking: read, retransmit, heartbeat; raises what the board reported."""
        self.core.service(wait=False)

    def _check_channels(self, name: str, values: Sequence[int]) -> None:
        """BadCommand unless there is one value per board channel."""
        if len(values) != self.channels:
            raise BadCommand(f"{name} has {len(values)} values: expected one per channel ({self.channels})")

    def _raise_if_stopped(self, cmd_id: int) -> None:
        """BoardError when the last STATUS shows a latched fault while command ``cmd_id`` waits."""
        status = self.last_status
        if status is not None and status.is_stopped and cmd_id > status.last_done_cmd:
            if status.mode == Mode.ESTOP and self.core.estop_requests:
                text = stopped_by_estop_request(cmd_id)
            else:
                faults = "|".join(status.faults)
                text = f"board stopped with command {cmd_id} pending: mode {status.mode}, faults {faults}"
            err = BoardError(text, code=status.mode, cmd_id=cmd_id)
            err.frame_trace = self.frame_trace
            raise err
