"""The virtual Pico's servos see the RP2040's PWM as it is: the compare value is double-buffered (RP2040 datasheet,
4.5.2.3), so a new duty takes effect at the slice's next wrap, once per 20 ms frame at 50 Hz, and a servo measures
the pulse of its frame. A firmware that changes the duty every 0.73 ms therefore moves the servo at most once
per frame: the pulses the harness reads back every 10 ms of chip time change only at wraps, 20 ms apart.
"""

from __future__ import annotations

import itertools

import pytest
from hanoibot.sim.vpico.flash import files_on_flash
from hanoibot.sim.vpico.process import VirtualPico

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

#: main.py: GP2 (servo channel 0) at 50 Hz, its pulse switched between 1000 and 2000 us every 0.73 ms for about 1 s.
TOGGLING_MAIN = b"""
import machine, time
pwm = machine.PWM(machine.Pin(2))
pwm.freq(50)
for k in range(1000):
    pwm.duty_u16(3277 if k % 2 else 6554)
    time.sleep_us(730)
print("TOGGLED")
while True:
    time.sleep_ms(100)
"""


def test_a_duty_change_reaches_the_servo_only_at_the_next_frame() -> None:
    files = files_on_flash()
    files["main.py"] = TOGGLING_MAIN
    with VirtualPico(files=files, driven=True, seed=1) as pico:
        pico.wait_for_output(b"TOGGLED")
        pico.run_until(pico.time_s + 0.2)
        changes_s = [t_s for t_s, channel, pulse_us in pico.servos.history if channel == 0 and pulse_us is not None]
    assert len(changes_s) >= 5, changes_s  # the pulse did switch, frame after frame
    gaps_ms = [round((b - a) * 1000) for a, b in itertools.pairwise(changes_s)]
    assert min(gaps_ms) >= 20, gaps_ms
