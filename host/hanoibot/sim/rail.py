"""The servo rail as the board's rail sense input sees it: the supply behind the e-stop switch, sagging under the
servos' current, through the 15k/20k divider (100 nF across the lower leg) of hardware/README.md into a GPIO.

The divider keeps a 6 V rail at 3.43 V on the pin, under the ESP32's VIH maximum (3.6 V) and the RP2040's absolute
maximum (3.8 V); the pin reads high down to a rail of ``input_high_v`` x 35/20 (3.5 V for an RP2040's 2.0 V,
4.3 V for an ESP32's 2.475 V). Two things make a live rail read low for a moment: the e-stop switch's contacts
bounce for a few ms when it is pressed or released, and the supply sags under a stall (its source resistance
times the current). The firmware latches POWER_LOST only after several low samples in a row
(``hanoifw.sensing.RailWatch``), so neither releases the arm mid-carry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class RailCircuit:
    """Supply (V) and its source resistance (ohm, supply + leads + switch), the divider (ohm), the pin's input-high
    threshold (V), and the switch's bounce: how long (s) and how fast (s per level) its contacts chatter."""

    supply_v: float = 6.0
    source_ohm: float = 0.35
    divider_top_ohm: float = 15000.0
    divider_bottom_ohm: float = 20000.0
    input_high_v: float = 2.0  # RP2040 VIH at IOVDD 3.3 V; an ESP32 needs 0.75 x 3.3 = 2.475 V
    bounce_s: float = 0.004
    bounce_level_s: float = 0.0005

    @property
    def divider_ratio(self) -> float:
        """Pin volts per rail volt."""
        return self.divider_bottom_ohm / (self.divider_top_ohm + self.divider_bottom_ohm)


class ServoRail:
    """The rail sense input (a ``machine.Pin``): :meth:`value` is 1 while the pin reads high.

    ``is_powered`` is the e-stop switch (False: pressed, or the supply off); setting it starts a bounce. ``now_s``
    (s) and ``load_a`` (the servos' current in A) are tied to the board by :meth:`connect`; :meth:`stall` adds a
    stall current for a while (a servo blocked, several starting at once).
    """

    def __init__(self, circuit: RailCircuit | None = None) -> None:
        self.circuit = circuit if circuit is not None else RailCircuit()
        self.now_s: Callable[[], float] = lambda: 0.0
        self.load_a: Callable[[], float] = lambda: 0.0
        self._is_powered = True
        self._switched_s = -1.0  # when the switch last changed (s): its contacts bounce after that
        self._stalls: list[tuple[float, float, float]] = []  # (from s, until s, extra A)

    def connect(self, *, now_s: Callable[[], float], load_a: Callable[[], float]) -> None:
        """Read time from ``now_s`` and the servos' current from ``load_a``."""
        self.now_s = now_s
        self.load_a = load_a

    @property
    def is_powered(self) -> bool:
        """The switch is closed and the supply on (bounce aside)."""
        return self._is_powered

    @is_powered.setter
    def is_powered(self, powered: bool) -> None:
        if powered != self._is_powered:
            self._is_powered = powered
            self._switched_s = self.now_s()

    def stall(self, duration_s: float, current_a: float) -> None:
        """From now on, for ``duration_s`` s, the servos draw ``current_a`` A more."""
        now_s = self.now_s()
        self._stalls = [s for s in self._stalls if s[1] > now_s]
        self._stalls.append((now_s, now_s + duration_s, current_a))

    def rail_v(self, t_s: float) -> float:
        """The rail voltage at ``t_s`` (s), bounce aside: the supply less its sag, 0 while switched off."""
        if not self._is_powered:
            return 0.0
        extra_a = sum(a for start, end, a in self._stalls if start <= t_s < end)
        return max(0.0, self.circuit.supply_v - self.circuit.source_ohm * (self.load_a() + extra_a))

    def pin_v(self, t_s: float) -> float:
        """The voltage on the rail sense pin at ``t_s``: the rail through the divider (contacts bouncing: the rail
        is on or off by turns)."""
        circuit = self.circuit
        since_s = t_s - self._switched_s
        if 0 <= since_s < circuit.bounce_s and int(since_s / circuit.bounce_level_s) % 2 == 0:
            on_v = self.circuit.supply_v if not self._is_powered else self.rail_v(t_s)
            return (0.0 if self._is_powered else on_v) * circuit.divider_ratio
        return self.rail_v(t_s) * circuit.divider_ratio

    def value(self) -> int:
        """1 while the pin reads high, else 0."""
        return 1 if self.pin_v(self.now_s()) >= self.circuit.input_high_v else 0
