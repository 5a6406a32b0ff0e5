"""One model of a hobby servo, shared by the blend checker (:mod:`.blends`) and the simulated world
(:mod:`hanoibot.sim.servos`), so the planner's checker sees what the world does.

A hobby servo measures one pulse per PWM frame (:data:`PWM_FRAME_S`, 50 Hz) and runs a proportional position loop
on it: its motor turns at a speed proportional to how far it is from the measured pulse (time constant
``response_s``), up to its top speed, changing speed no faster than its acceleration. A real one adds

- a **deadband**: inside ``deadband_us / 2`` of the pulse the loop does not drive, so the horn stops that short;
- **backlash**: the horn trails the motor by up to ``backlash_us / 2`` when the motion reverses;
- **speed sag**: under load and at a low supply voltage the top speed drops, and differs by direction (a
  shoulder lifting the arm is slower than one lowering it): ``speed_factor_up`` (pulse increasing) and
  ``speed_factor_down`` multiply ``max_speed_us_s``.

All pulses in µs, speeds in µs/s, accelerations in µs/s², times in s. :func:`follow` is pure: a state and a pulse
held for some time in, the new state out. Without an acceleration limit it is exact (a closed form); with one it
integrates in steps of :data:`ACCEL_STEP_S`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

#: One frame of the 50 Hz servo PWM in s: a servo measures one pulse per frame.
PWM_FRAME_S = 0.02
#: Time constant in s of a servo's position loop: one PWM frame, the fastest a hobby servo can see a new pulse and
#: react to it.
RESPONSE_S = 0.02
#: Integration step in s of a servo with an acceleration limit.
ACCEL_STEP_S = 0.001


class ServoTraits(NamedTuple):
    """How one servo follows its pulse (module docstring). ``max_speed_us_s`` None is an ideal servo: always at
    its pulse; ``max_accel_us_s2`` None changes speed at once."""

    max_speed_us_s: float | None
    response_s: float = RESPONSE_S
    max_accel_us_s2: float | None = None
    deadband_us: float = 0.0
    backlash_us: float = 0.0
    speed_factor_up: float = 1.0
    speed_factor_down: float = 1.0

    @property
    def is_plain(self) -> bool:
        """True for a servo with a top speed and none of a deadband, backlash, an acceleration limit or sag."""
        return (
            not self.deadband_us
            and not self.backlash_us
            and self.max_accel_us_s2 is None
            and self.speed_factor_up == 1.0
            and self.speed_factor_down == 1.0
        )

    def top_speed_us_s(self, direction: float) -> float:
        """Top speed in µs/s toward a larger (``direction`` > 0) or smaller pulse, sag included."""
        assert self.max_speed_us_s is not None
        return self.max_speed_us_s * (self.speed_factor_up if direction > 0 else self.speed_factor_down)


class ServoState(NamedTuple):
    """Where a driven servo is: its motor (gear side) and horn (output) as pulses in µs, and the motor's speed in
    µs/s (signed)."""

    motor_us: float
    horn_us: float
    speed_us_s: float = 0.0

    @classmethod
    def at(cls, pulse_us: float) -> ServoState:
        """A servo at rest at ``pulse_us`` (what a servo that was unpowered does at its first pulse: we cannot
        know where the horn was, so it snaps there)."""
        return cls(float(pulse_us), float(pulse_us), 0.0)


def approach_us(
    position_us: float, target_us: float, elapsed_s: float, max_speed_us_per_s: float, response_s: float
) -> float:
    """Where a motor at ``position_us`` is after ``elapsed_s`` s of turning toward ``target_us`` (pulses in µs),
    with no acceleration limit.

    Its speed is the error divided by ``response_s`` (s), capped at ``max_speed_us_per_s``: full speed while the
    error is wider than ``max_speed_us_per_s * response_s``, then an exponential approach with time constant
    ``response_s``. ``response_s = 0`` turns at full speed all the way. Exact for a target held for ``elapsed_s``.
    """
    error_us = target_us - position_us
    distance_us = abs(error_us)
    if distance_us == 0 or elapsed_s <= 0:
        return position_us
    proportional_us = max_speed_us_per_s * response_s  # below this error the speed is proportional to it
    full_speed_s = (distance_us - proportional_us) / max_speed_us_per_s if distance_us > proportional_us else 0.0
    if elapsed_s <= full_speed_s:
        left_us = distance_us - max_speed_us_per_s * elapsed_s
    elif response_s > 0:
        left_us = min(distance_us, proportional_us) * math.exp(-(elapsed_s - full_speed_s) / response_s)
    else:
        left_us = 0.0
    return target_us - math.copysign(left_us, error_us)


def drive_target_us(traits: ServoTraits, motor_us: float, pulse_us: float) -> float:
    """Where the loop drives the motor for a measured ``pulse_us``: the edge of the deadband around the pulse, or
    where the motor is when it is inside it."""
    half_band_us = traits.deadband_us / 2
    error_us = pulse_us - motor_us
    if abs(error_us) <= half_band_us:
        return motor_us
    return pulse_us - math.copysign(half_band_us, error_us)


def follow(traits: ServoTraits, state: ServoState, pulse_us: float, elapsed_s: float) -> ServoState:
    """The servo ``elapsed_s`` s later, having measured ``pulse_us`` throughout (module docstring)."""
    if traits.max_speed_us_s is None:
        return ServoState.at(pulse_us)
    if elapsed_s <= 0:
        return state
    if traits.is_plain:  # no deadband, backlash, acceleration limit or sag: the closed form alone
        motor_us = approach_us(state.motor_us, pulse_us, elapsed_s, traits.max_speed_us_s, traits.response_s)
        return ServoState(motor_us, motor_us, (motor_us - state.motor_us) / elapsed_s)
    target_us = drive_target_us(traits, state.motor_us, pulse_us)
    if traits.max_accel_us_s2 is None:
        top_us_s = traits.top_speed_us_s(target_us - state.motor_us)
        motor_us = approach_us(state.motor_us, target_us, elapsed_s, top_us_s, traits.response_s)
        speed_us_s = (motor_us - state.motor_us) / elapsed_s
    else:
        motor_us, speed_us_s = _accelerate(traits, state.motor_us, state.speed_us_s, target_us, elapsed_s)
    half_play_us = traits.backlash_us / 2
    horn_us = min(max(state.horn_us, motor_us - half_play_us), motor_us + half_play_us)
    return ServoState(motor_us, horn_us, speed_us_s)


def _accelerate(
    traits: ServoTraits, motor_us: float, speed_us_s: float, target_us: float, elapsed_s: float
) -> tuple[float, float]:
    """Motor position (µs) and speed (µs/s) after ``elapsed_s`` s of the loop with an acceleration limit."""
    assert traits.max_accel_us_s2 is not None
    left_s = elapsed_s
    while left_s > 1e-12:
        dt_s = min(ACCEL_STEP_S, left_s)
        left_s -= dt_s
        error_us = target_us - motor_us
        top_us_s = traits.top_speed_us_s(error_us)
        wanted_us_s = error_us / traits.response_s if traits.response_s > 0 else math.copysign(top_us_s, error_us)
        wanted_us_s = min(max(wanted_us_s, -top_us_s), top_us_s)
        change_us_s = traits.max_accel_us_s2 * dt_s
        speed_us_s += min(max(wanted_us_s - speed_us_s, -change_us_s), change_us_s)
        step_us = speed_us_s * dt_s
        if step_us * error_us > 0 and abs(step_us) >= abs(error_us):
            motor_us, speed_us_s = target_us, 0.0  # arrives within the step: the loop stops it there
            continue
        motor_us += step_us
    return motor_us, speed_us_s
