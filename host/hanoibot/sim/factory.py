"""Build a simulated board and its faulty wire from ``sim://`` query options or ``hanoibot emulate`` flags.

Options are strings, as they come from a URL query: the fault options of :class:`~hanoibot.sim.faults.FaultSpec`
(flip, drop, insert, dup, seed, reset_after) and the world options ``board`` (start state, e.g. ``ACAB``),
``rules`` (rule-set name, so ``BAD_STACK`` follows the plan's rules), ``config`` (robot TOML path) and ``speed``
(servo speed factor), which are handed to ``hanoibot.sim.world.make_world`` when that module exists; without it,
``world=random`` makes the randomized world of the ``seed`` option (:mod:`hanoibot.sim.random_world`); with
``world=0`` (a bare board whose servos move nothing, for link tests that send arbitrary poses), the board
runs with no world.
``slow`` gives the board chip time (:mod:`hanoibot.sim.chip`): frames and control steps cost that many times what
they cost a real Pico, so a host that sends too fast sees answers come late. ``port`` (rp2, esp32, esp32s3) makes
the board behave like that MicroPython port (:mod:`hanoibot.sim.ports`): the firmware's own loop runs on the
port's scheduler ticks and timers (``micropython``: its version), and the servos get the port's output resolution
(``outputs=pca9685``: a PCA9685's; ``oe=1``: its OE input wired, so its outputs stop at an MCU reset). With a
world the virtual servos turn no faster than its joint speeds (:attr:`SimWorld.max_speed_us_per_s`: the robot
config's speeds times ``speed``, the one place that factor is applied) and the board as many channels as the
config's arm has servos, the gripper's last (:class:`SimBoard`); a bare board has ideal servos and the shipped
firmware's channels.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Mapping

from ..clock import VirtualClock
from ..errors import ConfigError
from ..sim_url import BUS_OPTIONS
from .board import SHIPPED_BOARD_CHANNELS, EventListener, SimBoard, World
from .bus import BusSpec, bus_from_options
from .faults import FaultSpec
from .ports import outputs_survive_reset, port_model
from .wire import FaultyWire

#: The ``servo`` option: ``pwm`` (hobby servos on the board's outputs, the default) or ``sts`` (Feetech STS bus
#: servos on a UART, :mod:`hanoibot.sim.bus`: they report where they are; the bus options silent, corrupt and
#: delay_us fault them).
SERVO_KINDS = ("pwm", "sts")
#: The ``outputs`` option: the servo output a simulated board drives, as its driver (hanoibot.motion.drivers) whose
#: counts every pulse comes out in: ``pwm`` an RP2040's PWM (0.31 µs), ``pca9685`` a PCA9685 (4.88 µs, and it keeps
#: pulsing through a reset), ``ledc`` an ESP32-S3's 13-bit LEDC (2.44 µs, truncated).
OUTPUT_DRIVERS = {"pwm": "rp2", "pca9685": "pca9685", "ledc": "esp32s3"}


def chip_slowdown(text: str) -> float:
    """The ``slow`` option as a finite factor of at least 1 (4 = a quarter of a real Pico's speed)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value >= 1 and math.isfinite(value)):
        raise ConfigError(f"sim option slow={text!r} is invalid: expected a number of at least 1 (4 = quarter speed)")
    return value


def speed_factor(text: str) -> float:
    """The ``speed`` option as a positive finite factor; ConfigError otherwise."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise ConfigError(f"sim option speed={text!r} is invalid: expected a positive number (1 = real speed)")
    return value


def world_from_options(options: Mapping[str, str]) -> World | None:
    """The arm-and-disk world for these options, or None (``world=0``, or no physics module installed)."""
    wanted = options.get("world", "1")
    if wanted not in ("0", "1", "random"):
        raise ConfigError(
            f"sim option world={wanted!r} is invalid: expected 0 (bare board), 1 (arm and disks) or random "
            "(a randomized world, drawn from the seed option)"
        )
    if wanted == "0" or importlib.util.find_spec("hanoibot.sim.world") is None:
        return None
    speed = speed_factor(options["speed"]) if "speed" in options else 1.0
    config, board, rules = options.get("config"), options.get("board"), options.get("rules")
    world: World
    if wanted == "random":
        seed = world_seed(options)
        world = importlib.import_module("hanoibot.sim.random_world").make_random_world(
            config, board, seed, speed=speed, rules=rules
        )
    else:
        world = importlib.import_module("hanoibot.sim.world").make_world(config, board, speed=speed, rules=rules)
    return world


def world_seed(options: Mapping[str, str]) -> int:
    """The ``seed`` option of a randomized world (``world=random``): a whole number, required."""
    text = options.get("seed")
    if text is None:
        raise ConfigError("sim option world=random needs a seed: add seed=S (a whole number) to the URL, or --seed S")
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"sim option seed={text!r} is invalid: expected a whole number") from None


def make_wire(
    options: Mapping[str, str], *, clock: VirtualClock | None = None, on_event: EventListener | None = None
) -> FaultyWire:
    """A fresh :class:`SimBoard` (new boot) behind a :class:`FaultyWire`, both configured from ``options``."""
    spec = FaultSpec.from_options(options)
    if "speed" in options:
        speed_factor(options["speed"])
    world = world_from_options(options)
    speeds = getattr(world, "max_speed_us_per_s", None)
    traits = getattr(world, "servo_traits", None)
    boot_seed = spec.seed if "seed" in options else None  # no seed: random boot ids, new in every process
    slow = chip_slowdown(options["slow"]) if "slow" in options else None
    outputs = options.get("outputs", "pwm")
    if outputs not in OUTPUT_DRIVERS:
        raise ConfigError(f"sim option outputs={outputs!r} is invalid: expected one of {', '.join(OUTPUT_DRIVERS)}")
    port = port_model(options["port"], options.get("micropython")) if "port" in options else None
    oe_wired = options.get("oe", "0")
    if oe_wired not in ("0", "1") or (oe_wired == "1" and outputs != "pca9685"):
        raise ConfigError(f"sim option oe={oe_wired!r} is invalid: expected 0, or 1 with outputs=pca9685")
    if port is None and ("micropython" in options or "oe" in options):
        name = "micropython" if "micropython" in options else "oe"
        raise ConfigError(f"sim option {name} needs a port model: add port=rp2, port=esp32 or port=esp32s3")
    if port is not None and slow is not None:
        raise ConfigError("sim options port and slow cannot go together: a port model runs the firmware's own loop")
    # The chip's own outputs are the port's (an ESP32's LEDC, an RP2's slices); a PCA9685 is the same on any port.
    driver = OUTPUT_DRIVERS[outputs] if port is None or outputs == "pca9685" else port.outputs
    bus = bus_spec(options, spec.seed, channels=len(speeds) if speeds is not None else SHIPPED_BOARD_CHANNELS)
    board = SimBoard(
        clock=clock,
        seed=boot_seed,
        world=world,
        max_speed_us_per_s=speeds,
        servo_traits=traits,
        on_event=on_event,
        slow=slow,
        outputs_survive_reset=outputs_survive_reset(outputs, oe_wired=oe_wired == "1"),
        port=port,
        servo_driver=driver if bus is None else None,
        bus=bus,
    )
    return FaultyWire(board, spec)


def bus_spec(options: Mapping[str, str], seed: int, *, channels: int = SHIPPED_BOARD_CHANNELS) -> BusSpec | None:
    """The servo bus of the ``servo`` option (None for PWM servos), ids 1..``channels`` in channel order, with its
    fault options; ConfigError names a bad value, a bus option without ``servo=sts`` or a PWM option with it."""
    kind = options.get("servo", "pwm")
    if kind not in SERVO_KINDS:
        raise ConfigError(f"sim option servo={kind!r} is invalid: expected one of {', '.join(SERVO_KINDS)}")
    if kind == "pwm":
        given = [name for name in BUS_OPTIONS if name in options]
        if given:
            raise ConfigError(f"sim option {given[0]} is for bus servos: add servo=sts")
        return None
    if "outputs" in options or "oe" in options:
        name = "outputs" if "outputs" in options else "oe"
        raise ConfigError(f"sim option {name} is for PWM servos: bus servos (servo=sts) have no PWM output")
    return bus_from_options(options, ids=range(1, channels + 1), seed=seed)
