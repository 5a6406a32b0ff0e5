"""The virtual Pico's hardware models seen from MicroPython code on the chip: PWM pulses read back from the
slice registers, the grip sensor's ADC input (GP26) and the rail-sense GPIO (GP22), and USB back-pressure.

The board runs a small main.py of its own (the real-boards firmware reads these pins in its own way); it answers
each line it gets with ``READ <line> <ADC0 read_u16> <GP22 level>``.
"""

from __future__ import annotations

import pytest
from hanoibot.sim.vpico import sensors
from hanoibot.sim.vpico.process import USB_FIFO_BYTES, VirtualPico

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

PROBE = b"""import machine, sys, time
pwm = machine.PWM(machine.Pin(6), freq=50, duty_u16=4915)
adc = machine.ADC(26)
rail = machine.Pin(22, machine.Pin.IN)
while True:
    line = sys.stdin.readline().strip()
    if line:
        total = 0
        for _ in range(40):  # one 20 ms PWM frame: the current comes in one burst per frame
            total += adc.read_u16()
            time.sleep_us(500)
        print("READ", line, total // 40, rail.value())
"""

SLEEPER = b"""import time
while True:
    time.sleep(1)
"""


class HeldDiskWorld:
    """A world whose fingers hold a disk: the gripper servo stalls whenever it is powered."""

    held_disk = 3
    max_speed_us_per_s = None

    def on_tick(self, t_s: float, pulses_us: list[int | None]) -> None:
        self.last_pulses_us = pulses_us


ASKED = [0]


def ask(pico: VirtualPico) -> tuple[int, int]:
    """Send a numbered question, return the probe's answer to it: (ADC read_u16 averaged over a frame, GP22)."""
    ASKED[0] += 1
    marker = b"READ q%d " % ASKED[0]
    pico.write(b"q%d\n" % ASKED[0])
    deadline_s = pico.time_s + 5.0
    text = b""
    while b"\n" not in text.partition(marker)[2]:
        assert pico.time_s < deadline_s, f"no answer from the probe: {text!r}"
        pico.wait_readable(0.1)  # the chip runs (on chip time) until the probe says something
        text += pico.read_available()
    fields = text.partition(marker)[2].split()
    return int(fields[0]), int(fields[1])


def test_pwm_adc_and_rail_sense_from_the_chip() -> None:
    world = HeldDiskWorld()
    with VirtualPico(files={"main.py": PROBE}, world=world, driven=True, seed=1) as pico:
        pico.wait_connected()
        pico.run_until(pico.time_s + 0.5)
        ask(pico)  # let a few ticks pass, so the world has seen the powered gripper
        adc_u16, rail = ask(pico)
        # duty_u16 4915 of 65535 at 50 Hz is a 1500 us pulse (MicroPython's PWM semantics), read from CC/TOP/DIV
        assert pico.pulses_us[4] == pytest.approx(4915 / 65535 * 20000, abs=1.0)
        stall = sensors.grip_adc_counts(held=True, powered=True)
        servo = sensors.SERVO  # the frame's mean current through 0.1 ohm, gain 50, 12 bits of 3.3 V
        mean_a = servo.quiescent_a + servo.stall_peak_a * servo.stall_burst_s / servo.frame_s
        assert stall == round(mean_a * 0.1 * 50 / 3.3 * 4095)
        assert abs((adc_u16 >> 4) - stall) <= 0.04 * 4095  # rp2's read_u16 scales the 12-bit sample to 16 bits
        assert rail == 1
        pico.set_rail_powered(False)
        ask(pico)  # a tick under way when the rail went may still have had the gripper driven
        adc_u16, rail = ask(pico)
        assert rail == 0
        assert adc_u16 >> 4 <= 10  # no servo power: no current (ADC noise around 0 only)
        pico.run_until(pico.time_s + 0.02)  # two 10 ms ticks of emulated time
        assert world.last_pulses_us[4] is None  # the world's servos went limp with the rail


@pytest.mark.vpico_realtime
def test_usb_input_waits_while_the_firmware_does_not_read() -> None:
    # In real time (a host on the wall clock, as behind emulate's pty): a write waits for room in the USB FIFO.
    with VirtualPico(files={"main.py": SLEEPER}) as pico:
        pico.wait_connected()
        sent = pico.write(b"x" * 8 * USB_FIFO_BYTES, timeout_s=5.0)
        # the host side stops at the board's buffers (rp2040js's 512-byte FIFO plus what TinyUSB holds)
        assert USB_FIFO_BYTES <= sent < 4 * USB_FIFO_BYTES
