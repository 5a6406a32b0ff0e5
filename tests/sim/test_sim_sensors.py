"""The simulated grip sensor reads what the hardware would: no current undriven, 50 Hz bursts, RC filter, noise."""

from __future__ import annotations

import statistics

from hanoibot.sim.sensors import GripSenseCircuit, GripSensor, ServoCurrent

SERVO = ServoCurrent()


def frame_mean_u16(stalled: bool) -> float:
    """Oracle: the frame's mean current x 0.1 ohm x gain 50, as a 16-bit reading of 3.3 V."""
    peak_a, burst_s = (SERVO.stall_peak_a, SERVO.stall_burst_s) if stalled else (SERVO.rest_peak_a, SERVO.rest_burst_s)
    mean_a = SERVO.quiescent_a + peak_a * burst_s / SERVO.frame_s
    return mean_a * 0.1 * 50 / 3.3 * 65535


def sensor_at(stalled: bool, driven: bool = True, seed: int = 0) -> tuple[GripSensor, list[float]]:
    now = [0.0]
    sensor = GripSensor(lambda: stalled, seed=seed)
    sensor.connect(now_s=lambda: now[0], is_driven=lambda: driven, frame_phase_s=0.003)
    return sensor, now


def readings(sensor: GripSensor, now: list[float], start_s: float, every_s: float, count: int) -> list[int]:
    values = []
    for i in range(count):
        now[0] = start_s + i * every_s
        values.append(sensor.read_u16())
    return values


def test_an_undriven_servo_reads_no_current_disk_or_not() -> None:
    for stalled in (False, True):
        sensor, now = sensor_at(stalled, driven=False)
        assert max(readings(sensor, now, 1.0, 0.0013, 50)) < 200  # ADC noise around 0 only


def test_single_readings_of_a_stalled_servo_depend_on_the_phase_in_the_frame() -> None:
    sensor, now = sensor_at(True)
    values = readings(sensor, now, 1.0, 0.001, 40)  # 1 ms apart over two frames
    threshold = (frame_mean_u16(True) + frame_mean_u16(False)) / 2
    assert min(values) < threshold < max(values), "one sample may miss the burst: no verdict from one sample"


def test_the_frame_mean_is_the_mean_current_through_the_circuit() -> None:
    for stalled in (False, True):
        sensor, now = sensor_at(stalled)
        values = readings(sensor, now, 1.0, 0.0005, 400)  # ten frames, densely
        assert abs(statistics.fmean(values) - frame_mean_u16(stalled)) < 0.01 * 65535


def test_adc_noise_is_seeded_and_the_reading_is_the_12_bit_conversion_scaled() -> None:
    first, now1 = sensor_at(False, seed=4)
    second, now2 = sensor_at(False, seed=4)
    assert readings(first, now1, 1.0, 0.0007, 30) == readings(second, now2, 1.0, 0.0007, 30)
    noisy = set(readings(*sensor_at(False, seed=5), 2.0, 0.02, 30))  # same phase of every frame
    assert len(noisy) > 1, "the same filtered voltage reads differently: ADC noise"
    circuit = GripSenseCircuit()
    assert circuit.u16(4095) == 65535 and circuit.u16(0) == 0 and circuit.u16(2048) == 2048 << 4 | 2048 >> 8


def test_the_amplifier_stops_at_its_supply_and_the_adc_at_full_scale() -> None:
    circuit = GripSenseCircuit()
    assert circuit.amplifier_v(10.0) == circuit.amplifier_max_v == 3.3
    assert circuit.counts(5.0) == 4095
    assert circuit.tau_s == 1e-3  # 1 kOhm x 1 uF
