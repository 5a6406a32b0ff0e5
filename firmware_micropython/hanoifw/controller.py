"""The firmware core: frames in, servo pulses and frames out. No I/O, no clock: ``main.py`` or the simulator
calls :meth:`Controller.feed` with received bytes and :meth:`Controller.step` with the time at least every
20 ms (50 Hz); ``step`` returns the bytes to send. Neither ever raises.

Safety rules enforced here (docs/protocol.md has the wire side):

* no PWM output until the first CONFIG gives limits and start pulses (no power-up jump); then the outputs are
  switched on one at a time (:mod:`hanoifw.outputs`), and motion waits until all are on;
* a MOVE with a pulse outside its channel's limits, or faster than its channel's CONFIG speed, is refused with
  ERROR, never clamped;
* servo power lost (the rail sense input reads low for RAIL_LOW_SAMPLES control steps in a row: e-stop pressed,
  supply off; a bounce or a short sag is not a loss) latches POWER_LOST and releases every output, so nothing
  slams back when power returns; CLEAR and a new CONFIG re-enable them one by one;
* RELEASE switches every output off on purpose (a new CONFIG switches them on again, staggered);
* host silence longer than ``watchdog_ms`` while moving holds the pose and latches HOST_LOST;
* ESTOP holds the pose (the servos stay powered so a raised arm does not fall), discards all queued motion and
  is latched, like every fault, until CLEAR;
* the grip verdict is the gripper current averaged over the latest PWM frame, from readings that cover it
  (:mod:`hanoifw.sensing`: none unless no two readings are more than two sample periods apart), and there is none
  while the gripper output is off or the rail reads low: an undriven or unpowered servo holds nothing, and a bus
  servo's last answer from before the rail went down would still say it does;
* servos on a bus (:mod:`hanoifw.busservos`: a HAL with ``poll``) are polled once per control step, whatever the
  mode: their goals go out, their answers come in, and STATUS reports where each one is; a servo that stops
  answering latches SERVO_SILENT, with an ERROR naming its channel and bus id (CLEAR asks it again: one still
  silent latches again within ``tries`` control periods, one whose rail came back answers). Every mode does with
  bus servos what it does with PWM outputs: RELEASE and POWER_LOST switch their torque off, ESTOP and HOST_LOST
  hold the pose (torque on, the goals no longer change).
"""

from hanoifw import FW_VERSION, reports
from hanoifw import protocol as p
from hanoifw.commands import MoveCommand, check_speeds, parse_config
from hanoifw.motion import MAX_DURATION_MS, Motion
from hanoifw.outputs import Outputs
from hanoifw.rxframe import RxFrame
from hanoifw.rxwindow import AHEAD, DUPLICATE, IN_ORDER, RxWindow
from hanoifw.sensing import GripMeter, RailWatch
from hanoifw.ticks import TICKS_PERIOD, ticks_diff_ms
from hanoifw.txframes import TxFrames

HARD_MIN_PULSE_US = p.HARD_MIN_PULSE_US  # no CONFIG may set a limit outside these
HARD_MAX_PULSE_US = p.HARD_MAX_PULSE_US
MAX_CHANNELS = 9  # a CONFIG carries 4 values per channel and one more: at most protocol.MAX_FIELDS
MAX_STEP_MS = 20  # cap of one step's time (two 10 ms periods): a late step slows motion instead of jumping it
MAX_PENDING_FRAMES = 32  # outgoing frames kept between steps; more are dropped and counted
# Least time between two polls of a servo bus: the board's loop steps every 10 ms, but a caller that steps on input
# too (the simulator) must not ask the bus again before the answer to the last READ came (its return delay and
# its bytes: under 1 ms at 1 Mbaud, about 2.5 ms at 115200 baud)
BUS_POLL_MIN_MS = 5
__all__ = ["TICKS_PERIOD", "Controller", "ticks_diff_ms"]
# Bounds that keep every frame the board sends under protocol.MAX_FRAME_LEN, even with 16 channels
MAX_NAME_LEN = 12  # boot_id, reset_cause, fw_version
MAX_FAULTS = 4  # latched fault names kept (ESTOP is always kept on top)
MAX_FAULT_NAME_LEN = 14
MAX_TOKEN_LEN = 32  # PING token echoed in PONG

# The board words (protocol.py defines them once)
ESTOP_FAULT = p.FAULT_ESTOP
HOST_LOST = p.FAULT_HOST_LOST
INTERNAL = p.FAULT_INTERNAL
LIMIT_FAULT = p.FAULT_LIMIT  # a computed pulse left its limits (cannot happen; checked anyway before output)
POWER_LOST = p.FAULT_POWER_LOST
SERVO_SILENT = p.FAULT_SERVO_SILENT

MODE_UNCONFIGURED = p.MODE_UNCONFIGURED
MODE_IDLE = p.MODE_IDLE
MODE_MOVING = p.MODE_MOVING
MODE_HELD = p.MODE_HELD
MODE_ESTOP = p.MODE_ESTOP
MODE_FAULT = p.MODE_FAULT
MODE_BOARD_ERROR = p.MODE_BOARD_ERROR


class Controller:
    """Command dispatch, motion queue, watchdog and fault latch of one board.

    ``servos`` has ``set_pulse_us(channel, pulse_us)`` and ``release(channel)``; ``grip_sensor`` (or None) has
    ``read_u16() -> int`` (the supply current of the gripper servo, channel ``grip_channel`` (default: the last),
    as a 0..65535 ADC reading: a held disk stalls the driven servo, so the reading is high); ``rail_sense`` (or
    None) has ``value() -> int`` (1 while the servo rail is powered): the rail is sampled at every step; the grip
    sensor by a timer at a fixed rate (:meth:`grip_timer_callback`), or, where the board has none, at every step
    and every :meth:`sample_sensors` between steps. ``held_us`` (or None) are pulses the outputs were
    found giving at boot (a PCA9685 keeps running through an MCU reset): they are reported and kept. ``boot_id``
    is random per boot. ``min_pulse_us``/
    ``max_pulse_us`` bound every CONFIG limit; ``max_step_ms`` caps the time one ``step`` may advance motion (a
    simulator running faster than real time raises it); ``stagger_ms`` and ``enable_order`` set how outputs are
    switched on (see :class:`~hanoifw.outputs.Outputs`). ``board_error`` (non-empty: board_config.py does not
    fit the chip) makes mode BOARD_ERROR: no output is ever switched on, CONFIG and MOVE are refused naming it.
    """

    def __init__(
        self,
        servos,
        *,
        channels: int = 5,
        boot_id: str,
        reset_cause: str = "power",
        queue_depth: int = 8,
        watchdog_ms: int = 300,
        grip_sensor=None,
        rail_sense=None,
        held_us=None,
        fw_version: str = FW_VERSION,
        min_pulse_us: int = HARD_MIN_PULSE_US,
        max_pulse_us: int = HARD_MAX_PULSE_US,
        max_step_ms: int = MAX_STEP_MS,
        stagger_ms: int = 200,
        enable_order=None,
        grip_channel: int = -1,
        board_error: str = "",
    ) -> None:
        if not 1 <= channels <= MAX_CHANNELS:
            raise ValueError("channels=%r: expected 1..%d" % (channels, MAX_CHANNELS))
        if queue_depth < 1:
            raise ValueError("queue_depth=%r: expected at least 1" % (queue_depth,))
        for name, text in (("boot_id", boot_id), ("reset_cause", reset_cause), ("fw_version", fw_version)):
            if not (0 < len(text) <= MAX_NAME_LEN and p.is_field_text(text)):
                raise ValueError("%s=%r: expected 1-%d printable characters" % (name, text, MAX_NAME_LEN))
        self.servos = servos
        self.channels = channels
        self.boot_id = boot_id
        self.reset_cause = reset_cause
        self.queue_depth = queue_depth
        self.watchdog_ms = watchdog_ms
        self.grip_sensor = grip_sensor
        self.grip = GripMeter(grip_sensor)
        self.grip_timed = False  # True while a timer samples the grip current (grip_timer_callback), not the loop
        self._grip_ticks_ms = None
        self.grip_channel = grip_channel if grip_channel >= 0 else channels - 1
        self.grip_threshold = 0  # from CONFIG; 0 = not set: STATUS says "unknown"
        self.rail_sense = rail_sense
        self.rail = RailWatch(rail_sense)
        # Why board_config.py does not fit this chip (main.py): every CONFIG and MOVE is refused, naming it
        self.board_error = p.clean_text(board_error, p.MAX_BOARD_ERROR_LEN)
        self.fw_version = fw_version
        self.hard_min_us = min_pulse_us
        self.hard_max_us = max_pulse_us
        self.max_step_ms = max_step_ms
        self.reader = RxFrame()  # the frame being handled, parsed in place
        self._held_reader = RxFrame()  # a frame kept ahead of a lost one, parsed again when its turn comes
        self.rx_count = 0  # bytes fed since boot, modulo 2**16
        self._frame_end_count = 0  # rx_count at the end of the frame being handled
        self.rx = RxWindow()
        self.tx = TxFrames(MAX_PENDING_FRAMES)
        self._move_cmd = MoveCommand(channels)
        self.motion = Motion(channels, queue_depth)
        self.min_us = [min_pulse_us] * channels
        self.max_us = [max_pulse_us] * channels
        self.max_speeds_us_s = [p.HARD_MAX_SPEED_US_S] * channels
        self.outputs = Outputs(servos, channels, stagger_ms=stagger_ms, order=enable_order, held_us=held_us)
        # A HAL on a servo bus (hanoifw.busservos) is polled every step, reports positions and takes top speeds
        self._poll_servos = getattr(servos, "poll", None)
        self.measure = getattr(servos, "measured_us", None)
        self._set_speed = getattr(servos, "set_speed_us_s", None)
        self._forget_misses = getattr(servos, "forget_misses", None)
        self._last_poll_ms: int | None = None
        self.pulses_us = list(self.outputs.written_us)  # commanded pose; 0 = no output
        self._done_ids: list[int] = []
        self.is_configured = False
        self.is_held = False
        self.faults: list[str] = []
        self.last_queued_cmd = 0  # highest cmd id ever accepted in this boot
        self.refused_cmd = 0  # the MOVE that was refused as invalid (-1 if its id was unreadable); 0 = none
        self.last_done_cmd = 0
        self.tx_seq = 0
        self.tx_dropped = 0
        self.internal_errors = 0
        self.last_error = ""
        self._ack_due = False
        self._ack_plain = True  # the due ACK says only what any frame's ack says: another frame may carry it
        self._hello_due = True  # announce the boot on the first step
        self._rx_seen = False
        self._last_rx_ms = 0
        self._last_step_ms: int | None = None
        self._now_ms = 0

    # ---- public API -----------------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        """One of BOARD_ERROR, UNCONFIGURED, IDLE, MOVING, HELD, ESTOP, FAULT."""
        if self.board_error:
            return MODE_BOARD_ERROR
        if ESTOP_FAULT in self.faults:
            return MODE_ESTOP
        if self.faults:
            return MODE_FAULT
        if not self.is_configured:
            return MODE_UNCONFIGURED
        if self.is_held:
            return MODE_HELD
        return MODE_MOVING if self.motion.is_busy else MODE_IDLE

    @property
    def is_driving(self) -> bool:
        """True while any servo output gives pulses (or is about to, during the staggered enable)."""
        if self.outputs.is_enabling:
            return True
        for pulse_us in self.outputs.written_us:
            if pulse_us:
                return True
        return False

    def feed(self, data) -> None:
        """Take received bytes (bytes, bytearray or memoryview); act on every complete frame in them. Never
        raises. Each frame is handled where it lies in the received bytes (see :mod:`hanoifw.rxframe`)."""
        reader = self.reader
        try:
            if not isinstance(data, bytes):
                data = bytes(data)  # one copy, so the receiver can search and check it with bytes methods
            pos = 0
            end = len(data)
            base = self.rx_count
            self.rx_count = (base + end) & 0xFFFF  # modulo protocol.SEQ_MOD
            damaged = reader.bad_crc + reader.malformed + reader.oversized
            while pos < end:
                pos = reader.take(data, pos)
                if reader.is_frame():
                    self._rx_seen = True
                    self._frame_end_count = (base + pos) & 0xFFFF
                    self._handle(reader)
            if self.rx.has_session and reader.bad_crc + reader.malformed + reader.oversized != damaged:
                self._ack_news()  # a damaged line: the ACK's count shows the host that a frame was lost
        except Exception as err:  # a bug must not kill the loop: stop safely and say so
            self._internal(err)

    def step(self, now_ms: int) -> bytes:
        """Advance motion and the watchdog to ``now_ms`` (a tick count in ms) and return the frames to send."""
        out = self.step_view(now_ms)
        return bytes(out) if out else b""

    def step_view(self, now_ms: int) -> memoryview:
        """:meth:`step`, returning the frames as a view of the send buffer (valid until the next frame is queued:
        write it out at once). What the board's loop calls: no new bytes object per step."""
        if self._ack_due and not self._ack_plain:
            self._send_ack()  # news of a lost frame goes before the step's DONEs: the host waits on it
        try:
            self._step(now_ms)
            if self._poll_servos is not None:
                last = self._last_poll_ms
                if last is None or ticks_diff_ms(now_ms, last) >= BUS_POLL_MIN_MS:
                    self._last_poll_ms = now_ms
                    self._poll_bus(now_ms)
        except Exception as err:
            self._internal(err)
        return self.replies_view()

    def replies_view(self) -> memoryview:
        """The frames queued since the last step (and the ACK of frames taken since), without a step: what the
        board's loop sends when input wakes it between two steps. A view, like :meth:`step_view`."""
        if self._ack_due:
            self._send_ack()
        return self.tx.take()

    def latch_fault(self, name: str) -> None:
        """Latch fault ``name`` (e.g. COLLISION): hold the pose, drop queued motion; only CLEAR releases it."""
        name = p.clean_text(name.replace("|", "_"), MAX_FAULT_NAME_LEN) or INTERNAL
        if name not in self.faults and (len(self.faults) < MAX_FAULTS or name == ESTOP_FAULT):
            self.faults.append(name)
        self.motion.clear()

    def estop(self) -> None:
        """Latch ESTOP (what the ESTOP frame and a Ctrl-C on the board do)."""
        self.latch_fault(ESTOP_FAULT)

    def release(self) -> None:
        """Switch every output off (the servos go limp) and forget the CONFIG: a new one re-enables them."""
        self.outputs.release_all()
        for ch in range(self.channels):
            self.pulses_us[ch] = 0
        self.motion.clear()
        self.is_configured = False
        self.is_held = False

    def sample_sensors(self, now_ms: int) -> None:
        """Take one grip-current sample at ``now_ms``: the board's loop calls this every few ms between steps
        where no timer samples (see :meth:`grip_timer_callback`); it does nothing while one does. Never raises."""
        if not self.grip_timed:
            self.grip.sample(now_ms, self.outputs.written_us[self.grip_channel] != 0 and self.rail.level != 0)

    def grip_timer_callback(self, ticks_ms):
        """The callback for a ``machine.Timer`` that samples the grip current at a fixed rate: each call (with the
        timer as its argument) takes one sample at ``ticks_ms()`` (``time.ticks_ms``). It allocates nothing, so it
        may run as a hard interrupt, also in the middle of a garbage collection. The bound method is made here,
        once. Set :attr:`grip_timed` once the timer runs: the loop and the step then leave the sampling to it
        (one writer of the meter's ring)."""
        self._grip_ticks_ms = ticks_ms
        return self._on_grip_timer

    def _on_grip_timer(self, _timer) -> None:
        """One timed grip sample (hard interrupt or scheduled callback): no allocation, never raises."""
        driven = self.outputs.written_us[self.grip_channel] != 0 and self.rail.level != 0
        self.grip.sample(self._grip_ticks_ms(), driven)

    def report_status(self) -> None:
        """Queue a STATUS frame for the next ``step`` (unasked, e.g. after a Ctrl-C on the board)."""
        self._send_status()

    # ---- time -----------------------------------------------------------------------------------------
    def _step(self, now_ms: int) -> None:
        last = self._last_step_ms
        dt_ms = 0 if last is None else min(max(ticks_diff_ms(now_ms, last), 0), self.max_step_ms)
        self._last_step_ms = now_ms
        self._now_ms = now_ms
        if self._rx_seen:
            self._rx_seen = False
            self._last_rx_ms = now_ms
        if self._hello_due:
            self._send_hello()
        rail = self.rail
        if dt_ms or last is None:  # one rail sample per control period (a step at the same instant is no new one)
            rail.sample()
        if not self.grip_timed:
            self.grip.sample(now_ms, self.outputs.written_us[self.grip_channel] != 0 and rail.level != 0)
        if rail.lows >= rail.low_samples:  # rail.is_lost, without a property call
            self._power_lost()
            return
        if self.outputs.is_enabling:
            if rail.level != 0:  # nothing is switched on while the rail reads low, lost yet or not
                self._write_pulses()
            return
        if not self.motion.is_busy or self.is_held or self.faults:
            return
        if self.watchdog_ms and ticks_diff_ms(now_ms, self._last_rx_ms) > self.watchdog_ms:
            self.latch_fault(HOST_LOST)
            return
        done = self._done_ids
        self.motion.advance(dt_ms, self.pulses_us, done)
        self._write_pulses()
        for cmd_id in done:
            self.last_done_cmd = cmd_id
            self._send_done(cmd_id)
        done.clear()

    def _poll_bus(self, now_ms: int) -> None:
        """One step of the servo bus: this step's goals out, the answers in; a silent servo latches its fault."""
        servos = self.servos
        self._poll_servos(now_ms)
        silent = servos.silent
        if silent >= 0 and SERVO_SILENT not in self.faults:
            self.latch_fault(SERVO_SILENT)
            self._error(
                p.E_SERVO_SILENT,
                0,
                "servo %d (bus id %d) did not answer %d reads in a row" % (silent, servos.ids[silent], servos.tries),
            )
            self._send_status()

    def _write_pulses(self) -> None:
        """Give every channel whose commanded pulse changed to the servos, after a last limit check."""
        bad = self.outputs.update(self._now_ms, self.pulses_us, self.min_us, self.max_us)
        if bad >= 0:
            self.latch_fault(LIMIT_FAULT)
            self.pulses_us[bad] = self.outputs.written_us[bad]

    def _power_lost(self) -> None:
        """The servo rail is dead: latch POWER_LOST once, release every output and tell the host at once."""
        if POWER_LOST in self.faults:
            return
        self.latch_fault(POWER_LOST)
        self.release()
        self._send_status()

    # ---- frames in ------------------------------------------------------------------------------------
    def _handle(self, frame: RxFrame) -> None:
        """Act on the frame just received (``frame`` is the receiver, holding it in place)."""
        kind = frame.kind
        if kind == p.SYNC:
            self.rx.sync(frame.seq, frame.text(0))
            self._send_hello()
        elif kind == p.ESTOP:
            self.estop()
            self._send_status()
        elif kind == p.STATUS:
            self._send_status()
        elif kind == p.PING:
            self._send_pong(frame)
        else:
            verdict = self.rx.classify(frame.seq)
            if verdict == IN_ORDER:
                if self._reliable(kind, frame):
                    self.rx.take()
                    self._take_held()
                    self._ack_due = True  # any frame's ack says it was taken
            elif verdict == DUPLICATE:
                self._ack_news()  # a repeated ack: the host's ack of it was lost, or the copy came late
            elif verdict == AHEAD:
                self.rx.hold(frame.seq, frame.line)  # the lost frame comes again; this one need not
                self._ack_news()  # the ACK names the frames kept: the host resends only the lost one
            else:
                self._error(p.E_NO_SESSION, 0, "send SYNC first")

    def _ack_news(self) -> None:
        """An ACK is due that only an ACK can carry: how far the input was read and which frames are kept."""
        self._ack_due = True
        self._ack_plain = False

    def _take_held(self) -> None:
        """Take the kept frames that follow the one just taken, in seq order (a refused one is forgotten: it is
        not acked, so the host sends it again)."""
        line = self.rx.take_held()
        while line is not None:
            held = self._held_reader
            if not held.parse_line(line) or not self._reliable(held.kind, held):
                return
            self.rx.take()
            line = self.rx.take_held()

    def _reliable(self, kind: str, fields: RxFrame) -> bool:
        """Act on an in-order reliable frame; False if it must not be acked (to be resent later)."""
        if kind == p.MOVE:
            return self._move(fields)
        if kind == p.CONFIG:
            self._config(fields)
        elif kind == p.HOLD:
            self.is_held = self.is_configured  # outputs off (released, POWER_LOST): no motion to hold
        elif kind == p.RESUME:
            self.is_held = False
        elif kind == p.CLEAR:
            self.faults.clear()
            self.refused_cmd = 0
            self.rail.lows = 0  # a rail still dead re-latches after RAIL_LOW_SAMPLES new low samples
            if self._forget_misses is not None:  # a bus servo still silent re-latches after its tries, asked anew
                self._forget_misses()
        elif kind == p.RELEASE:
            if self.motion.is_busy and not self.is_held and not self.faults:
                self._error(p.E_BUSY, 0, "RELEASE refused while the arm moves: send HOLD first")
            else:
                self.release()
        else:
            self._error(p.E_UNKNOWN_KIND, 0, "unknown frame kind " + kind)
        return True

    def _config(self, fields: RxFrame) -> None:
        if self.board_error:
            self._error(p.E_BOARD_CONFIG, 0, self.board_error, p.MAX_BOARD_ERROR_LEN)
            return
        if self.faults:
            self._error(p.E_FAULTED, 0, "CONFIG refused while faulted: send CLEAR")
            return
        if self.motion.is_busy:
            self._error(p.E_BUSY, 0, "CONFIG refused while motion is queued")
            return
        code, text, limits = parse_config(fields, self.channels, self.hard_min_us, self.hard_max_us)
        if limits is None:
            self._error(code, 0, text)
            return
        mins, maxs, starts, speeds, threshold = limits
        for ch in range(self.channels):  # later CONFIGs, and outputs held since boot, keep their pulse: no jump
            held = self.outputs.written_us[ch]
            if held and not mins[ch] <= held <= maxs[ch]:
                self._error(p.E_LIMIT, 0, "channel %d is at %d us: outside new limits" % (ch, held))
                return
        for ch in range(self.channels):
            self.min_us[ch] = mins[ch]
            self.max_us[ch] = maxs[ch]
            self.max_speeds_us_s[ch] = speeds[ch]
            self.pulses_us[ch] = self.outputs.written_us[ch] or starts[ch]
            if self._set_speed is not None:  # a bus servo never turns faster than its channel may
                self._set_speed(ch, speeds[ch])
        self.grip_threshold = threshold
        if not self.is_configured:
            self.outputs.start_enable(self._now_ms)
        self.is_configured = True
        if self.rail.level != 0:  # with the rail reading low the outputs wait for it (or for POWER_LOST)
            self._write_pulses()

    def _move(self, fields: RxFrame) -> bool:
        cmd_id = fields.uint(0, p.MAX_CMD_ID)
        if cmd_id < 1:
            self._reject(p.E_BAD_FRAME, 0, "MOVE cmd_id %s: expected 1..%d" % (fields.text(0, 10), p.MAX_CMD_ID))
            return True
        if cmd_id <= self.last_queued_cmd:
            return True  # executed at most once: a repeat is acked and ignored
        if self.board_error:
            self._error(p.E_BOARD_CONFIG, cmd_id, self.board_error, p.MAX_BOARD_ERROR_LEN)
            return True
        if ESTOP_FAULT in self.faults:
            self._error(p.E_ESTOPPED, cmd_id, "MOVE refused: e-stop latched; send CLEAR")
            return True
        if self.faults:
            self._error(p.E_FAULTED, cmd_id, "MOVE refused: fault " + "|".join(self.faults) + " latched")
            return True
        if not self.is_configured:
            self._error(p.E_NOT_CONFIGURED, cmd_id, "MOVE refused: send CONFIG first")
            return True
        if self.refused_cmd:
            self._error(p.E_REJECTED, cmd_id, "MOVE refused: MOVE %d was refused; send CLEAR" % self.refused_cmd)
            return True
        move = self._move_cmd
        if not move.parse(fields, self.min_us, self.max_us, MAX_DURATION_MS):
            self._reject(move.code, cmd_id, move.text)
            return True
        too_fast = check_speeds(
            self.motion.end_pose(self.pulses_us), move.targets_us, move.duration_ms, self.max_speeds_us_s, move.ramp_ms
        )
        if too_fast is not None:
            self._reject(too_fast[0], cmd_id, too_fast[1])
            return True
        if not self.motion.push(cmd_id, move.duration_ms, move.targets_us, move.ramp_ms, move.blend_ms):
            self._error(p.E_QUEUE_FULL, cmd_id, "queue full: not acked; resend later")
            return False
        self.last_queued_cmd = cmd_id
        return True

    def _reject(self, code: str, cmd_id: int, text: str) -> None:
        """Refuse an invalid MOVE. Later MOVEs are refused too until CLEAR, because they were planned to follow
        it; what is already queued keeps running (it was planned before the bad one)."""
        self._error(code, cmd_id, text)
        self.refused_cmd = cmd_id or -1

    def _internal(self, err: Exception) -> None:
        self.internal_errors += 1
        self.last_error = p.clean_text(repr(err))
        self.latch_fault(INTERNAL)
        try:
            self._error(p.E_INTERNAL, 0, self.last_error)
        except Exception:  # the error report itself must not raise either
            self.tx_dropped += 1

    # ---- frames out -----------------------------------------------------------------------------------
    def _next_seq(self) -> int:
        """The seq of the next frame to send, or -1 if the frame must be dropped: past MAX_PENDING_FRAMES it
        still uses its seq, so the host sees the gap and asks STATUS. Every frame carries the cumulative ack."""
        seq = self.tx_seq
        self.tx_seq = (seq + 1) & 0xFFFF  # modulo protocol.SEQ_MOD
        tx = self.tx
        if tx.frames >= tx.max_frames:  # tx.is_full, without a property call
            self.tx_dropped += 1
            return -1
        if self._ack_plain:
            self._ack_due = False  # this frame carries the ack (the board's line carries one frame fewer)
        return seq

    def _send(self, kind: str, fields: "p.Fields") -> None:
        """Queue a frame (made by ``protocol.encode``: for the rare kinds) for the next ``step``."""
        seq = self._next_seq()
        if seq >= 0:
            self.tx.add(p.encode(kind, seq, self.rx.ack, fields))

    def _send_ack(self) -> None:
        """Queue ``ACK,seq,ack,rx_count[,held]`` (``held`` only when a frame is kept: the usual ACK is short, as
        the host's line carries one per frame it sends)."""
        self._ack_due = False
        self._ack_plain = True
        seq = self._next_seq()
        if seq >= 0:
            rx = self.rx
            held = rx.held_mask()
            if held:
                self.tx.frame(b"ACK,%d,%d,%d,%d" % (seq, rx.ack, self.rx_count, held))
            else:
                self.tx.frame(b"ACK,%d,%d,%d" % (seq, rx.ack, self.rx_count))

    def _send_done(self, cmd_id: int) -> None:
        """Queue ``DONE,seq,ack,cmd_id``."""
        seq = self._next_seq()
        if seq >= 0:
            self.tx.frame(b"DONE,%d,%d,%d" % (seq, self.rx.ack, cmd_id))

    def _send_pong(self, ping: RxFrame) -> None:
        """Queue ``PONG,seq,ack,token,rx_count,last_done_cmd[,held]`` with the PING's token (cut to
        MAX_TOKEN_LEN), how far the input was read when the PING ended, and ``held`` as in an ACK."""
        seq = self._next_seq()
        if seq >= 0:
            rx = self.rx
            token = ping.field_bytes(0, MAX_TOKEN_LEN)
            count = self._frame_end_count
            held = rx.held_mask()
            if held:
                self.tx.frame(b"PONG,%d,%d,%s,%d,%d,%d" % (seq, rx.ack, token, count, self.last_done_cmd, held))
            else:
                self.tx.frame(b"PONG,%d,%d,%s,%d,%d" % (seq, rx.ack, token, count, self.last_done_cmd))

    def _error(self, code: str, cmd_id: int, text: str, max_len: int = 60) -> None:
        self._send(p.ERROR, (code, cmd_id, p.clean_text(text, max_len)))

    def _send_hello(self) -> None:
        self._hello_due = False
        self._send(p.HELLO, reports.hello_fields(self))
        if self.board_error:  # say why at once: on native USB nothing else the board printed reaches the host
            self._error(p.E_BOARD_CONFIG, 0, self.board_error, p.MAX_BOARD_ERROR_LEN)

    def _send_status(self) -> None:
        self._send(p.STATUS, reports.status_fields(self))
