"""The grip sensor as the board's ADC sees it: the gripper servo's supply current, in 50 Hz bursts, through the
shunt, current-sense amplifier and RC filter of hardware/README.md ("Grip sensor"), with ADC noise.

A hobby servo draws its current in bursts: each 20 ms PWM frame its driver runs the motor for a while after the
pulse and then rests. Stalled on a disk (the fingers closed on it, the servo still pushing) the bursts are long and
strong; closed on nothing or open, at rest, they are short. An undriven servo (no pulses: after an MCU reset, a
RELEASE, POWER_LOST, or with its rail off) draws nothing at all, disk or not. The 1 kOhm / 1 uF filter (1 ms) keeps
the bursts, so one ADC sample depends on where in the frame it falls: the firmware averages whole frames
(``hanoifw.sensing``). :class:`GripSensor` integrates the filter exactly between two reads (the input is piecewise
constant) and adds Gaussian ADC noise from a seeded generator, so a run replays. The same model, in JavaScript,
feeds the virtual Pico's ADC at each conversion (``vpico/grip_adc.mjs``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class GripSenseCircuit:
    """The grip sensor's parts: shunt (ohm), amplifier gain and output swing (V), RC filter, ADC range and noise."""

    shunt_ohm: float = 0.1
    gain: float = 50.0  # INA180A2
    amplifier_max_v: float = 3.3  # the amplifier runs on the 3.3 V rail: its output stops there
    filter_ohm: float = 1000.0
    filter_farad: float = 1e-6
    adc_full_scale_v: float = 3.3  # RP2040 (ADC_VREF = 3.3 V); an ESP32 at 11 dB attenuation reads up to ~3.1 V
    adc_bits: int = 12
    noise_counts: float = 3.0  # rms noise of one conversion, in counts of ``adc_bits``

    @property
    def tau_s(self) -> float:
        """The RC filter's time constant in s."""
        return self.filter_ohm * self.filter_farad

    def amplifier_v(self, current_a: float) -> float:
        """The amplifier's output (V) for ``current_a`` through the shunt, within its output swing."""
        return min(max(current_a * self.shunt_ohm * self.gain, 0.0), self.amplifier_max_v)

    def counts(self, volts: float, noise_counts: float = 0.0) -> int:
        """The ADC conversion (0 .. 2**adc_bits - 1) of ``volts`` at its input, plus ``noise_counts``."""
        full = (1 << self.adc_bits) - 1
        return max(0, min(full, round(volts / self.adc_full_scale_v * full + noise_counts)))

    def u16(self, counts: int) -> int:
        """``machine.ADC.read_u16`` of a conversion: the counts scaled to 16 bits as MicroPython's rp2 port does
        (shifted up, the top bits repeated below)."""
        shift = 16 - self.adc_bits
        return (counts << shift) | (counts >> (self.adc_bits - shift))


@dataclass(frozen=True)
class ServoCurrent:
    """The gripper servo's (MG90S on 6 V) supply current in A over each PWM frame of ``frame_s`` s: ``quiescent_a``
    always while driven, plus a burst at the start of each frame (``stall_*`` while stalled on a disk, ``rest_*``
    otherwise)."""

    frame_s: float = 0.02
    quiescent_a: float = 0.006
    rest_peak_a: float = 0.25
    rest_burst_s: float = 0.0012
    stall_peak_a: float = 0.6
    stall_burst_s: float = 0.016

    def burst(self, stalled: bool) -> tuple[float, float]:
        """(peak A, length s) of the burst in each frame."""
        return (self.stall_peak_a, self.stall_burst_s) if stalled else (self.rest_peak_a, self.rest_burst_s)

    def mean_a(self, stalled: bool) -> float:
        """The current averaged over a frame, in A (what the firmware's frame mean measures, before the ADC)."""
        peak_a, burst_s = self.burst(stalled)
        return self.quiescent_a + peak_a * burst_s / self.frame_s


class GripSensor:
    """The grip-current ADC (a ``machine.ADC``) on the simulated board.

    ``is_stalled()`` says whether the closing fingers are stopped by a disk. :meth:`connect` ties the sensor to
    the board's clock (``now_s``), to whether the gripper servo gets pulses on a powered rail (``is_driven``) and
    to the phase of its PWM frames; unconnected, it reads a driven servo at time 0.
    """

    def __init__(
        self,
        is_stalled: Callable[[], bool],
        *,
        circuit: GripSenseCircuit | None = None,
        servo: ServoCurrent | None = None,
        seed: int = 0,
    ) -> None:
        self.is_stalled = is_stalled
        self.circuit = circuit if circuit is not None else GripSenseCircuit()
        self.servo = servo if servo is not None else ServoCurrent()
        self.now_s: Callable[[], float] = lambda: 0.0
        self.is_driven: Callable[[], bool] = lambda: True
        self.frame_phase_s = 0.0
        self._rng = random.Random(f"grip:{seed}")
        self._filter_v = 0.0  # the voltage at the ADC pin (the filter capacitor)
        self._filter_t_s: float | None = None

    def connect(self, *, now_s: Callable[[], float], is_driven: Callable[[], bool], frame_phase_s: float) -> None:
        """Read time from ``now_s`` (s), the drive state from ``is_driven``; PWM frames start at ``frame_phase_s``
        plus whole frames."""
        self.now_s = now_s
        self.is_driven = is_driven
        self.frame_phase_s = frame_phase_s
        self._filter_t_s = None

    def current_a(self, t_s: float, *, driven: bool, stalled: bool) -> float:
        """The servo's supply current in A at ``t_s``."""
        if not driven:
            return 0.0
        peak_a, burst_s = self.servo.burst(stalled)
        phase_s = (t_s - self.frame_phase_s) % self.servo.frame_s
        return self.servo.quiescent_a + (peak_a if phase_s < burst_s else 0.0)

    def pin_v(self) -> float:
        """The filtered voltage at the ADC pin now (V), without noise."""
        now_s = self.now_s()
        driven, stalled = self.is_driven(), self.is_stalled()
        self._advance(now_s, driven, stalled)
        return self._filter_v

    def read_u16(self) -> int:
        """One conversion now, as ``machine.ADC.read_u16`` gives it (0..65535), noise included."""
        volts = self.pin_v()
        noise = self._rng.gauss(0.0, self.circuit.noise_counts) if self.circuit.noise_counts else 0.0
        return self.circuit.u16(self.circuit.counts(volts, noise))

    def _advance(self, now_s: float, driven: bool, stalled: bool) -> None:
        """Run the RC filter from the previous read to ``now_s`` with the current as it is now (the drive and
        stall state are taken as constant since the previous read, a few ms ago)."""
        tau_s = self.circuit.tau_s
        start_s = self._filter_t_s
        if start_s is None or now_s - start_s > 12 * tau_s:  # older inputs are forgotten (e^-12)
            start_s = now_s - 12 * tau_s
            self._filter_v = self.circuit.amplifier_v(self.current_a(start_s, driven=driven, stalled=stalled))
        t_s = start_s
        _, burst_s = self.servo.burst(stalled)
        frame_s = self.servo.frame_s
        while t_s < now_s:
            phase_s = (t_s - self.frame_phase_s) % frame_s
            edge_s = burst_s if phase_s < burst_s else frame_s  # the next change of the current
            end_s = min(now_s, t_s + max(edge_s - phase_s, 1e-9))
            input_v = self.circuit.amplifier_v(self.current_a(t_s, driven=driven, stalled=stalled))
            self._filter_v = input_v + (self._filter_v - input_v) * math.exp(-(end_s - t_s) / tau_s)
            t_s = end_s
        self._filter_t_s = now_s
