"""Simulated Feetech STS bus servos: servos that speak the protocol on a byte stream, moved by the one servo model.

:class:`SimServoBus` is the data line and the servos on it. Bytes written onto the line take their time (10 bits a
byte at ``baud``); with ``echo`` (TX through a resistor onto the line) each comes back to the writer as it goes
out. A servo acts on a frame when its last byte has arrived; a READ or PING addressed to it is answered after its
Return Delay Time (register 7, in 2 µs units: the factory's 250 is 500 µs), byte by byte. Broadcast frames (SYNC
WRITE) are answered by nobody. Writes that come while the line is busy wait for it (the simulated line never
garbles two talkers: the firmware never writes while it awaits an answer within its period).

Each servo's horn follows its goal by :func:`hanoibot.motion.servo_model.follow` (positions as pulses in µs: a bus
servo's pulse is its position, 500..2500 µs a turn, as :mod:`hanoifw.busservos` maps it), at the lower of its own top
speed (the world's servo traits) and its Goal Speed. A servo with its torque off is limp: it stays where it is, or
where a hand puts it (:meth:`SimBusServo.move_by_hand`), and still answers with its position. The world may stop a
horn (``stop_us``: the lowest and highest pulse it can reach now, e.g. fingers closed on a disk, a joint against an
obstacle); the servo's load is then its position loop's effort on the error, up to its stall (1000 = 100 %).

Faults, as a real bus has them (``sim://?servo=sts&...``, :func:`bus_options`): a servo that stops answering
(``silent``), corrupted answers (``corrupt``: a probability per answer, one flipped bit), a longer answer delay
(``delay_us``). A servo's effort, and so its load, stops at its Torque Limit (register 48, 0.1 % of stall; the
factory's 1000): ``grip_torque`` sets the gripper's, as lerobot's SO-101 set-up caps it at 500 (its
``so101_follower.configure`` writes Max_Torque_Limit 500 to the gripper, which the servo loads into Torque Limit at
power-up). With ``turnaround_us`` the board turns the line around by a direction pin, in that time after
its last byte: an answer that starts sooner (a Return Delay Time too short, as lerobot's 0 is) loses those bytes.

:class:`SimUart` is the board's ``machine.UART`` on that line at the board's time: the firmware's own
:class:`hanoifw.busservos.BusServos` runs on it unchanged.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from hanoifw import feetech as f
from hanoifw.busservos import PULSE_MIN_US, PULSE_SPAN_US

from ..errors import ConfigError
from ..motion.servo_model import RESPONSE_S, ServoState, ServoTraits, follow

#: Bits a byte takes on the line (start, 8 data, stop).
BITS_PER_BYTE = 10
#: The STS factory baud rate (lerobot STS_SMS_SERIES_BAUDRATE_TABLE: 1_000_000 is value 0).
DEFAULT_BAUD = 1_000_000
#: The factory Return Delay Time, in 2 µs units (500 µs; lerobot's configure_motors writes 0).
FACTORY_RETURN_DELAY = 250
#: The servo's position loop reaches its full effort (stall, load 1000) at this error, in µs of pulse (50 steps of
#: an STS: about 4.4 deg). Typical: the STS's P gain saturates within a few degrees; no datasheet gives a figure.
FULL_EFFORT_US = 25.0
#: The longest answer delay the ``delay_us`` option takes (µs): past two control periods every READ is missed.
MAX_DELAY_US = 20000.0
#: The factory Torque Limit, in 0.1 % of the stall torque: full effort.
FULL_TORQUE = 1000
#: Supply voltage the servos report (0.1 V units) and their temperature (deg C).
VOLTAGE = 74
TEMPERATURE = 30

StopFn = Callable[[int], tuple[float | None, float | None]]


def steps_to_us(steps: float, steps_per_turn: int = f.STEPS_PER_TURN_STS) -> float:
    """The pulse in µs of a position in steps (hanoifw.busservos's map, unrounded)."""
    return PULSE_MIN_US + steps * PULSE_SPAN_US / steps_per_turn


def us_to_steps(pulse_us: float, steps_per_turn: int = f.STEPS_PER_TURN_STS) -> int:
    """The position in steps of a pulse in µs, rounded."""
    return round((pulse_us - PULSE_MIN_US) * steps_per_turn / PULSE_SPAN_US)


class BusSpec(NamedTuple):
    """A simulated board's servo bus: the servos' ``ids`` (one per channel), the line (``baud``, ``echo``), its
    faults (``silent`` ids, ``corrupt`` probability per answer, ``delay_us`` answer delay; ``seed`` for the draws)
    and the gripper's (last channel's) torque limit ``grip_torque`` in 0.1 % of stall."""

    ids: tuple[int, ...] = (1, 2, 3, 4, 5)
    baud: int = DEFAULT_BAUD
    echo: bool = True
    silent: tuple[int, ...] = ()
    corrupt: float = 0.0
    delay_us: float | None = None
    seed: int = 0
    grip_torque: int = FULL_TORQUE


class SimBusServo:
    """One servo on the bus: its registers, its horn (by the servo model) and how it answers."""

    def __init__(self, servo_id: int, traits: ServoTraits, *, position_us: float = 1500.0) -> None:
        self.servo_id = servo_id
        self.traits = traits
        self.torque = False
        self.goal_steps = us_to_steps(position_us)
        self.goal_time = 0
        self.speed_steps_s = 0
        self.return_delay = FACTORY_RETURN_DELAY
        self.lock = 0
        self.torque_limit = FULL_TORQUE  # Torque Limit (48): its effort, and load, stop here (0.1 % of stall)
        self.horn_us = float(position_us)
        self.state: ServoState | None = None  # the loop's state while torque is on
        self.load = 0
        self.speed_us_s = 0.0
        self.silent = False
        self.updated_s = 0.0

    # --- the physics ------------------------------------------------------------------------------------
    def settle(self, t_s: float, stop: tuple[float | None, float | None]) -> None:
        """Move the horn by its loop from its last update to ``t_s``, within ``stop`` (µs bounds or None)."""
        elapsed_s = t_s - self.updated_s
        self.updated_s = max(t_s, self.updated_s)
        low, high = stop
        if not self.torque or self.state is None:
            self.load = 0
            self.speed_us_s = 0.0
            self.horn_us = _clamp(self.horn_us, low, high)
            return
        goal_us = steps_to_us(self.goal_steps)
        traits = self.traits
        cap_us_s = self.speed_steps_s * PULSE_SPAN_US / f.STEPS_PER_TURN_STS if self.speed_steps_s else None
        if cap_us_s is not None and traits.max_speed_us_s is not None and cap_us_s < traits.max_speed_us_s:
            traits = traits._replace(max_speed_us_s=cap_us_s)
        state = follow(traits, self.state, goal_us, elapsed_s) if elapsed_s > 0 else self.state
        horn = _clamp(state.horn_us, low, high)
        if horn != state.horn_us:  # against a stop: the motor stands there too, pushing
            state = ServoState(horn, horn, 0.0)
        self.state = state
        if elapsed_s > 0:  # Present_Speed is the horn's: the encoder is on the output shaft, past any gear play
            self.speed_us_s = (state.horn_us - self.horn_us) / elapsed_s
        self.horn_us = state.horn_us
        error_us = goal_us - state.horn_us
        limit = self.torque_limit
        self.load = max(-limit, min(limit, round(1000 * error_us / FULL_EFFORT_US)))

    def set_torque(self, on: bool) -> None:
        """Torque Enable: on holds (the loop starts where the horn is), off goes limp."""
        if on and not self.torque:
            self.state = ServoState.at(self.horn_us)
        if not on:
            self.state = None
        self.torque = on

    def move_by_hand(self, pulse_us: float) -> None:
        """A person turns the limp horn to ``pulse_us`` (torque on: the servo holds against the hand)."""
        if not self.torque:
            self.horn_us = float(pulse_us)

    # --- its memory table --------------------------------------------------------------------------------
    def registers(self) -> bytearray:
        """Registers 0..86 as the servo would answer a READ of them (STS/SMS memory table)."""
        regs = bytearray(87)
        regs[f.ID] = self.servo_id
        regs[f.RETURN_DELAY_TIME] = self.return_delay
        regs[f.TORQUE_ENABLE] = 1 if self.torque else 0
        f.put_u16(regs, f.GOAL_POSITION, f.to_sign_magnitude(self.goal_steps, f.POSITION_SIGN_BIT))
        f.put_u16(regs, f.GOAL_TIME, self.goal_time)
        f.put_u16(regs, f.GOAL_SPEED, self.speed_steps_s)
        f.put_u16(regs, f.TORQUE_LIMIT, self.torque_limit)
        regs[f.LOCK] = self.lock
        position = us_to_steps(self.horn_us)
        f.put_u16(regs, f.PRESENT_POSITION, f.to_sign_magnitude(position, f.POSITION_SIGN_BIT))
        speed = round(self.speed_us_s * f.STEPS_PER_TURN_STS / PULSE_SPAN_US)
        f.put_u16(regs, f.PRESENT_SPEED, f.to_sign_magnitude(max(-0x7FFF, min(0x7FFF, speed)), f.SPEED_SIGN_BIT))
        f.put_u16(regs, f.PRESENT_LOAD, f.to_sign_magnitude(self.load, f.LOAD_SIGN_BIT))
        regs[f.PRESENT_VOLTAGE] = VOLTAGE
        regs[f.PRESENT_TEMPERATURE] = TEMPERATURE
        regs[f.MOVING] = 1 if self.torque and abs(self.speed_us_s) > 1.0 else 0
        f.put_u16(regs, f.PRESENT_CURRENT, f.to_sign_magnitude(abs(self.load) // 2, f.CURRENT_SIGN_BIT))
        return regs

    def write(self, address: int, data: bytes | bytearray) -> None:
        """A WRITE (or a SYNC WRITE row) of ``data`` at ``address``."""
        for offset, value in enumerate(data):
            self._write_byte(address + offset, value, data, offset)

    def _write_byte(self, register: int, value: int, data: bytes | bytearray, offset: int) -> None:
        if register == f.TORQUE_ENABLE:
            self.set_torque(bool(value))
        elif register == f.GOAL_POSITION and offset + 1 < len(data):
            self.goal_steps = f.from_sign_magnitude(value | (data[offset + 1] << 8), f.POSITION_SIGN_BIT)
        elif register == f.GOAL_TIME and offset + 1 < len(data):
            self.goal_time = value | (data[offset + 1] << 8)
        elif register == f.GOAL_SPEED and offset + 1 < len(data):
            self.speed_steps_s = abs(f.from_sign_magnitude(value | (data[offset + 1] << 8), f.SPEED_SIGN_BIT))
        elif register == f.TORQUE_LIMIT and offset + 1 < len(data):
            self.torque_limit = min(FULL_TORQUE, value | (data[offset + 1] << 8))
        elif register == f.RETURN_DELAY_TIME:
            self.return_delay = value
        elif register == f.LOCK:
            self.lock = value


def _clamp(value: float, low: float | None, high: float | None) -> float:
    if low is not None and value < low:
        return low
    if high is not None and value > high:
        return high
    return value


class SimServoBus:
    """The data line and the servos on it (module doc), on the clock ``now_s``.

    ``ids[ch]`` is channel ``ch``'s servo; ``traits`` (one per channel) say how each horn follows its goal;
    ``start_us`` (one per channel) where each horn is at power-up; ``stop_us(ch)`` (or None) the pulses the world
    lets channel ``ch``'s horn reach now. ``delay_us`` (or None) replaces every servo's Return Delay Time; ``corrupt``
    is the probability that an answer has one bit flipped; ``seed`` makes those draws repeat.
    """

    def __init__(
        self,
        ids: Sequence[int],
        *,
        now_s: Callable[[], float],
        traits: Sequence[ServoTraits] | None = None,
        start_us: Sequence[float] | None = None,
        baud: int = DEFAULT_BAUD,
        echo: bool = True,
        delay_us: float | None = None,
        corrupt: float = 0.0,
        seed: int = 0,
        stop_us: StopFn | None = None,
        powered: Callable[[], bool] | None = None,
        turnaround_us: float = 0.0,
    ) -> None:
        channels = len(ids)
        traits = list(traits) if traits is not None else [ServoTraits(None, RESPONSE_S)] * channels
        start = list(start_us) if start_us is not None else [1500.0] * channels
        if len(traits) != channels or len(start) != channels:
            raise ConfigError(f"bus servo traits or start poses for {len(traits)} servos: expected {channels}")
        self.ids = tuple(ids)
        self.channels = channels
        self.servos = [SimBusServo(i, t, position_us=p) for i, t, p in zip(ids, traits, start, strict=True)]
        self.now_s = now_s
        self.byte_s = BITS_PER_BYTE / baud
        self.echo = echo
        self.delay_us = delay_us
        self.corrupt = corrupt
        self._rng = random.Random(f"{seed}:bus:corrupt")
        self.stop_us: StopFn = stop_us if stop_us is not None else (lambda channel: (None, None))
        #: Whether the servo rail is on (the servos' own power): without it they are limp and answer nothing.
        self.powered: Callable[[], bool] = powered if powered is not None else (lambda: True)
        self._line_free_s = 0.0
        #: How long after its last byte the board still drives the line (its direction pin's turn-around), in s.
        self.turnaround_s = turnaround_us / 1e6
        self._board_done_s = -1.0  # when the board's last byte went out
        self.lost_bytes = 0  # answer bytes that came while the board still drove the line
        self._rx: deque[tuple[float, int]] = deque()  # (arrival time in s, byte) toward the board, in time order
        self._reader = f.PacketReader()
        self.frames = 0  # instruction frames the servos took
        self.answers = 0
        self.corrupted = 0
        #: Every goal change, as VirtualServos keeps its pulse changes: (time in s, channel, goal µs or None).
        self.history: list[tuple[float, int, int | None]] = []

    # --- the line, seen from the board ----------------------------------------------------------------------
    def write(self, data: bytes, t_s: float) -> None:
        """The board puts ``data`` on the line at ``t_s``: echoed as it goes out, acted on when each frame ends."""
        start_s = max(t_s, self._line_free_s)
        self._board_done_s = max(self._board_done_s, start_s + len(data) * self.byte_s)
        for k, byte in enumerate(data):
            at_s = start_s + (k + 1) * self.byte_s
            if self.echo:
                self._rx.append((at_s, byte))
            if self._reader.take(byte):
                self._line_free_s = at_s
                self._act(at_s)
        self._line_free_s = max(self._line_free_s, start_s + len(data) * self.byte_s)

    def available(self, t_s: float) -> int:
        """Bytes arrived at the board by ``t_s``."""
        count = 0
        for at_s, _byte in self._rx:
            if at_s > t_s + 1e-12:
                break
            count += 1
        return count

    def read(self, n: int, t_s: float) -> bytes:
        """Up to ``n`` bytes that arrived by ``t_s``, taken off the line."""
        out = bytearray()
        rx = self._rx
        while rx and len(out) < n and rx[0][0] <= t_s + 1e-12:
            out.append(rx.popleft()[1])
        return bytes(out)

    def busy_until_s(self) -> float:
        """When the line is free again."""
        return self._line_free_s

    def clear_line(self, t_s: float) -> None:
        """Drop every byte still on its way to the board and free the line at ``t_s``."""
        self._rx.clear()
        self._reader.reset()
        self._line_free_s = t_s
        self._board_done_s = min(self._board_done_s, t_s)

    # --- the servos ---------------------------------------------------------------------------------------
    def settle(self, t_s: float) -> None:
        """Move every horn to ``t_s`` (a servo without power drops its torque: it comes back limp)."""
        powered = self.powered()
        for channel, servo in enumerate(self.servos):
            if not powered and servo.torque:
                servo.settle(t_s, self.stop_us(channel))
                servo.set_torque(False)
                self.history.append((t_s, channel, None))
            servo.settle(t_s, self.stop_us(channel))

    def servo(self, servo_id: int) -> SimBusServo | None:
        """The servo with bus id ``servo_id`` (None: nobody has it)."""
        for servo in self.servos:
            if servo.servo_id == servo_id:
                return servo
        return None

    def pulses_us(self) -> list[int | None]:
        """Each servo's goal as a pulse in µs, None while its torque is off (what VirtualServos.pulses_us says)."""
        return [round(steps_to_us(s.goal_steps)) if s.torque else None for s in self.servos]

    def positions_us(self) -> list[float | None]:
        """Where each driven horn is now (µs), None for a limp one (it holds nothing: the world sees no pose)."""
        self.settle(self.now_s())
        return [s.horn_us if s.torque else None for s in self.servos]

    def horns_us(self) -> list[float]:
        """Where every horn is now (µs), limp ones too."""
        self.settle(self.now_s())
        return [s.horn_us for s in self.servos]

    def release_all(self) -> None:
        """Every servo limp (their power cut: a servo rail off, as a board reset never does to bus servos)."""
        for servo in self.servos:
            servo.set_torque(False)

    # --- internals ------------------------------------------------------------------------------------------
    def _act(self, t_s: float) -> None:
        """The frame just read reached every servo at ``t_s``: the addressed one acts (and may answer)."""
        reader = self._reader
        self.take_frame(bytes(reader.buf[: reader.size]), t_s)

    def take_frame(self, frame: bytes, t_s: float, *, answer: bool = True) -> None:
        """The whole, well-formed ``frame`` reached every servo at ``t_s`` (s): the addressed one acts, and answers
        on this line unless ``answer`` is False (the virtual Pico's bus model answers on the chip's own time)."""
        self.frames += 1
        servo_id, instruction = frame[2], frame[4]
        params = frame[5:-1]
        self.settle(t_s)
        if not self.powered():
            return  # nobody on the line hears it
        if instruction == f.SYNC_WRITE and servo_id == f.BROADCAST_ID and len(params) >= 2:
            address, length = params[0], params[1]
            rows = params[2:]
            for at in range(0, len(rows) - length, 1 + length):
                servo = self.servo(rows[at])
                if servo is not None:
                    self._write(servo, address, rows[at + 1 : at + 1 + length], t_s)
            return
        if instruction == f.WRITE and servo_id == f.BROADCAST_ID and len(params) >= 2:
            for servo in self.servos:
                self._write(servo, params[0], params[1:], t_s)
            return
        servo = self.servo(servo_id)
        if servo is None:
            return
        if instruction == f.WRITE and len(params) >= 2:  # acted on, then answered (manual 1.3.3)
            self._write(servo, params[0], params[1:], t_s)
            if not servo.silent and answer:
                self._answer(servo, b"", t_s)
            return
        if servo.silent or not answer:  # it hears, it does not answer (a broken return path, a servo in a fault)
            return
        if instruction == f.READ and len(params) == 2:
            address, length = params[0], params[1]
            regs = servo.registers()
            data = bytes(regs[address : address + length]).ljust(length, b"\x00")
            self._answer(servo, data, t_s)
        elif instruction == f.PING:
            self._answer(servo, b"", t_s)

    def _write(self, servo: SimBusServo, address: int, data: bytes, t_s: float) -> None:
        torque_before = servo.torque
        goal_before = servo.goal_steps
        servo.write(address, data)
        channel = self.servos.index(servo)
        if servo.torque != torque_before or (servo.torque and servo.goal_steps != goal_before):
            pulse = round(steps_to_us(servo.goal_steps)) if servo.torque else None
            self.history.append((t_s, channel, pulse))

    def _answer(self, servo: SimBusServo, data: bytes, t_s: float) -> None:
        """Queue ``servo``'s status packet with ``data``, after its return delay."""
        buf = bytearray(len(data) + 6)
        at = f.begin(buf, servo.servo_id, 0, len(data))
        buf[at : at + len(data)] = data
        n = f.seal(buf)
        if self.corrupt and self._rng.random() < self.corrupt:
            bit = self._rng.randrange(8 * (n - 2))
            buf[2 + bit // 8] ^= 1 << (bit % 8)
            self.corrupted += 1
        delay_s = (self.delay_us if self.delay_us is not None else 2.0 * servo.return_delay) / 1e6
        start_s = max(t_s + delay_s, self._line_free_s)
        heard_from_s = self._board_done_s + self.turnaround_s if self.turnaround_s > 0 else -1.0
        for k in range(n):
            if start_s + k * self.byte_s < heard_from_s:  # the board still drives the line: this byte is lost
                self.lost_bytes += 1
                continue
            self._rx.append((start_s + (k + 1) * self.byte_s, buf[k]))
        self._line_free_s = start_s + n * self.byte_s
        self.answers += 1


class SimUart:
    """The board's ``machine.UART`` on ``bus`` at the board's time ``now_s()``: ``write``, ``any``,
    ``readinto(buf, n)``, ``flush``. :meth:`sleep_ms` (a boot's blocking read) moves its own time on, not the
    board's."""

    def __init__(self, bus: SimServoBus, now_s: Callable[[], float]) -> None:
        self.bus = bus
        self._now_s = now_s
        self._skew_s = 0.0

    def now_s(self) -> float:
        """The UART's time: the board's, plus what a boot has slept."""
        return self._now_s() + self._skew_s

    def write(self, data: bytes | bytearray | memoryview) -> int:
        payload = bytes(data)
        self.bus.write(payload, self.now_s())
        return len(payload)

    def any(self) -> int:
        return self.bus.available(self.now_s())

    def readinto(self, buf: bytearray, nbytes: int | None = None) -> int | None:
        n = len(buf) if nbytes is None else min(nbytes, len(buf))
        data = self.bus.read(n, self.now_s())
        if not data:
            return None
        buf[: len(data)] = data
        return len(data)

    def flush(self) -> None:
        """Every byte written is on the line (the simulated line takes them as written)."""

    def sleep_ms(self, ms: int) -> None:
        """Wait ``ms`` of the UART's own time (the boot's blocking read of what the servos hold)."""
        self._skew_s += ms / 1000.0

    def end_boot(self) -> None:
        """The boot's waits are over: back on the board's time. A simulated boot takes no board time, so what its
        reads left on the line (the echo of a READ nobody answered) is gone before the first control step."""
        self._skew_s = 0.0
        self.bus.clear_line(self._now_s())


def bus_from_options(options: Mapping[str, str], *, ids: Sequence[int], seed: int = 0) -> BusSpec:
    """The bus of servos ``ids`` with the fault options of a ``sim://`` URL: ``silent`` (bus ids that never answer,
    joined by commas), ``corrupt`` (a probability per answer), ``delay_us`` (every servo's answer delay in µs),
    ``grip_torque`` (the gripper's torque limit, 1..1000); ConfigError names a bad one."""
    silent: tuple[int, ...] = ()
    if "silent" in options:
        try:
            silent = tuple(int(part) for part in options["silent"].split(","))
        except ValueError:
            silent = ()
        if not silent or not all(0 <= i <= f.MAX_ID for i in silent):
            raise ConfigError(
                f"sim option silent={options['silent']!r} is invalid: expected bus ids 0..{f.MAX_ID} joined by commas"
            )
    corrupt = 0.0
    if "corrupt" in options:
        corrupt = _number(options["corrupt"])
        if not 0.0 <= corrupt < 1.0:
            raise ConfigError(f"sim option corrupt={options['corrupt']!r} is invalid: expected a probability in [0, 1)")
    delay_us = None
    if "delay_us" in options:
        delay_us = _number(options["delay_us"])
        if not 0.0 <= delay_us <= MAX_DELAY_US:
            raise ConfigError(
                f"sim option delay_us={options['delay_us']!r} is invalid: expected 0..{MAX_DELAY_US:g} µs"
            )
    grip_torque = FULL_TORQUE
    if "grip_torque" in options:
        text = options["grip_torque"]
        grip_torque = int(text) if text.isdigit() else -1
        if not 1 <= grip_torque <= FULL_TORQUE:
            raise ConfigError(
                f"sim option grip_torque={text!r} is invalid: expected 1..{FULL_TORQUE} (0.1 % of the stall torque)"
            )
    return BusSpec(
        ids=tuple(ids), silent=silent, corrupt=corrupt, delay_us=delay_us, seed=seed, grip_torque=grip_torque
    )


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return math.nan
    return value if math.isfinite(value) else math.nan
