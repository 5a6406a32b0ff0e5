"""Servo HAL on a Feetech STS/SCS serial bus: the servos' positions are their pulses, and they say where they are.

A bus servo is one more servo output: the controller gives it a pulse in us, and the pulse is its goal position,
500..2500 us being one turn (:data:`PULSE_MIN_US`, :data:`PULSE_SPAN_US`: 1500 us is the middle, step 2048 of an
STS servo's 4096). Nothing else in the firmware knows steps. The host calibrates a bus joint like any other (for an
STS servo, 2000 us over 360 deg is 5.56 us a degree).

The bus is a half-duplex UART: the board's TX through a resistor onto the data line, its RX on the line (or a
tri-state buffer with a direction pin), so everything sent comes back as an echo, which is read and dropped
before the servos' answers. :meth:`BusServos.poll`, called once per control step, never waits for the bus:

1. it reads what came since the previous step: the echo of what was sent then, and the answer to the one READ it
   asked then (a servo answers within its Return Delay Time, well inside a control period);
2. it sends one SYNC WRITE with every driven servo's goal position and speed (a broadcast: no answer), a SYNC WRITE
   of Torque Enable for servos switched on this step, and one READ of the feedback block (position, speed, load,
   status, current) of the next servo in turn.

So each servo's position is read every ``channels`` steps, the loop never blocks, and the host link and the
watchdog are served as with PWM outputs. A servo that does not answer is asked again at the next step; after
``tries`` unanswered requests in a row (``tries`` control periods) it is :attr:`BusServos.silent`, which the
controller latches as the fault SERVO_SILENT naming it (never a hang); :meth:`forget_misses` (a CLEAR) starts the
count again, so a servo that answers again (its rail back on) is heard before it can be called silent. A corrupted
answer (bad checksum: lerobot notes the bus "can occasionally return a corrupted status packet") counts as unanswered.

:meth:`release` switches a servo's torque off at once (RELEASE, a lost servo rail, a Ctrl-C); an e-stop or a host
lost holds the pose as PWM outputs do: torque stays on, the goals stop changing. Every frame is written from a
buffer made here, once, and answers are parsed in place: a quiet step allocates nothing.

With a direction pin the driver waits for the UART to finish sending before it turns the line around: ``flush()``,
then one character more, because ``UART.flush()`` on rp2 before MicroPython 1.24 returned while the last byte was
still going out (MicroPython commit 97af1001ae, "rp2/machine_uart: Make it so TX is done only when no longer busy").

That turn-around takes tens of microseconds in MicroPython, so a servo must wait that long before it answers. Its
Return Delay Time (register 7, one byte, in 2 us units; Feetech's STS memory table, lerobot's ``tables.py``) is
250 (500 us) from the factory, but lerobot's ``configure_motors`` writes 0 (2 us) into every servo of a bus it set
up: their answers would start while the board still drives the line, and be lost. So at boot, with a direction
pin, :meth:`BusServos.read_held_us` first reads each servo's return delay and writes back
:data:`SAFE_RETURN_DELAY` (the factory's 500 us) where it is under :data:`MIN_RETURN_DELAY` (100 us) or cannot be
read (a lost answer is what a too short delay looks like). The write leaves the Lock register (55) alone: on a
locked servo the value holds until its power goes off, and the check runs at every boot.
"""

from hanoifw import feetech as f

PULSE_MIN_US = 500  # the pulse of step 0
PULSE_SPAN_US = 2000  # one turn of the servo, in pulse us
READ_TRIES = 3  # unanswered READs in a row before a servo is silent
GRIP_GAP_STEPS = 8  # a gripper this far short of its goal (0.7 deg of an STS) is stopped on something
GRIP_STILL_STEPS_S = 100  # a gripper slower than this (8.8 deg/s of an STS) has come to rest: its load is a grip
POLL_MASK = 0x3FFFFFFF  # poll counts wrap here (a small int on every port: a count never allocates)
MAX_SPEED_STEPS_S = 0x7FFF  # Goal_Speed's magnitude (bit 15 is its sign)
RX_BYTES = 64  # read from the UART at once
ECHOES = 4  # frames sent in one step at most (each comes back as an echo)
MAX_MEASURED_US = 9999  # a measured position is reported in at most 4 digits: STATUS stays one frame
_GOAL_ROW = 7  # id, position (2), time (2), speed (2)
MIN_RETURN_DELAY = 50  # 2 us units: 100 us, the shortest answer delay a MicroPython-switched direction pin takes
SAFE_RETURN_DELAY = 250  # 2 us units: 500 us, the factory's Return Delay Time, written back when one is shorter


class BusServos:
    """``channels = len(ids)`` servos on the bus ``uart`` (``write``, ``any``, ``readinto(buf, n)``, ``flush``:
    a ``machine.UART``, or pyserial behind an adapter); ``ids[ch]`` is channel ``ch``'s bus id.

    ``steps_per_turn`` is 4096 (STS, SMS) or 1024 (SCS); ``echo`` says whether the line gives back what is sent
    (TX through a resistor, a tri-state buffer: True; a USB adapter that switches direction itself: False);
    ``direction`` (or None) is a ``machine.Pin`` high while sending, with ``char_us`` the time of one character and
    ``sleep_us`` (``time.sleep_us``) to wait it. ``grip_channel`` is the gripper (default: the last channel).
    ``min_return_delay`` (2 us units) is the shortest Return Delay Time kept at boot (module doc); -1, the default,
    is :data:`MIN_RETURN_DELAY` with a direction pin and 0 (none checked) without one.
    """

    def __init__(
        self,
        uart,
        ids,
        *,
        steps_per_turn: int = f.STEPS_PER_TURN_STS,
        echo: bool = True,
        direction=None,
        char_us: int = 10,
        sleep_us=None,
        tries: int = READ_TRIES,
        grip_channel: int = -1,
        grip_gap_steps: int = GRIP_GAP_STEPS,
        grip_still_steps_s: int = GRIP_STILL_STEPS_S,
        min_return_delay: int = -1,
    ) -> None:
        channels = len(ids)
        if not 1 <= channels <= 12:
            raise ValueError("%d bus servos: expected 1..12" % channels)
        for servo_id in ids:
            if not 0 <= servo_id <= f.MAX_ID:
                raise ValueError("bus servo id %r: expected 0..%d" % (servo_id, f.MAX_ID))
        self._uart = uart
        self.ids = tuple(ids)
        self.channels = channels
        self.steps_per_turn = steps_per_turn
        self.echo = echo
        self._direction = direction
        self._char_us = char_us
        self._sleep_us = sleep_us
        self.tries = tries
        self.grip_channel = grip_channel if grip_channel >= 0 else channels - 1
        self.grip_gap_steps = grip_gap_steps
        self.grip_still_steps_s = grip_still_steps_s
        self.max_age = 2 * channels + tries  # polls a reading stays fresh
        if min_return_delay < 0:
            min_return_delay = MIN_RETURN_DELAY if direction is not None else 0
        self.min_return_delay = min_return_delay
        self.return_delays = [-1] * channels  # each servo's Return Delay Time as read at boot (-1: not read)
        self.delays_written = [False] * channels  # written back at boot (too short, or no answer)
        # what is commanded
        self.goal_steps = [0] * channels
        self.speed_steps_s = [0] * channels  # 0: the servo's own top speed
        self.torque = [False] * channels
        self._enabling = [False] * channels  # switched on since the last poll: Torque Enable goes out then
        self._layout_changed = True
        # what the servos said (their latest answer)
        self.position_steps = [0] * channels
        self.speed = [0] * channels
        self.load = [0] * channels  # 0.1 % of the stall torque, signed
        self.current = [0] * channels
        self.moving = [0] * channels
        self.servo_status = [0] * channels  # the status register (65)
        self.error_byte = [0] * channels  # the error byte of the latest answer
        self.age = [self.max_age + 1] * channels  # polls since the latest answer
        self.misses = [0] * channels  # unanswered READs in a row
        # when the gripper's goal last went out, and when the READ of its latest answer was asked (poll counts):
        # an answer asked in the poll that sent a new goal shows the servo before it reacted to it
        self.polls = 0
        self._grip_goal_sent = 0
        self._grip_goal_poll = 0
        self._grip_asked_poll = -1
        self._grip_read_poll = -1
        self.silent = -1  # the channel that missed ``tries`` READs in a row (-1: none)
        self.answers = 0
        self.unanswered = 0
        self.stray = 0  # whole frames that were neither an expected echo nor the awaited answer
        self.echo_missing = 0  # frames sent whose echo did not come back (with ``echo``)
        # frames, made once
        self._goals = bytearray(7 + _GOAL_ROW * channels + 1)
        self._goal_view = None  # the goal frame's bytes for the driven servos (made again when they change)
        self._torques = bytearray(7 + 2 * channels + 1)
        self._one_torque = bytearray(7 + 2 + 1)
        self._read = bytearray(8)
        self._write_one = bytearray(8)  # a WRITE of one register byte
        self._delay_byte = bytearray(1)
        self._rx = bytearray(RX_BYTES)
        self._reader = f.PacketReader()
        self._sent = [None] * ECHOES  # the frames sent since the last poll, in order (their echoes come first)
        self._sent_len = [0] * ECHOES
        self._sent_count = 0
        self._echoed = 0
        self._awaited = -1  # the channel whose answer to the last READ is awaited
        self._next = 0  # the next channel to read in turn

    # ---- the servo HAL -------------------------------------------------------------------------------
    def steps_for(self, pulse_us: int) -> int:
        """The goal position (steps) of a pulse in us (rounded)."""
        return ((pulse_us - PULSE_MIN_US) * self.steps_per_turn + (PULSE_SPAN_US >> 1)) // PULSE_SPAN_US

    def us_for(self, steps: int) -> int:
        """The pulse in us of a position in steps (rounded)."""
        spt = self.steps_per_turn
        return PULSE_MIN_US + (steps * PULSE_SPAN_US + (spt >> 1)) // spt

    def set_pulse_us(self, channel: int, pulse_us: int) -> None:
        """Drive ``channel`` to the position of ``pulse_us`` (sent at the next :meth:`poll`, within a step)."""
        self.stage_pulse_us(channel, pulse_us)

    def stage_pulse_us(self, channel: int, pulse_us: int) -> None:
        """Set ``channel``'s goal; a servo not yet driven is switched on (torque) with it."""
        self.goal_steps[channel] = self.steps_for(pulse_us)
        if not self.torque[channel]:
            self.torque[channel] = True
            self._enabling[channel] = True
            self._layout_changed = True

    def flush(self) -> None:
        """The staged goals go out in the next :meth:`poll`'s one SYNC WRITE (the controller polls every step)."""

    def release(self, channel: int) -> None:
        """Switch ``channel``'s torque off now (the servo goes limp)."""
        self.torque[channel] = False
        self._enabling[channel] = False
        self._layout_changed = True
        buf = self._one_torque
        at = f.begin_sync_write(buf, f.TORQUE_ENABLE, 1, 1)
        buf[at] = self.ids[channel]
        buf[at + 1] = 0
        f.seal(buf)
        self._send_alone(buf, len(buf))

    def set_speed_us_s(self, channel: int, speed_us_s: int) -> None:
        """The top speed of ``channel`` in pulse us/s (the CONFIG's): its Goal Speed in steps/s from now on."""
        steps_s = (speed_us_s * self.steps_per_turn + PULSE_SPAN_US - 1) // PULSE_SPAN_US
        self.speed_steps_s[channel] = steps_s if steps_s < MAX_SPEED_STEPS_S else MAX_SPEED_STEPS_S
        self._layout_changed = True

    def close(self) -> None:
        """Switch every servo's torque off."""
        for channel in range(self.channels):
            self.release(channel)

    def read_held_us(self, sleep_ms, timeout_ms: int = 5) -> "list[int]":
        """At boot, before the first step: the pulse each servo holds (its goal, torque on: bus servos keep theirs
        through an MCU reset, as a PCA9685 keeps its pulses), 0 for one limp or silent. Those servos count as driven
        from then on. With a direction pin (``min_return_delay``) each servo's Return Delay Time is checked first
        (:meth:`check_return_delays`). Blocks, in ``sleep_ms(1)`` waits, at most ``channels * tries * timeout_ms`` ms
        (twice that with the check)."""
        if self.min_return_delay > 0:
            self.check_return_delays(sleep_ms, timeout_ms)
        held = [0] * self.channels
        reader = self._reader
        for ch in range(self.channels):
            if self._ask(sleep_ms, timeout_ms, ch, f.TORQUE_ENABLE, 4):  # Torque Enable, Acceleration, Goal
                buf = reader.buf
                if buf[5]:
                    goal = f.from_sign_magnitude(f.get_u16(buf, 7), 15)
                    self.goal_steps[ch] = goal
                    self.torque[ch] = True
                    held[ch] = max(self.us_for(goal), 1)
        self._layout_changed = True
        return held

    def check_return_delays(self, sleep_ms, timeout_ms: int = 5) -> None:
        """Read each servo's Return Delay Time into :attr:`return_delays`; where it is under ``min_return_delay``
        or gives no answer, WRITE :data:`SAFE_RETURN_DELAY` there (marked in :attr:`delays_written`). Blocks, in
        ``sleep_ms(1)`` waits, at most ``channels * (tries + 1) * timeout_ms`` ms (at boot only)."""
        for ch in range(self.channels):
            if self._ask(sleep_ms, timeout_ms, ch, f.RETURN_DELAY_TIME, 1):
                self.return_delays[ch] = self._reader.buf[5]
                if self.return_delays[ch] >= self.min_return_delay:
                    continue
            self._delay_byte[0] = SAFE_RETURN_DELAY
            n = f.encode_write(self._write_one, self.ids[ch], f.RETURN_DELAY_TIME, self._delay_byte)
            self._send_alone(self._write_one, n)
            self._sent_count = 0
            self.delays_written[ch] = True
            for _ in range(timeout_ms):  # its answer (or its loss) passes before the next servo is asked
                sleep_ms(1)
            self._drain()

    def forget_misses(self) -> None:
        """Start every servo's count of unanswered READs again (a CLEAR): one silent before is asked first, and is
        :attr:`silent` again only after ``tries`` new misses in a row (its rail may be back: it answers)."""
        first = self.silent
        for ch in range(self.channels):
            self.misses[ch] = 0
        self.silent = -1
        if first >= 0:
            self._next = first

    def _drain(self) -> None:
        """Drop whatever the line gave back so far."""
        uart = self._uart
        while uart.any():
            uart.readinto(self._rx, RX_BYTES)

    def _ask(self, sleep_ms, timeout_ms: int, ch: int, address: int, length: int) -> bool:
        """At boot: READ ``length`` bytes at ``address`` of channel ``ch``'s servo, up to ``tries`` times, each
        answer awaited ``timeout_ms`` ms in ``sleep_ms(1)`` waits; True when it came (in the reader's buffer)."""
        uart = self._uart
        rx = self._rx
        reader = self._reader
        servo_id = self.ids[ch]
        for _ in range(self.tries):
            self._drain()  # what came before is not this answer
            reader.reset()
            f.encode_read(self._read, servo_id, address, length)
            self._send_alone(self._read, 8)
            self._sent_count = 0
            for _ in range(timeout_ms):
                sleep_ms(1)
                got = uart.readinto(rx, RX_BYTES) if uart.any() else 0
                for i in range(got or 0):
                    if reader.take(rx[i]) and reader.servo_id == servo_id and reader.params == length:
                        return True
        return False

    # ---- what the servos say -------------------------------------------------------------------------
    def awaits_answer(self) -> bool:
        """True while the answer to the READ sent at the last :meth:`poll` has not been taken (a host driving the
        bus through a USB adapter, whose bytes come in bursts, waits for it before the next poll)."""
        return self._awaited >= 0

    def is_fresh(self, channel: int) -> bool:
        """True when ``channel`` answered within the last ``max_age`` polls."""
        return self.age[channel] <= self.max_age

    def measured_us(self, channel: int) -> int:
        """Where ``channel``'s servo is, as a pulse in us (-1: no fresh answer)."""
        if self.age[channel] > self.max_age:
            return -1
        pulse_us = self.us_for(self.position_steps[channel])
        if pulse_us < 0:  # a servo turned past step 0 (multi-turn, an offset): still a position, in 4 digits
            return 0
        return pulse_us if pulse_us < MAX_MEASURED_US else MAX_MEASURED_US

    def grip_u16(self) -> int:
        """The gripper's grip reading on the grip sensor's 0..65535 scale, from its position AND its load.

        * -1 (no verdict): not driven; no fresh answer; its latest READ unanswered (what it said before may no
          longer be true: a servo whose power went holds nothing); its latest answer was asked before the goal it
          has now went out, or in the very poll that sent it (the servo had not reacted yet); or it was still moving
          then (``|Present_Speed|`` over ``grip_still_steps_s``): a closing gripper is short of its goal and loaded
          whether or not a disk is in the way, so it says nothing until it has come to rest;
        * 0: at rest within ``grip_gap_steps`` of its goal: the fingers closed all the way, on nothing (a load
          there, fingers pressing on each other or on an end stop, is no disk);
        * else the magnitude of its load (0..1000, 0.1 % of stall: 65535 at stall): at rest at least
          ``grip_gap_steps`` short of its goal, so stopped on something; a small load there (nothing pushed
          against) stays under the threshold and reads as empty.

        Allocates nothing (a timer may call it)."""
        ch = self.grip_channel
        if not self.torque[ch] or self.age[ch] > self.max_age or self.misses[ch]:
            return -1
        goal = self.goal_steps[ch]
        ahead = (self._grip_read_poll - self._grip_goal_poll) & POLL_MASK
        if goal != self._grip_goal_sent or ahead == 0 or ahead > (POLL_MASK >> 1):
            return -1  # the latest answer was asked before the goal went out or with it (or one is staged, unsent)
        speed = self.speed[ch]
        if speed > self.grip_still_steps_s or speed < -self.grip_still_steps_s:
            return -1
        gap = goal - self.position_steps[ch]
        if -self.grip_gap_steps < gap < self.grip_gap_steps:
            return 0
        load = self.load[ch]
        if load < 0:
            load = -load
        return (load if load < f.MAX_LOAD else f.MAX_LOAD) * 65535 // f.MAX_LOAD

    # ---- one control step ----------------------------------------------------------------------------
    def poll(self, now_ms: int = 0) -> None:
        """Take the answers of the previous step, then send this step's goals and the next READ (module doc)."""
        self._collect()
        polls = (self.polls + 1) & POLL_MASK
        self.polls = polls
        grip_ch = self.grip_channel
        grip = self.goal_steps[grip_ch]
        if grip != self._grip_goal_sent or self._enabling[grip_ch]:  # a new goal, or torque on again
            self._grip_goal_sent = grip
            self._grip_goal_poll = polls
        direction = self._direction
        if direction is not None:
            direction.value(1)
        if self._layout_changed:
            self._layout()
        view = self._goal_view
        if view is not None:
            self._fill_goals()
            self._send(view, len(view))
        if self._enable_frame():
            self._send(self._torque_view, len(self._torque_view))
        self._request_next()
        if direction is not None:
            self._turn_around()

    def _collect(self) -> None:
        """Read everything the bus gave back since the last poll: echoes first, then the awaited answer."""
        uart = self._uart
        rx = self._rx
        reader = self._reader
        for ch in range(self.channels):
            if self.age[ch] <= self.max_age:
                self.age[ch] += 1
        rounds = 0
        waiting = uart.any()
        while waiting and rounds < 8:  # bounded: a babbling line cannot hold the loop
            rounds += 1
            got = uart.readinto(rx, waiting if waiting < RX_BYTES else RX_BYTES)
            if not got:
                break
            for i in range(got):
                if reader.take(rx[i]):
                    self._frame()
            waiting = uart.any()
        reader.reset()  # a frame cut off here is not finished by the next step's bytes
        if self.echo and self._echoed < self._sent_count:
            self.echo_missing += self._sent_count - self._echoed
        for i in range(self._sent_count):
            self._sent[i] = None
        self._sent_count = 0
        self._echoed = 0
        awaited = self._awaited
        if awaited >= 0:
            self._awaited = -1
            self.unanswered += 1
            misses = self.misses[awaited] + 1
            self.misses[awaited] = misses
            if misses >= self.tries and self.silent < 0:
                self.silent = awaited

    def _frame(self) -> None:
        """A whole frame came in: the echo of one we sent, the awaited answer, or something else."""
        reader = self._reader
        if self.echo and self._echoed < self._sent_count:
            k = self._echoed
            if reader.is_frame(self._sent[k], self._sent_len[k]):
                self._echoed = k + 1
                return
        awaited = self._awaited
        if awaited >= 0 and reader.servo_id == self.ids[awaited] and reader.params == f.FEEDBACK_BYTES:
            self._store(awaited)
            return
        self.stray += 1

    def _store(self, ch: int) -> None:
        """Keep the feedback block just read as channel ``ch``'s."""
        buf = self._reader.buf
        base = 5 - f.FEEDBACK_ADDRESS  # buf index of register r is base + r
        self.position_steps[ch] = f.from_sign_magnitude(f.get_u16(buf, base + f.PRESENT_POSITION), 15)
        self.speed[ch] = f.from_sign_magnitude(f.get_u16(buf, base + f.PRESENT_SPEED), 15)
        self.load[ch] = f.from_sign_magnitude(f.get_u16(buf, base + f.PRESENT_LOAD), 10)
        self.servo_status[ch] = buf[base + f.STATUS]
        self.moving[ch] = buf[base + f.MOVING]
        self.current[ch] = f.from_sign_magnitude(f.get_u16(buf, base + f.PRESENT_CURRENT), 15)
        self.error_byte[ch] = self._reader.code
        if ch == self.grip_channel:
            self._grip_read_poll = self._grip_asked_poll
        self.age[ch] = 0
        self.misses[ch] = 0
        self.answers += 1
        if self.silent == ch:
            self.silent = -1
        self._awaited = -1

    def _layout(self) -> None:
        """Lay the goal frame out for the servos driven now (rows in channel order; no frame when none is)."""
        self._layout_changed = False
        driven = 0
        for ch in range(self.channels):
            if self.torque[ch]:
                driven += 1
        if not driven:
            self._goal_view = None
            return
        buf = self._goals
        at = f.begin_sync_write(buf, f.GOAL_POSITION, _GOAL_ROW - 1, driven)
        for ch in range(self.channels):
            if self.torque[ch]:
                buf[at] = self.ids[ch]
                f.put_u16(buf, at + 3, 0)  # Goal Time 0: the speed rules
                f.put_u16(buf, at + 5, self.speed_steps_s[ch])
                at += _GOAL_ROW
        self._goal_view = memoryview(buf)[: at + 1]

    def _fill_goals(self) -> None:
        """Write every driven servo's goal position into its row and seal the frame."""
        buf = self._goals
        at = 7
        for ch in range(self.channels):
            if self.torque[ch]:
                f.put_u16(buf, at + 1, f.to_sign_magnitude(self.goal_steps[ch], 15))
                at += _GOAL_ROW
        f.seal(buf)

    def _enable_frame(self) -> bool:
        """Lay out a SYNC WRITE of Torque Enable for the servos switched on since the last poll (True if any)."""
        count = 0
        for ch in range(self.channels):
            if self._enabling[ch]:
                count += 1
        if not count:
            return False
        buf = self._torques
        at = f.begin_sync_write(buf, f.TORQUE_ENABLE, 1, count)
        for ch in range(self.channels):
            if self._enabling[ch]:
                self._enabling[ch] = False
                buf[at] = self.ids[ch]
                buf[at + 1] = 1
                at += 2
        n = f.seal(buf)
        self._torque_view = memoryview(buf)[:n]  # a step that switches servos on may allocate this view
        return True

    def _request_next(self) -> None:
        """READ the feedback block of the next servo: the one that just missed (until it is silent), else in turn."""
        ch = -1
        for candidate in range(self.channels):
            if 0 < self.misses[candidate] < self.tries:
                ch = candidate
                break
        if ch < 0:
            ch = self._next
            self._next = ch + 1 if ch + 1 < self.channels else 0
        f.encode_read(self._read, self.ids[ch], f.FEEDBACK_ADDRESS, f.FEEDBACK_BYTES)
        self._send(self._read, 8)
        self._awaited = ch
        if ch == self.grip_channel:
            self._grip_asked_poll = self.polls

    def _send(self, frame, length: int) -> None:
        """Write ``frame`` (``length`` bytes) and expect its echo."""
        self._uart.write(frame)
        count = self._sent_count
        if count < ECHOES:
            self._sent[count] = frame
            self._sent_len[count] = length
            self._sent_count = count + 1

    def _send_alone(self, frame, length: int) -> None:
        """Write one frame outside a poll (torque off), turning the line around for it."""
        direction = self._direction
        if direction is not None:
            direction.value(1)
        self._send(frame, length)
        if direction is not None:
            self._turn_around()

    def _turn_around(self) -> None:
        """Wait until the last byte is out, one character more (rp2 before 1.24), and listen again."""
        self._uart.flush()
        if self._sleep_us is not None:
            self._sleep_us(self._char_us)
        self._direction.value(0)


class BusGripLoad:
    """The grip sensor of a bus gripper: ``read_u16()`` is :meth:`BusServos.grip_u16` (-1: no reading)."""

    def __init__(self, bus: BusServos) -> None:
        self._read = bus.grip_u16  # bound once: a hard interrupt may call it

    def read_u16(self) -> int:
        """The gripper's load when closed on something, 0 when closed on nothing, -1 without a reading."""
        return self._read()
