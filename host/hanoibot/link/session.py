"""The host end of the wire: a reliable, checked session with one board over any pyserial URL.

:meth:`Session.open` opens the port, discards noise until the first valid frame, sends SYNC and checks the
board's HELLO (protocol version: a mismatch is one clear ProtocolMismatch; boot id, channels, queue depth).
:meth:`Session.send_move` streams MOVEs through a window of ``window`` frames and never lets more MOVEs be
unfinished than the board can queue; :meth:`Session.wait_done` services the link until a command is done.
A changed boot id raises :class:`~hanoibot.errors.BoardReset` naming the commands whose fate is unknown; they
are never replayed into the new boot (call :meth:`Session.resync` to start over). If the port vanishes, the
session reopens it within ``reconnect_s`` and carries on if the board kept its boot id. Retransmission,
heartbeat and the silence bound live in :mod:`hanoibot.link.core`.
"""

from __future__ import annotations

from collections.abc import Sequence

from hanoifw import protocol

from ..errors import BadCommand, BoardError, LinkTimeout
from .core import LinkCore
from .status import Status


class Session(LinkCore):
    """One host session with one board; a context manager (``with Session(url) as s: ...``).

    ``window`` frames may be unacked at once; ``silence_s`` is the silence bound before LinkLost; the port is
    reopened within ``reconnect_s`` if it vanishes (0 = raise PortError instead).
    """

    def __enter__(self) -> Session:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def open(self) -> None:
        """Open the port, discard noise and shake hands; ProtocolMismatch or LinkTimeout if that fails."""
        self._open_port()
        self._handshake()

    def resync(self) -> None:
        """After :class:`BoardReset`: start a fresh session with the rebooted board (nothing is replayed)."""
        self._reset = None
        self._window.clear()
        self._open_cmds.clear()
        self.boot_id = ""
        self._handshake()

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
        self._wait_acked(self._send_reliable(protocol.CONFIG, fields))
        status = self.status()
        if status.mode == "UNCONFIGURED" or status.is_stopped:
            raise BoardError(f"board did not take CONFIG: mode {status.mode}, faults {status.faults or 'none'}")

    def release(self) -> None:
        """Switch every servo output off on purpose (the arm goes limp); a new :meth:`configure` switches them on."""
        self._wait_acked(self._send_reliable(protocol.RELEASE, []))
        self.last_status = None

    def send_move(self, cmd_id: int, pulses_us: Sequence[int], duration_ms: int) -> None:
        """Queue MOVE ``cmd_id`` (targets in µs per channel, over ``duration_ms`` ms); blocks only while the
        window or the board's queue is full."""
        self._check_channels("pulses_us", pulses_us)
        if not self.last_sent_cmd < cmd_id <= protocol.MAX_CMD_ID:
            raise BadCommand(
                f"cmd_id {cmd_id} is invalid: expected {self.last_sent_cmd + 1}..{protocol.MAX_CMD_ID} (increasing)"
            )
        max_duration_ms = int(self.hello.get("max_duration_ms", 60000))
        if not 1 <= duration_ms <= max_duration_ms:
            raise BadCommand(f"duration {duration_ms} ms is invalid: expected 1..{max_duration_ms} ms")
        while self._window.is_full or len(self._unfinished()) >= self.queue_depth:
            self._service(wait=True)
            self._raise_if_stopped(cmd_id)
        self._send_reliable(protocol.MOVE, [cmd_id, duration_ms, *(int(p) for p in pulses_us)], cmd_id=cmd_id)
        self._open_cmds.append(cmd_id)
        self.last_sent_cmd = cmd_id

    def wait_done(self, cmd_id: int, timeout_s: float | None = None) -> None:
        """Service the link until MOVE ``cmd_id`` has finished; LinkTimeout after ``timeout_s`` s."""
        if cmd_id > self.last_sent_cmd:
            raise BadCommand(f"cmd_id {cmd_id} was never sent: expected at most {self.last_sent_cmd}")
        deadline_s = None if timeout_s is None else self.clock.now_s() + timeout_s
        while self.last_done_cmd < cmd_id:
            self._service(wait=True)
            self._raise_if_stopped(cmd_id)
            if deadline_s is not None and self.clock.now_s() >= deadline_s:
                raise LinkTimeout(
                    f"command {cmd_id} not done within {timeout_s:g} s: the board has done up to {self.last_done_cmd}"
                )

    def status(self) -> Status:
        """A STATUS report asked for now (retried every RTO; LinkLost if the board stays silent)."""
        seen = self._status_count
        self._ask_status()
        while True:
            self._service(wait=True)
            status = self.last_status
            if status is not None and self._status_count > seen:
                return status
            if self.clock.now_s() - self._status_asked_s >= self.rtt.rto_s:
                self._ask_status()

    def ping(self) -> float:
        """Round-trip time in s of one PING/PONG (a new PING every RTO until one is answered)."""
        while True:
            token = self._send_ping()
            self._wanted[token] = -1.0
            sent_s = self.clock.now_s()
            while self.clock.now_s() - sent_s < self.rtt.rto_s:
                self._service(wait=True)
                if self._wanted[token] >= 0:
                    return self._wanted.pop(token)
            del self._wanted[token]

    def hold(self) -> None:
        """Pause the motion queue at the end of nothing: the arm stops where it is (reliable, waits for ack)."""
        self._wait_acked(self._send_reliable(protocol.HOLD, []))

    def resume(self) -> None:
        """Continue the motion queue after :meth:`hold`."""
        self._wait_acked(self._send_reliable(protocol.RESUME, []))

    def clear(self) -> None:
        """Release a latched e-stop or fault (and a refused MOVE) on the board."""
        self._wait_acked(self._send_reliable(protocol.CLEAR, []))
        self.last_status = None  # the faults it showed are gone

    def estop(self) -> None:
        """Emergency stop: sent at once, repeated until a STATUS confirms the latch."""
        while True:
            seen = self._status_count
            self._transmit(protocol.encode(protocol.ESTOP, self._window.next_seq, self._rx_ack()))
            asked_s = self.clock.now_s()
            while self.clock.now_s() - asked_s < self.rtt.rto_s:
                self._service(wait=True)
                status = self.last_status
                if status is not None and self._status_count > seen and status.mode == "ESTOP":
                    return

    def poll(self) -> None:
        """Service the link without blocking: read, retransmit, heartbeat; raises what the board reported."""
        self._service(wait=False)

    def _check_channels(self, name: str, values: Sequence[int]) -> None:
        """BadCommand unless there is one value per board channel."""
        if len(values) != self.channels:
            raise BadCommand(f"{name} has {len(values)} values: expected one per channel ({self.channels})")

    def _raise_if_stopped(self, cmd_id: int) -> None:
        """BoardError when the last STATUS shows a latched fault while command ``cmd_id`` waits."""
        status = self.last_status
        if status is not None and status.is_stopped and cmd_id > status.last_done_cmd:
            raise BoardError(
                f"board stopped with command {cmd_id} pending: mode {status.mode}, faults {'|'.join(status.faults)}",
                code=status.mode,
                cmd_id=cmd_id,
            )
