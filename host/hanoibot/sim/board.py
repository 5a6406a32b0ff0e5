"""The simulated board: the real firmware :class:`~hanoifw.controller.Controller` driving virtual servos.

Time is a :class:`~hanoibot.clock.VirtualClock`; :meth:`SimBoard.run_until` advances it in control ticks of
``tick_s`` seconds and steps the controller at each one, so minutes of arm time simulate in a fraction of that.
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

from hanoifw.controller import Controller
from hanoifw.rxframe import FrameReader

from ..clock import VirtualClock
from ..motion.drivers import output_us
from ..motion.servo_model import ServoTraits
from .chip import ChipTime
from .servos import PWM_FRAME_S, VirtualServos

#: Control period of the simulated firmware loop, in seconds.
TICK_S = 0.01
#: The firmware's loop samples the grip current this often between two control ticks, in s (hanoifw.board).
GRIP_SAMPLE_S = 0.002
#: Current in A a driven servo draws from the rail at rest (the grip sensor's stall comes on top).
SERVO_REST_A = 0.05
#: Times closer than this (s) are the same instant (float sums of ticks are not exact).
_TIME_EPSILON_S = 1e-9

Event = dict[str, Any]
EventListener = Callable[[Event], None]


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
        channels: int = 5,
        seed: int | None = None,
        world: World | None = None,
        max_speed_us_per_s: list[float | None] | None = None,
        servo_traits: list[ServoTraits] | None = None,
        tick_s: float = TICK_S,
        on_event: EventListener | None = None,
        stagger_ms: int = 200,
        slow: float | None = None,
        outputs_survive_reset: bool = False,
        servo_driver: str | None = None,
    ) -> None:
        self.clock = clock if clock is not None else VirtualClock()
        self.channels = channels
        self.world = world
        self.tick_s = tick_s
        self.stagger_ms = stagger_ms  # the firmware switches outputs on this far apart after CONFIG
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
        self.servos = VirtualServos(
            channels,
            now_s=self.clock.now_s,
            max_speed_us_per_s=max_speed_us_per_s,
            frame_s=PWM_FRAME_S,
            frame_phase_s=tick_s / 2,
            traits=servo_traits,
            output_us=None if servo_driver is None else functools.partial(output_us, servo_driver),
        )
        if world is not None and hasattr(world, "on_event"):
            world.on_event = self._log_world_event
        self._connect_sensors(tick_s / 2)
        self._next_sample_s = math.inf
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
        if self.chip is not None:
            self.run_until(self.clock.now_s())
        elif self._fed:
            self._run_controller(self.clock.now_s())

    def run_until(self, t_s: float) -> None:
        """Advance virtual time to ``t_s`` seconds, stepping the controller at every control tick on the way (and,
        with chip time, handing it each frame when the chip is done with it)."""
        while True:
            frame_s = self.next_frame_done_s
            sample_s = self._next_sample_s
            if min(frame_s, self.next_tick_s, sample_s) > t_s + _TIME_EPSILON_S:
                break
            if sample_s < min(frame_s, self.next_tick_s) - _TIME_EPSILON_S:  # the loop samples the grip current
                self.clock.advance(max(0.0, sample_s - self.clock.now_s()))
                self.controller.sample_sensors(round(sample_s * 1000.0))
                self._next_sample_s = sample_s + GRIP_SAMPLE_S
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
            if self.controller.grip_sensor is not None:
                self._next_sample_s = tick_s + GRIP_SAMPLE_S
        self.clock.advance(t_s - self.clock.now_s())

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
        self.controller = self._boot(cause)

    @property
    def next_frame_done_s(self) -> float:
        """Virtual time in s when the chip finishes the next waiting frame (inf: none waits, or no chip time)."""
        return self.chip.next_frame_done_s() if self.chip is not None else math.inf

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
            return self.servos.pulses_us()[-1] is not None and rail_is_on()

        def load_a() -> float:
            driven = sum(1 for pulse in self.servos.pulses_us() if pulse is not None)
            stall_a = grip.servo.mean_a(True) if grip is not None and grip.is_stalled() and gripper_is_driven() else 0
            return driven * SERVO_REST_A + stall_a

        if grip is not None and hasattr(grip, "connect"):
            grip.connect(now_s=self.clock.now_s, is_driven=gripper_is_driven, frame_phase_s=frame_phase_s)
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
        held = self.servos.pulses_us() if self.outputs_survive_reset else [None]
        controller = Controller(
            self.servos,
            channels=self.channels,
            held_us=None if None in held else held,
            boot_id=self._boot_id,
            reset_cause=cause,
            grip_sensor=grip_sensor,
            rail_sense=rail_sense,
            stagger_ms=self.stagger_ms,
        )
        attach = getattr(self.world, "attach", None)
        if attach is not None:
            attach(controller)
        if self._boot_count > 1:
            self.log("reset", boot_id=self._boot_id, cause=cause)
        return controller

    def _run_controller(self, t_s: float) -> None:
        """Step the controller at ``t_s`` and log what its output frames say."""
        self._fed = False
        out = self.controller.step(round(t_s * 1000.0))
        if out:
            self._output += out
            if b"DONE" in out or b"ERROR" in out:  # the only frames that make events; skip decoding the rest
                for kind, _seq, _ack, fields in self._reader.feed(out):
                    self._note_frame(kind, fields)

    def _note_frame(self, kind: str, fields: list[str]) -> None:
        """Turn one outgoing frame into events (DONE, ERROR, newly latched faults in STATUS)."""
        if kind == "DONE":
            self.log("executed", cmd_id=int(fields[0]))
        elif kind == "ERROR":
            self.log("error", code=fields[0], cmd_id=fields[1], text=",".join(fields[2:]))

    def _horn_pulses_us(self) -> list[int | None]:
        """Physical servo positions rounded to whole µs (None = released), for the world."""
        return [None if p is None else round(p) for p in self.servos.positions_us()]
