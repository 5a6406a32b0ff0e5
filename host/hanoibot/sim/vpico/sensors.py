"""The virtual Pico's sensor inputs, modelled on the real interfaces the lead chose for hanoibot's boards.

Grip sensor: the gripper servo's supply current through a 0.1 ohm low-side shunt and a gain-50 current-sense
amplifier (INA180A2 class), RC-filtered, into GP26 (ADC0): volts = amps * 0.1 * 50, read by the 12-bit ADC
against 3.3 V. The current comes in 50 Hz bursts (long while a held disk stalls the closing servo, short at rest)
and an unpowered servo draws nothing: the harness computes each conversion from the emulated time with the model
of :mod:`hanoibot.sim.sensors` (grip_adc.mjs), noise included. Rail sense: the servo rail behind the e-stop switch
through a 15k/20k divider (100 nF) into GP22: high while the rail has power, low when the switch cuts it.
"""

from __future__ import annotations

from ..sensors import GripSenseCircuit, ServoCurrent

GRIP_ADC_CHANNEL = 0  # GP26
GRIP_ADC_PIN = 26
RAIL_SENSE_PIN = 22
CIRCUIT = GripSenseCircuit()
SERVO = ServoCurrent()


def grip_model(frame_phase_s: float = 0.0) -> dict[str, float]:
    """The grip sensor's parameters for the harness (vpico/grip_adc.mjs): the model of hanoibot/sim/sensors.py."""
    return {
        "tau_s": CIRCUIT.tau_s,
        "volts_per_amp": CIRCUIT.shunt_ohm * CIRCUIT.gain,
        "amplifier_max_v": CIRCUIT.amplifier_max_v,
        "adc_full_scale_v": CIRCUIT.adc_full_scale_v,
        "adc_bits": CIRCUIT.adc_bits,
        "noise_counts": CIRCUIT.noise_counts,
        "frame_s": SERVO.frame_s,
        "frame_phase_s": frame_phase_s,
        "quiescent_a": SERVO.quiescent_a,
        "rest_peak_a": SERVO.rest_peak_a,
        "rest_burst_s": SERVO.rest_burst_s,
        "stall_peak_a": SERVO.stall_peak_a,
        "stall_burst_s": SERVO.stall_burst_s,
    }


def grip_adc_counts(*, held: bool, powered: bool) -> int:
    """The grip sensor's 12-bit reading averaged over a PWM frame: the mean current of a servo stalled on a held
    disk or at rest, nothing while the gripper servo is not ``powered``."""
    if not powered:
        return CIRCUIT.counts(0.0)
    return CIRCUIT.counts(CIRCUIT.amplifier_v(SERVO.mean_a(held)))
