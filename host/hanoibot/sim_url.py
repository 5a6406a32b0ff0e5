"""A simulated board as a typed value, and its URL: ``sim://?flip=1e-3&seed=7&board=AAAA`` and back.

:class:`SimSpec` is what the front ends build and change (place the disks where a plan starts, name the robot
config and rules, drop a one-off fault before resuming) instead of editing query strings; :meth:`SimSpec.to_url`
and :meth:`SimSpec.from_url` are exact inverses for every valid URL. The URL handlers parse their URLs with it.

It sits below every layer that builds such a URL (the run's board set-up, the operations, the front ends) and the
simulator that reads it, so none of them imports the simulator to name a simulated board. Before a port is open its
URL is all there is; once it is open, the port says whether it is simulated
(:attr:`hanoibot.link.board_port.BoardPort.simulator`).
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import parse_qsl, quote, urlsplit

from .errors import ConfigError

#: Fault options: probabilities per byte, the seed of every random stream, a reboot after that many frames.
FAULT_OPTIONS = ("flip", "drop", "insert", "dup", "seed", "reset_after")
#: World options: start state, rule set, robot config path, servo speed factor, 0 for a bare board (random: a
#: randomized world drawn from ``seed``).
WORLD_OPTIONS = ("board", "config", "speed", "world", "rules")
#: Options of the simulated board itself: ``slow`` = how many times slower than a real Pico its chip runs;
#: ``outputs=pca9685`` = the servos hang on a PCA9685, which keeps pulsing through a reset (default ``pwm``: the
#: MCU's own PWM, which stops at a reset: the servos go limp and let go of a held disk); ``outputs=ledc`` an ESP32-S3's
#: LEDC. Each gives its pulses in its own counts (hanoibot.sim.factory.OUTPUT_DRIVERS).
BOARD_OPTIONS = ("slow", "outputs", "servo")
#: Options of a bus of servos (``servo=sts``: Feetech STS bus servos that report where they are, hanoibot.sim.bus;
#: default ``servo=pwm``, hobby servos): ``silent`` = bus ids that never answer (``4``, or ``2,4``), ``corrupt`` = the
#: probability that an answer comes back with a flipped bit, ``delay_us`` = every servo's answer delay in µs (the
#: factory's is 500), ``grip_torque`` = the gripper servo's torque limit in 0.1 % of its stall (lerobot's SO-101
#: set-up writes 500; the factory's is 1000).
BUS_OPTIONS = ("silent", "corrupt", "delay_us", "grip_torque")
#: Options of a port model (hanoibot.sim.ports): ``port`` = the MicroPython port the board behaves like (rp2, esp32,
#: esp32s3: its scheduler ticks, timers, output resolution; the firmware's own loop runs), ``micropython`` = its
#: version (default 1.27), ``oe=1`` = a PCA9685 whose OE input is wired (its outputs stop at an MCU reset too).
PORT_OPTIONS = ("port", "micropython", "oe")
#: Every option each scheme takes (``realtime`` paces the simulator with the wall clock; ``attach=PATH`` is a virtual
#: Pico on chip time in another process, served by ``hanoibot emulate --pico --chip-time --link PATH``).
SCHEME_OPTIONS = {
    "sim": (*FAULT_OPTIONS, *WORLD_OPTIONS, *BOARD_OPTIONS, *BUS_OPTIONS, *PORT_OPTIONS, "realtime"),
    "vpico": (
        *(name for name in FAULT_OPTIONS if name != "reset_after"),
        *WORLD_OPTIONS,
        "servo",
        *BUS_OPTIONS,
        "realtime",
        "slow",
        "attach",
        "rerun",
    ),
}
#: The options a ``vpico://?attach=PATH`` URL may give besides ``attach``: the wire between this host and the board.
ATTACH_OPTIONS = ("attach", "flip", "drop", "insert", "dup", "seed")
#: Faults that happen once (a reboot after N frames): a resumed run's board does not repeat them.
ONE_OFF_OPTIONS = ("reset_after",)


class SimSpec(NamedTuple):
    """A simulated board: its ``scheme`` (``sim`` or ``vpico``) and its options in URL order, values as the URL
    spells them (each checked by the simulator that reads it)."""

    scheme: str = "sim"
    options: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_url(cls, url: str) -> SimSpec | None:
        """The spec of a simulator URL; None for any other port; ConfigError names an unknown, repeated or bad
        option."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in SCHEME_OPTIONS:
            return None
        if parts.netloc or parts.path not in ("", "/"):
            raise ConfigError(f"port URL {url!r} is not a {scheme}:// URL: expected {scheme}://[?option=value&...]")
        known = SCHEME_OPTIONS[scheme]
        options: list[tuple[str, str]] = []
        for name, value in parse_qsl(parts.query, keep_blank_values=True):
            if name not in known:
                raise ConfigError(f"{scheme}:// option {name!r} is unknown: expected one of {', '.join(known)}")
            if any(name == seen for seen, _ in options):
                raise ConfigError(f"{scheme}:// option {name!r} is given twice: expected it at most once")
            options.append((name, value))
        spec = cls(scheme, tuple(options))
        realtime = spec.get("realtime")
        if realtime not in (None, "0", "1"):
            raise ConfigError(f"{scheme}:// option realtime={realtime!r} is invalid: expected 0 or 1")
        if spec.is_attached:
            extra = [name for name, _ in options if name not in ATTACH_OPTIONS]
            if extra:
                raise ConfigError(
                    f"{scheme}:// option {extra[0]!r} cannot go with attach: the board's own options are given "
                    "to the hanoibot emulate that serves it"
                )
        return spec

    def to_url(self) -> str:
        """The URL of this spec (``sim://`` alone when it has no options)."""
        query = "&".join(f"{name}={quote(value, safe='')}" for name, value in self.options)
        return f"{self.scheme}://?{query}" if query else f"{self.scheme}://"

    def get(self, name: str) -> str | None:
        """The value of option ``name``, or None when it is not given."""
        for key, value in self.options:
            if key == name:
                return value
        return None

    def as_dict(self) -> dict[str, str]:
        """The options as a name -> value mapping (what the simulator factories read)."""
        return dict(self.options)

    @property
    def seed(self) -> int | None:
        """The seed of the simulator's random streams, or None when unseeded (or not a whole number: the fault
        parser names that)."""
        text = self.get("seed")
        return int(text) if text is not None and text.isdigit() else None

    @property
    def is_attached(self) -> bool:
        """True for a board served by another process (``vpico://?attach=PATH``): it has its own world and outlives
        the host, as a board on USB does."""
        return self.get("attach") is not None

    def with_defaults(self, **values: str | None) -> SimSpec:
        """This spec with each given option added where it is not set already (None values are skipped)."""
        added = tuple((name, value) for name, value in values.items() if value is not None and self.get(name) is None)
        return self._replace(options=self.options + added)

    def without(self, *names: str) -> SimSpec:
        """This spec without the options ``names``."""
        return self._replace(options=tuple((key, value) for key, value in self.options if key not in names))


def parse_spec(url: str, scheme: str) -> SimSpec:
    """The :class:`SimSpec` of a ``scheme``:// URL; ConfigError names a wrong scheme or an unknown, repeated or bad
    option."""
    spec = SimSpec.from_url(url)
    if spec is None or spec.scheme != scheme:
        raise ConfigError(f"port URL {url!r} is not a {scheme}:// URL: expected {scheme}://[?option=value&...]")
    return spec


def is_sim(url: str) -> bool:
    """True for a ``sim://`` URL: the simulator runs the host's own firmware core in the process that opens it, on a
    virtual clock, so its board never outlives the host and has no files to deploy."""
    spec = SimSpec.from_url(url)
    return spec is not None and spec.scheme == "sim"
