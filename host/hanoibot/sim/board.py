"""The simulated board: the real firmware :class:`~hanoifw.controller.Controller` driving virtual servos.

Time is a :class:`~hanoibot.clock.VirtualClock`; :meth:`SimBoard.run_until` advances it in control ticks of
``tick_s`` seconds and steps the controller at each one, so minutes of arm time simulate in a fraction of that.
With a ``port`` (a :class:`~hanoibot.sim.ports.PortModel`: ``sim://?port=esp32``) the board runs the firmware's
own main loop instead, as that port schedules it (:mod:`hanoibot.sim.board_loop`: its poll waits, timers and
Ctrl-C), with the port's output resolution, its hardware watchdog and its REPL; the world still moves every tick.
Everything the board does that a test or a log wants to see lands in :attr:`SimBoard.events` as one dict each:
``executed`` (a DONE, with ``cmd_id``), ``error`` (an ERROR frame), ``fault`` (a newly latched fault), ``reset``
(a reboot) and ``injected`` (a wire fault, added by :class:`~hanoibot.sim.wire.FaultyWire`). An optional
*world* (arm and disk physics) sees the servo horns after every tick; its own events (pick, place, drop, fault)
join :attr:`SimBoard.events` with ``"source": "world"``.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from typing import Any, Protocol

from hanoifw.board import start_grip_timer
from hanoifw.boardpins import BoardConfigError, check_port_version
from hanoifw.busservos import BusGripLoad, BusServos
from hanoifw.controller import Controller
from hanoifw.rxframe import FrameReader
from hanoifw.sensing import GRIP_SAMPLE_MS

from ..clock import VirtualClock
from ..errors import ConfigError
from ..link.codes import Kind
from ..motion.drivers import output_us
from ..motion.servo_model import ServoTraits
from .board_bus import make_servo_bus
from .board_loop import HARDWARE_WDT_MS, BoardLoop
from .board_timers import GripTimer, clock_us, make_grip_timer
from .bus import BusSpec, SimServoBus, SimUart
from .chip import ChipTime
from .ports import PortModel
from .servos import PWM_FRAME_S, VirtualServos

#: Control period of the simulated firmware loop, in seconds.
TICK_S = 0.01
#: The firmware's timer samples the grip current this often, in s, on a fixed grid of virtual time whatever the
#: control ticks do (hanoifw.board.start_grip_timer; main.py's machine.Timer).
GRIP_SAMPLE_S = GRIP_SAMPLE_MS / 1000.0
#: Current in A a driven servo draws from the rail at rest (the grip sensor's stall comes on top).
SERVO_REST_A = 0.05
#: Times closer than this (s) are the same instant (float sums of ticks are not exact).
_TIME_EPSILON_S = 1e-9
#: The kinds of outgoing frame that make events, as bytes: output holding neither is not decoded.
_DONE_BYTES = Kind.DONE.encode()
_ERROR_BYTES = Kind.ERROR.encode()

Event = dict[str, Any]
EventListener = Callable[[Event], None]


#: The outputs of a board flashed with the shipped firmware_micropython/board_config.py (its ``CHANNELS``): a
#: simulated board's when neither its world's robot config nor its servo speeds say how many.
SHIPPED_BOARD_CHANNELS = 5


class World(Protocol):
    """What the board needs from a physics model (sim/world.py provides one)."""

    grip_sensor: Any

    def on_tick(self, t_s: float, pulses_us: list[int | None]) -> None: ...


class SimBoard:
    """The firmware core, virtual servos and an optional world on one virtual clock."""

    _boards_made = 0

    def __init__(
        self,
        *,
        clock: VirtualClock | None = None,
        channels: int | None = None,
        seed: int | None = None,
        world: World | None = None,
        max_speed_us_per_s: list[float | None] | None = None,
        servo_traits: list[ServoTraits] | None = None,
        tick_s: float = TICK_S,
        on_event: EventListener | None = None,
        stagger_ms: int = 200,
        slow: float | None = None,
        outputs_survive_reset: bool = False,
        port: PortModel | None = None,
        servo_driver: str | None = None,
        bus: BusSpec | None = None,
    ) -> None:
        if port is not None and slow is not None:
            raise ConfigError("sim options port and slow cannot go together: a port model runs the firmware's loop")
        self.clock = clock if clock is not None else VirtualClock()
        #: The MicroPython port this board behaves like (None: the controller stepped on an exact grid).
        self.port = port
        if channels is None:
            config = getattr(world, "config", None)  # the robot the world is built for: its arm's servos + gripper
            if config is not None:
                channels = int(config.channels)
            else:
                channels = len(max_speed_us_per_s) if max_speed_us_per_s else SHIPPED_BOARD_CHANNELS
        self.channels = channels
        #: The gripper's channel: the last (the firmware's default, ``Controller(grip_channel=-1)``).
        self.grip_channel = channels - 1
        self.world = world
        self.tick_s = tick_s
        self.stagger_ms = stagger_ms  # the firmware switches outputs on this far apart after CONFIG
        #: The servo output's driver (hanoibot.motion.drivers), whose counts every pulse comes out in (None: exact µs).
        self.servo_driver = servo_driver
        # ``servo_driver`` (hanoibot.motion.drivers: "pca9685", "esp32s3", "rp2", ...; None = exact µs): the output
        # the servos hang on, whose counts every pulse comes out in.
        # A PCA9685 keeps pulsing through a reset of the MCU (the firmware finds its outputs on at boot); the
        # RP2040's own PWM stops, and the servos go limp.
        self.outputs_survive_reset = outputs_survive_reset
        self.events: list[Event] = []
        self.on_event = on_event
        # None: the firmware answers a frame the instant it arrives; else frames and ticks cost chip time.
        self.chip = None if slow is None else ChipTime(slow=slow)
        # The servos take their pulse once per 50 Hz PWM frame; the frames start half a control tick after the
        # ticks (a real board's PWM counter runs apart from its control loop).
        #: The bus the servos hang on (``sim://?servo=sts``), or None: PWM outputs (:attr:`servos`).
        self.bus_spec = bus
        self.servo_bus: SimServoBus | None = None
        self.servos: VirtualServos | SimServoBus
        if bus is None:
            self.servos = VirtualServos(
                channels,
                now_s=self.clock.now_s,
                max_speed_us_per_s=max_speed_us_per_s,
                frame_s=PWM_FRAME_S,
                frame_phase_s=tick_s / 2,
                traits=servo_traits,
                output_us=None if servo_driver is None else functools.partial(output_us, servo_driver),
            )
        else:  # bus servos keep their torque and goal through a reset of the board (their own power)
            self.servo_bus = make_servo_bus(bus, channels, max_speed_us_per_s, servo_traits, world, self.clock.now_s)
            self.servos = self.servo_bus
            self.outputs_survive_reset = True
        self.bus_driver: BusServos | None = None  # the firmware's own driver, made at each boot
        if world is not None and hasattr(world, "on_event"):
            world.on_event = self._log_world_event
        self._loop: BoardLoop | None = None
        self._grip_timer: GripTimer | None = None
        self._samples_run = 0
        self._sample_at_s: float | None = None  # while the grip timer fires: its expiry time, in s
        self._step_at_s: float | None = None  # while the controller steps: the time of its step, in s
        self._connect_sensors(tick_s / 2)
        # Boot ids come from the OS's entropy, so boards in different processes (two `hanoibot emulate` runs,
        # an emulator restarted at the same path) never look like the same boot to `resume`. An explicit seed
        # makes them repeatable (in the order boards are made in one process) for tests.
        SimBoard._boards_made += 1
        self._rng = random.SystemRandom() if seed is None else random.Random(f"{seed}:boot:{SimBoard._boards_made}")
        self._boot_id = ""
        self._origin_s = self.clock.now_s()
        self._ticks_run = 0
        self._output = bytearray()
        self._boot_count = 0
        self._fed = False
        self.controller = self._boot("power")

    # --- the wire ------------------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Bytes arriving at the board's serial input (handled at the next :meth:`step` or tick, or, with chip
        time, once the chip has had time for each frame)."""
        if self.chip is not None:
            self.chip.arrive(data, self.clock.now_s())
            return
        if self._loop is not None:
            self._loop.arrive(data)
            return
        self.controller.feed(data)
        self._fed = True

    def take_output(self) -> bytes:
        """Everything the board has sent since the last call, and clear it."""
        data = bytes(self._output)
        self._output.clear()
        return data

    # --- time ----------------------------------------------------------------------------------------
    def step(self) -> None:
        """Answer input fed since the last step or tick at the current time, without advancing time."""
        if self.chip is not None or self._loop is not None:
            self.run_until(self.clock.now_s())
        elif self._fed:
            self._run_controller(self.clock.now_s())

    def run_until(self, t_s: float) -> None:
        """Advance virtual time to ``t_s`` seconds, stepping the controller at every control tick on the way (and,
        with chip time, handing it each frame when the chip is done with it; with a port model, running the
        firmware's loop at each of its events)."""
        if self.port is not None:
            self._run_ported_until(t_s)
            return
        while True:
            frame_s = self.next_frame_done_s
            sample_s = self.next_sample_s
            if min(frame_s, self.next_tick_s, sample_s) > t_s + _TIME_EPSILON_S:
                break
            if sample_s < min(frame_s, self.next_tick_s) - _TIME_EPSILON_S:  # the timer samples the grip current
                self.clock.advance(max(0.0, sample_s - self.clock.now_s()))
                self._samples_run += 1
                if self._grip_timer is not None:
                    # At its expiry time, also when the board catches up on a clock somebody else advanced (a
                    # host sleeping on it): the chip's timer fired then, not all at once now.
                    self._sample_at_s = sample_s
                    try:
                        self._grip_timer.fire()
                    finally:
                        self._sample_at_s = None
                continue
            if self.chip is not None and frame_s < self.next_tick_s:
                self.clock.advance(max(0.0, frame_s - self.clock.now_s()))
                self.controller.feed(self.chip.take_frame())
                self._run_controller(frame_s)
                continue
            tick_s = self.next_tick_s
            self.clock.advance(tick_s - self.clock.now_s())
            if self.chip is not None:
                self.chip.control_tick(tick_s)
            self._run_controller(tick_s)
            if self.world is not None:
                self.world.on_tick(tick_s, self._horn_pulses_us())
            self._ticks_run += 1
        self.clock.advance(t_s - self.clock.now_s())

    def _run_ported_until(self, t_s: float) -> None:
        """:meth:`run_until` with a port model: the firmware's loop runs at each of its events (timer expiries,
        the ends of its waits), the hardware watchdog resets the board when nothing fed it in time, and the world
        moves at every tick, in time order (the loop first at a tie, as the controller steps first by default)."""
        while True:
            loop = self._loop
            assert loop is not None
            event_us = loop.next_event_us()
            loop_s = math.inf if event_us is None else event_us / 1e6
            wdt_us = loop.watchdog_deadline_us
            wdt_s = math.inf if wdt_us is None else wdt_us / 1e6
            tick_s = self.next_tick_s
            if min(loop_s, wdt_s, tick_s) > t_s + _TIME_EPSILON_S:
                break
            if wdt_s <= min(loop_s, tick_s):
                self.clock.advance(max(0.0, wdt_s - self.clock.now_s()))
                self.reset("wdt")
                continue
            if loop_s <= tick_s + _TIME_EPSILON_S:
                self.clock.advance(max(0.0, loop_s - self.clock.now_s()))
                loop.run_due()
                continue
            self.clock.advance(max(0.0, tick_s - self.clock.now_s()))
            if self.world is not None:
                self.world.on_tick(tick_s, self._horn_pulses_us())
            self._ticks_run += 1
        self.clock.advance(max(0.0, t_s - self.clock.now_s()))

    @property
    def next_wake_s(self) -> float:
        """Virtual time in s when the board next does something by itself: its next tick, or with a port model
        the next event of its loop, if sooner."""
        wake_s = self.next_tick_s
        if self._loop is not None:
            event_us = self._loop.next_event_us()
            if event_us is not None:
                wake_s = min(wake_s, event_us / 1e6)
        return wake_s

    @property
    def is_at_repl(self) -> bool:
        """True when the firmware's loop has returned (a Ctrl-C with every output off): the board sits at its REPL
        until a reset (its watchdog's, once started). Only a board with a port model has a loop that can return."""
        return self._loop is not None and not self._loop.is_serving

    def catch_up(self) -> None:
        """Run the ticks that are due if somebody else advanced the clock."""
        self.run_until(self.clock.now_s())

    # --- lifecycle -----------------------------------------------------------------------------------
    def reset(self, cause: str = "reset") -> None:
        """Reboot: a new boot id, the queue and serial buffers lost, every servo released until CONFIG."""
        # Bytes already returned by step() are on the wire (the real main.py writes them at once): keep them.
        if not self.outputs_survive_reset:
            self.servos.release_all()
            if self.world is not None:  # the disks feel the limp servos now, not at the next control tick
                self.world.on_tick(self.clock.now_s(), self._horn_pulses_us())
        if self.chip is not None:
            self.chip.clear()
        if self._loop is not None:
            self._loop.stop()
        self.controller = self._boot(cause)

    @property
    def next_frame_done_s(self) -> float:
        """Virtual time in s when the chip finishes the next waiting frame (inf: none waits, or no chip time)."""
        return self.chip.next_frame_done_s() if self.chip is not None else math.inf

    @property
    def next_sample_s(self) -> float:
        """Virtual time in s of the grip timer's next expiry (inf: the board has no grip sensor)."""
        if self._grip_timer is None:
            return math.inf
        # Counted, like the ticks: expiry k is at origin + k * GRIP_SAMPLE_S, apart from the ticks and the frames.
        return self._origin_s + self._samples_run * GRIP_SAMPLE_S

    @property
    def next_tick_s(self) -> float:
        """Virtual time in s of the next control tick."""
        # Counted, not summed, so that tick k is at origin + k * tick_s however long the run.
        return self._origin_s + self._ticks_run * self.tick_s

    @property
    def boot_id(self) -> str:
        """The boot id announced since the last (re)boot."""
        return self._boot_id

    def log(self, event: str, **fields: Any) -> None:
        """Append one event stamped with the virtual time in s, and tell the listener."""
        record: Event = {"t_s": round(self.clock.now_s(), 6), "event": event, **fields}
        self.events.append(record)
        if self.on_event is not None:
            self.on_event(record)

    def _log_world_event(self, event: Event) -> None:
        """A pick, place, drop or fault seen by the world, logged like the board's own events."""
        record: Event = {"t_s": round(float(event.get("t_s", self.clock.now_s())), 6), "source": "world"}
        record.update((key, value) for key, value in event.items() if key != "t_s")
        self.events.append(record)
        if self.on_event is not None:
            self.on_event(record)

    def executed_cmd_ids(self) -> list[int]:
        """Command ids the board reported DONE, in the order it did so."""
        return [event["cmd_id"] for event in self.events if event["event"] == "executed"]

    # --- internals -----------------------------------------------------------------------------------
    def _bus_driver(self) -> tuple[BusServos, list[int]]:
        """A boot's bus driver (the firmware's own, on a simulated UART) and what the servos hold since before."""
        assert self.servo_bus is not None and self.bus_spec is not None
        uart = SimUart(self.servo_bus, self._bus_now_s)
        driver = BusServos(uart, self.bus_spec.ids, echo=self.bus_spec.echo)
        held = driver.read_held_us(uart.sleep_ms)
        uart.end_boot()
        return driver, held

    def _connect_sensors(self, frame_phase_s: float) -> None:
        """Tie the world's grip sensor and rail to this board's clock and servos: the gripper (the last channel)
        draws current only while it gets pulses on a powered rail, and the servos load the rail."""
        world = self.world
        if world is None:
            return
        rail = getattr(world, "rail", None)
        grip = getattr(world, "grip_sensor", None)

        def rail_is_on() -> bool:
            return rail is None or bool(rail.is_powered)

        def gripper_is_driven() -> bool:
            return self.servos.pulses_us()[self.grip_channel] is not None and rail_is_on()

        def load_a() -> float:
            driven = sum(1 for pulse in self.servos.pulses_us() if pulse is not None)
            stall_a = grip.servo.mean_a(True) if grip is not None and grip.is_stalled() and gripper_is_driven() else 0
            return driven * SERVO_REST_A + stall_a

        if grip is not None and hasattr(grip, "connect"):  # the ADC converts at the board's time
            grip.connect(now_s=self._board_now_s, is_driven=gripper_is_driven, frame_phase_s=frame_phase_s)
        if rail is not None and hasattr(rail, "connect"):
            rail.connect(now_s=self.clock.now_s, load_a=load_a)

    def _boot(self, cause: str) -> Controller:
        """Make a fresh controller with a new random boot id."""
        self._boot_count += 1
        previous_id = self._boot_id
        while self._boot_id == previous_id:  # a reset is always a new boot id, even for a seeded stream
            self._boot_id = f"{self._rng.getrandbits(32):08x}"
        self._reader = FrameReader()
        self._faults: set[str] = set()
        grip_sensor = self.world.grip_sensor if self.world is not None else None
        rail_sense = getattr(self.world, "rail", None)
        held: list[int | None] = list(self.servos.pulses_us()) if self.outputs_survive_reset else [None]
        board_error = self._port_error()
        hal: Any = self.servos
        if self.servo_bus is not None and not board_error:  # main.py's make_bus_servos
            hal, held_pulses = self._bus_driver()
            self.bus_driver = hal
            held = list(held_pulses)
            if grip_sensor is not None:  # the gripper's own load is the grip sensor
                grip_sensor = BusGripLoad(hal)
        if board_error:  # main.py's serve_board_error: no sensors, no watchdog, never an output on
            grip_sensor = rail_sense = None
        controller = Controller(
            hal,
            channels=self.channels,
            held_us=None if None in held else held,
            boot_id=self._boot_id,
            reset_cause=cause,
            grip_sensor=grip_sensor,
            rail_sense=rail_sense,
            stagger_ms=self.stagger_ms,
            board_error=board_error,
        )
        if self._grip_timer is not None:  # a reset stops the old boot's timer; the new boot starts its own
            self._grip_timer.deinit()
        if self.port is not None:  # main.py's end: the port's grip timer and the firmware's own loop
            self._grip_timer = None
            self._loop = BoardLoop(
                controller,
                self.port,
                now_us=clock_us(self.clock),
                write=self._board_wrote,
                period_ms=round(self.tick_s * 1000),
                wdt_ms=None if board_error else HARDWARE_WDT_MS,
            )
        else:
            self._grip_timer = start_grip_timer(controller, make_grip_timer, self._ticks_ms)
        attach = getattr(self.world, "attach", None)
        if attach is not None:
            attach(controller)
        if self._boot_count > 1:
            self.log("reset", boot_id=self._boot_id, cause=cause)
        return controller

    def _port_error(self) -> str:
        """Why main.py would refuse this port's MicroPython (esp32 before 1.26), or ""."""
        if self.port is None:
            return ""
        try:
            check_port_version(self.port.platform, self.port.micropython)
        except BoardConfigError as err:
            return str(err)
        return ""

    def _board_wrote(self, data: bytes) -> None:
        """What the firmware's loop sent, at the current time."""
        self._output += data
        self._note_output(data)

    def _board_now_s(self) -> float:
        """The board's time in s: the virtual time, or, while the grip timer fires, its expiry time."""
        return self.clock.now_s() if self._sample_at_s is None else self._sample_at_s

    def _bus_now_s(self) -> float:
        """The time the bus driver's UART sees, in s: the controller's step's while it steps (a tick the board
        catches up on, after a host slept on the clock, writes and reads the line at its own time, so the echo
        of what it sent is back by the next step), else :meth:`_board_now_s`."""
        return self._board_now_s() if self._step_at_s is None else self._step_at_s

    def _ticks_ms(self) -> int:
        """The board's ``time.ticks_ms()``: :meth:`_board_now_s` in whole ms."""
        return round(self._board_now_s() * 1000.0)

    def _run_controller(self, t_s: float) -> None:
        """Step the controller at ``t_s`` and log what its output frames say."""
        self._fed = False
        self._step_at_s = t_s
        try:
            out = self.controller.step(round(t_s * 1000.0))
        finally:
            self._step_at_s = None
        if out:
            self._output += out
            self._note_output(out)

    def _note_output(self, out: bytes) -> None:
        """Log what the board's outgoing frames say (DONE, ERROR)."""
        if _DONE_BYTES in out or _ERROR_BYTES in out:  # the only frames that make events; skip decoding the rest
            for kind, _seq, _ack, fields in self._reader.feed(out):
                self._note_frame(kind, fields)

    def _note_frame(self, kind: str, fields: list[str]) -> None:
        """Turn one outgoing frame into events (DONE, ERROR, newly latched faults in STATUS)."""
        if kind == Kind.DONE:
            self.log("executed", cmd_id=int(fields[0]))
        elif kind == Kind.ERROR:
            self.log("error", code=fields[0], cmd_id=fields[1], text=",".join(fields[2:]))

    def _horn_pulses_us(self) -> list[int | None]:
        """Physical servo positions rounded to whole µs (None = released), for the world."""
        return [None if p is None else round(p) for p in self.servos.positions_us()]
