"""Feetech STS bus servos on the virtual Pico (``vpico://?servo=sts``): the Python half of the harness's bus model.

The harness (``feetech_bus.mjs``) is the data line on the chip's UART0 (GP0 TX, GP1 RX, as board_config.py wires
the bus on an RP2040): it echoes what the chip sends and answers READs after each servo's return delay, on chip time.
Here the servos move: :class:`PicoBus` keeps a :class:`~hanoibot.sim.bus.SimServoBus` (the reference model of
``sim://?servo=sts``), acts on every frame the harness reports at the chip time it reached the servos, lets the
horns follow their goals at their speed (hanoibot's one servo model), stopped where the world says (a disk between
the fingers, an obstacle), and hands the world the horns, as a PCA9685's outputs are handed to it. After each tick
the servos' registers (position, speed, load, torque...) go back to the harness, so the chip reads what the world
did: the gripper's load is its position loop's effort against a disk it closed on.

The servos have their own supply (the servo rail): they keep torque and goal through a reset or power cycle of the
board, and go limp without a word when the rail is cut (:attr:`PicoBus.powered`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...errors import ConfigError
from ...motion.servo_model import ServoTraits
from ...sim_url import BUS_OPTIONS
from ..bus import DEFAULT_BAUD, BusSpec, SimServoBus, bus_from_options

#: The harness's name for the firmware's bus driver (board_config.py ``SERVO_DRIVER = "bus"``).
BOARD_DRIVER = "bus"
#: The vpico:// name of bus servos, as sim://?servo=sts names them.
SERVO_KIND = "sts"
#: The board's bus UART on an RP2040 (board_config.py BUS_UART: UART0 on GP0/GP1).
UART_ID = 0


def pico_bus_spec(options: Mapping[str, str], channels: int, seed: int | None) -> BusSpec | None:
    """The bus of a ``vpico://`` URL's options (None unless ``servo=sts``): ids 1..``channels`` as ``hanoibot init``
    wires them, with the fault options ``silent``, ``corrupt``, ``delay_us``; ConfigError names a bad one or a bus
    option without ``servo=sts``."""
    if options.get("servo", "pwm") != SERVO_KIND:
        given = [name for name in BUS_OPTIONS if name in options]
        if given:
            raise ConfigError(f"vpico:// option {given[0]} is for bus servos: add servo=sts")
        return None
    return bus_from_options(options, ids=range(1, channels + 1), seed=seed or 0)


class PicoBus:
    """The servos on the virtual Pico's bus ``spec`` (module doc), on the chip's clock ``now_s``; ``world`` (or
    None) gives their speeds, start poses and stops; ``powered()`` says whether the servo rail is on."""

    def __init__(self, spec: BusSpec, *, now_s: Callable[[], float], world: Any, powered: Callable[[], bool]) -> None:
        channels = len(spec.ids)
        config = getattr(world, "config", None)
        traits: Sequence[ServoTraits] | None = getattr(world, "servo_traits", None)
        if traits is None:
            speeds = getattr(world, "max_speed_us_per_s", None) or [None] * channels
            traits = [ServoTraits(speed) for speed in speeds]
        self.spec = spec
        self.powered = powered
        self.bus = SimServoBus(
            spec.ids,
            now_s=now_s,
            traits=traits,
            start_us=list(config.start_pulses_us()) if config is not None else None,
            baud=spec.baud,
            echo=spec.echo,
            stop_us=getattr(world, "servo_stop_us", None),
            powered=powered,
        )

    @property
    def history(self) -> list[tuple[float, int, int | None]]:
        """Every goal change: (chip time in s, channel, goal as a pulse in µs or None for torque off)."""
        return self.bus.history

    def harness_options(self) -> dict[str, Any]:
        """The harness's ``bus`` option: the line, the ids and the faults the harness plays."""
        spec = self.spec
        return {
            "uart": UART_ID,
            "ids": list(spec.ids),
            "baud": spec.baud or DEFAULT_BAUD,
            "echo": spec.echo,
            "silent": list(spec.silent),
            "corrupt": spec.corrupt,
            "delay_us": spec.delay_us,
        }

    def on_tick(self, t_s: float, frames: Sequence[Sequence[Any]]) -> list[int | None]:
        """The frames (``[t_ns, hex]`` each) the servos took since the last tick, acted on at their chip time, then
        every horn moved to ``t_s``; returns the horns as pulses in µs (None: limp), for the world."""
        bus = self.bus
        for t_ns, text in frames:
            bus.take_frame(bytes.fromhex(str(text)), float(t_ns) / 1e9, answer=False)
        bus.settle(t_s)
        return [None if p is None else round(p) for p in bus.positions_us()]

    def pulses_us(self) -> list[int | None]:
        """Each servo's goal as a pulse in µs, None while its torque is off."""
        return self.bus.pulses_us()

    def registers_message(self) -> dict[str, Any]:
        """The harness's ``bus`` input: every servo's registers now and whether the rail powers them."""
        regs = {str(servo.servo_id): bytes(servo.registers()).hex() for servo in self.bus.servos}
        return {"op": "bus", "powered": bool(self.powered()), "regs": regs}

    def release_all(self) -> None:
        """Nothing: bus servos keep their torque and goal through a reset of the board (their own supply)."""


def make_pico_bus(pico: Any, servo_driver: str, options: Mapping[str, str] | None) -> PicoBus | None:
    """The bus servos of the virtual Pico ``pico`` when ``servo_driver`` is ``sts`` (None otherwise), with the fault
    options ``options`` of its URL (None: none): one servo per channel of its world's arm, powered by its rail."""
    if servo_driver != SERVO_KIND:
        return None
    spec = pico_bus_spec({"servo": SERVO_KIND, **(options or {})}, pico.channels, pico.seed)
    assert spec is not None
    return PicoBus(spec, now_s=lambda: pico.time_s, world=pico.world, powered=lambda: pico.rail_powered)


def bus_tick(pico: Any, event: Mapping[str, Any]) -> dict[str, Any]:
    """A tick of the virtual Pico ``pico`` wired for bus servos (the harness waits for its answer): the servos act
    on the frames they took and move to the tick's time, and the world follows their horns; returns the harness's
    input with their registers now, to send before the chip runs on."""
    bus: PicoBus = pico.bus
    t_s = event["t_us"] / 1e6
    pico.time_s = t_s
    horns = bus.on_tick(t_s, event.get("bus_frames") or [])
    pico.pulses_us = bus.pulses_us()
    if pico.world is not None:
        pico.world.on_tick(t_s, horns)
    return bus.registers_message()
