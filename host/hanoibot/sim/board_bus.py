"""The bus servos a simulated board drives (``sim://?servo=sts``), built from the URL's bus options and the world."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ConfigError
from ..motion.servo_model import ServoTraits
from .bus import BusSpec, SimServoBus


def make_servo_bus(
    bus: BusSpec,
    channels: int,
    speeds: list[float | None] | None,
    traits: list[ServoTraits] | None,
    world: Any,
    now_s: Callable[[], float],
) -> SimServoBus:
    """The simulated bus servos of ``bus`` on the clock ``now_s`` (s), one per channel: moving at the world's
    servo ``traits`` (else at ``speeds``, µs/s), starting at its robot config's start pose, stopped where the
    world says (``servo_stop_us``), powered by its rail; the ids ``bus`` names silent, the gripper's torque capped."""
    if len(bus.ids) != channels:
        raise ConfigError(f"sim bus has {len(bus.ids)} servo ids: expected one per channel ({channels})")
    if traits is None:
        traits = [ServoTraits(speed) for speed in (speeds or [None] * channels)]
    config = getattr(world, "config", None)
    start_us = list(config.start_pulses_us()) if config is not None else None
    rail = getattr(world, "rail", None)
    servo_bus = SimServoBus(
        bus.ids,
        now_s=now_s,
        traits=traits,
        start_us=start_us,
        baud=bus.baud,
        echo=bus.echo,
        delay_us=bus.delay_us,
        corrupt=bus.corrupt,
        seed=bus.seed,
        stop_us=getattr(world, "servo_stop_us", None),
        powered=(lambda: bool(rail.is_powered)) if rail is not None else None,
    )
    for servo in servo_bus.servos:
        servo.silent = servo.servo_id in bus.silent
    grip_channel = getattr(config, "gripper_channel", channels - 1)
    servo_bus.servos[grip_channel].torque_limit = bus.grip_torque
    return servo_bus
