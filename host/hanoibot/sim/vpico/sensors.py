"""The virtual Pico's sensor inputs, modelled on the real interfaces the lead chose for hanoibot's boards.

Grip sensor: the gripper servo's supply current through a 0.1 ohm low-side shunt and a gain-50 current-sense
amplifier (INA180A2 class), RC-filtered, into GP26 (ADC0): volts = amps * 0.1 * 50, read by the 12-bit ADC
against 3.3 V. A held disk stalls the closing servo (high current); fingers closed on nothing rest at the
closed stop (low current); an unpowered servo draws nothing. Rail sense: the servo rail behind the e-stop switch
through a 15k/20k divider (100 nF) into GP22: high while the rail has power, low when the switch cuts it.
"""

from __future__ import annotations

GRIP_ADC_CHANNEL = 0  # GP26
GRIP_ADC_PIN = 26
RAIL_SENSE_PIN = 22
SHUNT_OHM = 0.1
AMPLIFIER_GAIN = 50.0
ADC_REFERENCE_V = 3.3
ADC_FULL_SCALE = 4095  # 12-bit
#: Gripper servo current in A: stalled on a held disk, resting at the closed stop, unpowered.
STALL_A = 0.5
RESTING_A = 0.08
UNPOWERED_A = 0.0


def adc_counts(current_a: float) -> int:
    """The 12-bit ADC reading (0..4095) for a gripper supply current of ``current_a`` A."""
    volts = current_a * SHUNT_OHM * AMPLIFIER_GAIN
    return max(0, min(ADC_FULL_SCALE, round(volts / ADC_REFERENCE_V * ADC_FULL_SCALE)))


def grip_adc_counts(*, held: bool, powered: bool) -> int:
    """The grip sensor's ADC reading: a stall current while a disk is ``held``, the resting current otherwise,
    nothing while the gripper servo is not ``powered``."""
    if not powered:
        return adc_counts(UNPOWERED_A)
    return adc_counts(STALL_A if held else RESTING_A)
