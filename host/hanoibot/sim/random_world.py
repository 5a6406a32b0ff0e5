"""A randomized world (``sim://?world=random&seed=S``): the robot as built, not as configured.

The host plans with the robot config; the world it meets differs from it, within the config's stated tolerances
(``[tolerances]``, :class:`~hanoibot.motion.tolerances.Tolerances`; the margins they need are worked through in
docs/margins.md), by a draw from a seeded random generator, so a failure replays from its seed:

- every servo's calibration is off by up to ``calibration_deg`` (the horn a fraction of a spline tooth off);
- every servo has its own deadband (up to ``servo_deadband_us``) and backlash (up to ``servo_backlash_us``), a top
  speed that sags by up to ``servo_speed_sag`` in each direction (load, supply voltage) and a finite acceleration
  (between ``servo_accel_factor`` and :data:`SERVO_ACCEL_SPREAD` times that times the config's
  ``max_accel_deg_s2``);
- every peg stands up to ``peg_position_mm`` from where the config says (in a random direction) and is up to
  ``peg_height_mm`` taller or shorter;
- the disks' holes are up to ``disk_hole_mm`` narrower than nominal and the disks up to ``disk_thickness_mm``
  thicker or thinner.

The world's own contact tests (:mod:`.disks`) decide what collides. The grip-sensor and rail models of the
sensors work plug in where :class:`~.world.SimWorld` builds them.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from ..config import RobotConfig
from ..motion.hardware import Servo
from ..motion.servo_model import RESPONSE_S, ServoTraits
from ..motion.tolerances import Tolerances
from ..puzzle import Rules, State
from .arm import SimArm
from .world import SimWorld, board_geometry, world_setting

#: A servo's own acceleration, as a multiple of the config's ``max_accel_deg_s2`` for its joint, is drawn between
#: ``[tolerances] servo_accel_factor`` and this many times it (a hobby servo reaches its top speed in a few tens of
#: ms; the planner keeps below the config's).
SERVO_ACCEL_SPREAD = 2.0


class WorldDraw(NamedTuple):
    """What one seed drew: the arm's servo offsets (deg, wire order), per-channel traits, peg offsets (mm) and disk
    sizes (mm)."""

    servo_offsets_deg: tuple[float, ...]
    servo_traits: tuple[ServoTraits, ...]
    peg_offsets_mm: tuple[tuple[float, float, float], ...]  # (dx, dy, dheight) per peg
    hole_diameter_mm: float
    disk_thickness_mm: float


def draw(config: RobotConfig, seed: int, tolerances: Tolerances | None = None, *, speed: float = 1.0) -> WorldDraw:
    """The deviations of the world of ``seed`` from ``config`` within ``tolerances`` (default the config's own
    ``[tolerances]``; ``speed`` scales the servos' top speeds)."""
    rng = random.Random(f"hanoibot-world:{seed}")
    t = tolerances or config.tolerances
    offsets = tuple(rng.uniform(-t.calibration_deg, t.calibration_deg) for _ in config.servos)
    accels_deg_s2 = [output.max_accel_deg_s2 for output in config.outputs]
    us_per_deg = [
        1 / output.calibration.max_deg_per_us(output.min_us, output.max_us)
        if isinstance(output, Servo)
        else output.us_per_deg
        for output in config.outputs
    ]
    accel_factors = (t.servo_accel_factor, t.servo_accel_factor * SERVO_ACCEL_SPREAD)
    traits = []
    for rate, accel_deg_s2, scale in zip(config.max_speeds_us_s(), accels_deg_s2, us_per_deg, strict=True):
        traits.append(
            ServoTraits(
                max_speed_us_s=rate * speed,
                response_s=RESPONSE_S,
                max_accel_us_s2=accel_deg_s2 * scale * rng.uniform(*accel_factors) * speed * speed,
                deadband_us=rng.uniform(0, t.servo_deadband_us),
                backlash_us=rng.uniform(0, t.servo_backlash_us),
                speed_factor_up=1 - rng.uniform(0, t.servo_speed_sag),
                speed_factor_down=1 - rng.uniform(0, t.servo_speed_sag),
            )
        )
    pegs = []
    for _peg in config.board.pegs:
        angle = rng.uniform(0, 2 * math.pi)
        distance_mm = t.peg_position_mm * math.sqrt(rng.random())  # uniform over the disc of the tolerance
        height_mm = rng.uniform(-t.peg_height_mm, t.peg_height_mm)
        pegs.append((distance_mm * math.cos(angle), distance_mm * math.sin(angle), height_mm))
    geometry = board_geometry(config)
    hole_mm = geometry.hole_diameter_mm - rng.uniform(0, t.disk_hole_mm)
    thickness_mm = geometry.disk_thickness_mm + rng.uniform(-t.disk_thickness_mm, t.disk_thickness_mm)
    return WorldDraw(offsets, tuple(traits), tuple(pegs), hole_mm, thickness_mm)


def random_world(
    config: RobotConfig,
    start: State,
    seed: int,
    tolerances: Tolerances | None = None,
    *,
    speed: float = 1.0,
    rules: Rules | None = None,
) -> SimWorld:
    """The world of ``seed``: ``config``'s robot as built within ``tolerances`` (module docstring)."""
    deviations = draw(config, seed, tolerances, speed=speed)
    pegs = tuple(
        replace(peg, x_mm=peg.x_mm + dx_mm, y_mm=peg.y_mm + dy_mm, height_mm=peg.height_mm + dh_mm)
        for peg, (dx_mm, dy_mm, dh_mm) in zip(config.board.pegs, deviations.peg_offsets_mm, strict=True)
    )
    built = replace(config, board=replace(config.board, pegs=pegs))
    geometry = board_geometry(built)._replace(
        hole_diameter_mm=deviations.hole_diameter_mm, disk_thickness_mm=deviations.disk_thickness_mm
    )
    arm = SimArm(config, servo_offsets_deg=deviations.servo_offsets_deg)
    world = SimWorld(built, start, arm=arm, speed=speed, rules=rules, geometry=geometry)
    world.servo_traits = list(deviations.servo_traits)
    world.seed = seed
    return world


def make_random_world(
    config_path_or_config: RobotConfig | str | Path | None,
    board: State | str | None,
    seed: int,
    *,
    speed: float = 1.0,
    rules: str | None = None,
) -> SimWorld:
    """The world of ``seed`` for a robot config and start board given as :func:`~.world.make_world` takes them."""
    config, start, stacking = world_setting(config_path_or_config, board, rules=rules)
    return random_world(config, start, seed, speed=speed, rules=stacking)
