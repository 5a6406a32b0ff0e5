"""The simulated servo rail: the BOM's divider keeps the pin in range, the switch bounces, the supply sags."""

from __future__ import annotations

from hanoibot.sim.rail import RailCircuit, ServoRail

ESP32_VIH_MAX_V = 3.6  # ESP32 datasheet: VIH max = VDD + 0.3
RP2040_ABS_MAX_V = 3.8  # RP2040 datasheet: IOVDD + 0.5 absolute maximum
ESP32_VIH_MIN_V = 0.75 * 3.3


def rail_at(circuit: RailCircuit | None = None) -> tuple[ServoRail, list[float]]:
    now = [0.0]
    rail = ServoRail(circuit)
    rail.connect(now_s=lambda: now[0], load_a=lambda: 0.5)
    return rail, now


def test_the_divider_keeps_a_6_volt_rail_under_both_chips_limits_and_reads_high() -> None:
    rail, now = rail_at()
    now[0] = 1.0
    pin_v = rail.pin_v(now[0])
    assert abs(pin_v - (6.0 - 0.35 * 0.5) * 20 / 35) < 1e-9  # the supply less its sag, through 15k/20k
    unloaded_v = RailCircuit().supply_v * RailCircuit().divider_ratio
    assert unloaded_v < ESP32_VIH_MAX_V < RP2040_ABS_MAX_V and pin_v > ESP32_VIH_MIN_V
    old_bom = RailCircuit(divider_top_ohm=10000.0)
    assert old_bom.supply_v * old_bom.divider_ratio > ESP32_VIH_MAX_V, "the old 10k/20k divider over-drives the pin"


def test_the_switch_bounces_for_a_few_ms_then_reads_steady() -> None:
    rail, now = rail_at()
    now[0] = 1.0
    rail.is_powered = False
    levels = []
    for i in range(80):  # 0.1 ms apart over 8 ms
        now[0] = 1.0 + i * 0.0001
        levels.append(rail.value())
    assert 1 in levels[:40] and 0 in levels[:40], "the contacts chatter"
    assert set(levels[50:]) == {0}
    now[0] = 2.0
    rail.is_powered = True
    now[0] = 2.0002
    assert rail.value() == 0, "still bouncing just after the switch closed"
    now[0] = 2.01
    assert rail.value() == 1


def test_a_stall_sags_the_rail_below_the_input_threshold_for_its_duration() -> None:
    rail, now = rail_at(RailCircuit(input_high_v=ESP32_VIH_MIN_V))
    now[0] = 1.0
    rail.stall(0.02, 6.0)  # several servos stalled at once: 6 A through 0.35 ohm
    assert rail.rail_v(now[0]) < 4.0 and rail.value() == 0
    now[0] = 1.03
    assert rail.value() == 1
