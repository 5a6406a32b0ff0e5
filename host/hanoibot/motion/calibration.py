"""Servo calibration: joint angle in degrees <-> servo pulse width in microseconds.

Two forms, as written in ``robot.toml``:

- :class:`LinearCalibration` — offset + direction + scale: the servo sits at ``center_us`` when the joint is at
  ``offset_deg``, and each degree moves the pulse by ``us_per_deg`` in the sign of ``direction``.
- :class:`PointsCalibration` — measured (angle, pulse) pairs, interpolated piecewise-linearly and extrapolated
  from the end pieces. Pulses must rise or fall strictly with the angle, so the map can be inverted.

Both map angles to float pulses; rounding to whole microseconds happens once, where segments are made.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from dataclasses import dataclass
from typing import Protocol

from ..errors import ConfigError


class Calibration(Protocol):
    """Anything that maps a joint angle (deg) to a pulse width (µs) and back."""

    def pulse_us(self, angle_deg: float) -> float:
        """Pulse width in µs that puts the joint at ``angle_deg``."""
        ...

    def angle_deg(self, pulse_us: float) -> float:
        """Joint angle in degrees that the pulse width ``pulse_us`` produces."""
        ...

    def max_deg_per_us(self, from_us: float, to_us: float) -> float:
        """Steepest |degrees per µs| between the two pulse widths: turns a pulse rate into the top joint speed."""
        ...


@dataclass(frozen=True)
class LinearCalibration:
    """``pulse_us = center_us + direction * us_per_deg * (angle_deg - offset_deg)``."""

    center_us: float
    offset_deg: float
    direction: int
    us_per_deg: float

    def __post_init__(self) -> None:
        if self.direction not in (1, -1):
            raise ConfigError(f"direction = {self.direction!r}: expected 1 or -1")
        if not self.us_per_deg > 0:
            raise ConfigError(f"us_per_deg = {self.us_per_deg!r}: expected a positive number of µs per degree")

    def pulse_us(self, angle_deg: float) -> float:
        """Pulse width in µs that puts the joint at ``angle_deg``."""
        return self.center_us + self.direction * self.us_per_deg * (angle_deg - self.offset_deg)

    def angle_deg(self, pulse_us: float) -> float:
        """Joint angle in degrees that the pulse width ``pulse_us`` produces."""
        return self.offset_deg + (pulse_us - self.center_us) / (self.direction * self.us_per_deg)

    def max_deg_per_us(self, from_us: float, to_us: float) -> float:
        """|degrees per µs|: the same everywhere for a linear calibration."""
        return 1.0 / self.us_per_deg


@dataclass(frozen=True)
class PointsCalibration:
    """Measured ``(angle_deg, pulse_us)`` pairs, at least two, angles strictly rising, pulses strictly monotonic."""

    points: tuple[tuple[float, float], ...]

    def __post_init__(self) -> None:
        if len(self.points) < 2:
            raise ConfigError(
                f"{len(self.points)} calibration point(s): expected at least 2 [angle_deg, pulse_us] pairs"
            )
        angles = [a for a, _ in self.points]
        pulses = [p for _, p in self.points]
        if any(b <= a for a, b in itertools.pairwise(angles)):
            raise ConfigError(f"calibration angles {angles}: expected strictly rising angles")
        steps = [b - a for a, b in itertools.pairwise(pulses)]
        if not (all(s > 0 for s in steps) or all(s < 0 for s in steps)):
            raise ConfigError(f"calibration pulses {pulses}: expected pulses that strictly rise or strictly fall")

    @property
    def _rising(self) -> bool:
        return self.points[1][1] > self.points[0][1]

    def pulse_us(self, angle_deg: float) -> float:
        """Pulse width in µs that puts the joint at ``angle_deg`` (linear between the nearest points)."""
        angles = [a for a, _ in self.points]
        i = min(max(bisect.bisect_right(angles, angle_deg), 1), len(angles) - 1)
        return _lerp(self.points[i - 1], self.points[i], angle_deg)

    def angle_deg(self, pulse_us: float) -> float:
        """Joint angle in degrees that the pulse width ``pulse_us`` produces (the exact inverse of pulse_us)."""
        pulses, flipped = self._by_pulse
        i = min(max(bisect.bisect_right(pulses, pulse_us), 1), len(pulses) - 1)
        return _lerp(flipped[i - 1], flipped[i], pulse_us)

    @functools.cached_property
    def _by_pulse(self) -> tuple[list[float], list[tuple[float, float]]]:
        """The points as ``(pulse_us, angle_deg)`` by rising pulse, and the rising pulses alone."""
        flipped = [(p, a) for a, p in self.points]
        if not self._rising:
            flipped.reverse()
        return [p for p, _ in flipped], flipped

    def max_deg_per_us(self, from_us: float, to_us: float) -> float:
        """Steepest |degrees per µs| of the pieces the pulse interval from ``from_us`` to ``to_us`` touches."""
        low_us, high_us = min(from_us, to_us), max(from_us, to_us)
        pieces = list(itertools.pairwise(sorted((p, a) for a, p in self.points)))
        slopes = [
            abs((a1 - a0) / (p1 - p0))
            for i, ((p0, a0), (p1, a1)) in enumerate(pieces)
            # The end pieces extend outwards (extrapolation), so they also cover pulses beyond the points.
            if (p1 >= low_us or i == len(pieces) - 1) and (p0 <= high_us or i == 0)
        ]
        return max(slopes)


def _lerp(left: tuple[float, float], right: tuple[float, float], x: float) -> float:
    """The y of the line through ``left`` and ``right`` (x, y pairs) at ``x``."""
    (x0, y0), (x1, y1) = left, right
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
