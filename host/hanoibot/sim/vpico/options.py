"""What a ``vpico://`` URL asks for, and the virtual Pico made from it: its options checked, the seed of its random
draws, and a (not yet started) :class:`~hanoibot.sim.vpico.process.VirtualPico` with the world and wiring they name.
Read by the ``vpico://`` port (:mod:`hanoibot.sim.urlhandler.protocol_vpico`) and by ``hanoibot emulate --pico``.
"""

from __future__ import annotations

from typing import Any

from ...errors import ConfigError
from ...sim_url import BUS_OPTIONS, parse_spec
from ..board import SHIPPED_BOARD_CHANNELS
from ..factory import chip_slowdown, world_from_options
from ..faults import FaultSpec
from .flash import SERVO_DRIVERS
from .process import VirtualPico
from .stsbus import pico_bus_spec


def parse_vpico_url(url: str) -> dict[str, str]:
    """The query options of a ``vpico://`` URL; ConfigError names an unknown, repeated or bad option."""
    options = parse_spec(url, "vpico").as_dict()
    if "rerun" in options and not options["rerun"].isdigit():
        raise ConfigError(f"vpico:// option rerun={options['rerun']!r} is invalid: expected a whole number")
    if "slow" in options:
        chip_slowdown(options["slow"])
        if options.get("realtime") != "1":
            raise ConfigError(
                "vpico:// option slow is for a chip in real time: add realtime=1 (on chip time a slower chip "
                "changes nothing but the wall time a run takes)"
            )
    if options.get("servo", "pwm") not in SERVO_DRIVERS:
        raise ConfigError(f"vpico:// option servo={options['servo']!r} is invalid: expected pwm, pca9685 or sts")
    pico_bus_spec(options, SHIPPED_BOARD_CHANNELS, None)  # checks the bus options before anything starts
    return options


def draw_seed(options: dict[str, str]) -> int | None:
    """The seed of the chip's and the link's random draws: ``seed``, mixed with ``rerun`` when given (None when
    unseeded)."""
    seed = options.get("seed")
    if seed is None or not seed.isdigit():
        return None
    rerun = int(options.get("rerun", "0"))
    return int(seed) if rerun == 0 else int(seed) * 1_000_003 + rerun


def make_pico(options: dict[str, str], **kwargs: Any) -> VirtualPico:
    """A (not yet started) virtual Pico with the world and wiring the options ask for (``kwargs`` are
    :class:`VirtualPico`'s own and win over the options: e.g. ``driven=False`` for a pty)."""
    FaultSpec.from_options(options)  # checks the fault options before anything starts
    params: dict[str, Any] = {
        "servo_driver": options.get("servo", "pwm"),
        "driven": options.get("realtime") != "1",
        "seed": draw_seed(options),
        "slow": chip_slowdown(options["slow"]) if "slow" in options else 1.0,
        "world": world_from_options(options),
        "bus_options": {name: options[name] for name in BUS_OPTIONS if name in options},
    }
    params.update(kwargs)
    return VirtualPico(**params)
