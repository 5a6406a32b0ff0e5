"""The virtual Pico's PCA9685 register model (sim/vpico/pca9685.mjs) against the datasheet and our driver.

The firmware's own driver (hanoifw.pca9685) writes to a recording I2C bus; the recorded transactions are replayed
into the JavaScript model under Node, and the pulse widths it reads back must be what the driver was asked for,
to within one PWM count (datasheet: one count = (PRE_SCALE + 1) / 25 MHz).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hanoifw.pca9685 import PCA9685

MODEL = Path(__file__).resolve().parents[2] / "host" / "hanoibot" / "sim" / "vpico" / "pca9685.mjs"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed to run the JS model")

SCRIPT = """
import { PCA9685 } from %(model)s;
const { transactions, reads } = JSON.parse(process.argv[1]);
const chip = new PCA9685();
for (const bytes of transactions) { chip.start(); for (const b of bytes) chip.write(b); }
const out = { pulses: [], reads: [] };
for (let n = 0; n < 16; n++) out.pulses.push(chip.pulseUs(n));
for (const [reg, count] of reads) {
  chip.start(); chip.write(reg); chip.start();
  const got = []; for (let i = 0; i < count; i++) got.push(chip.read()); out.reads.push(got);
}
console.log(JSON.stringify(out));
"""


class RecordingI2C:
    """An I2C bus that keeps each ``writeto_mem`` as one transaction: register pointer, then the data bytes."""

    def __init__(self) -> None:
        self.transactions: list[list[int]] = []

    def writeto_mem(self, address: int, register: int, data: bytes) -> None:
        assert address == 0x40
        self.transactions.append([register, *data])

    def readfrom_mem_into(self, address: int, register: int, buf: bytearray) -> None:
        """A chip in its power-on state (datasheet: MODE1 0x11, PRE_SCALE 0x1E): the driver reads before it writes."""
        power_on = {0x00: 0x11, 0xFE: 0x1E}
        for i in range(len(buf)):
            buf[i] = power_on.get(register + i, 0)


def run_model(transactions: list[list[int]], reads: list[tuple[int, int]] = ()) -> dict:
    script = SCRIPT % {"model": json.dumps(MODEL.as_uri())}
    result = subprocess.run(
        ["node", "--input-type=module", "-e", script, json.dumps({"transactions": transactions, "reads": reads})],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_pulses_set_by_our_driver_read_back_in_microseconds() -> None:
    bus = RecordingI2C()
    driver = PCA9685(bus, freq_hz=50, sleep_us=lambda _us: None)
    wanted_us = {0: 500, 1: 1000, 2: 1500, 3: 2000, 4: 2500}
    for channel, pulse_us in wanted_us.items():
        driver.set_pulse_us(channel, pulse_us)
    driver.release(4)
    pulses = run_model(bus.transactions)["pulses"]
    count_us = (driver.prescale + 1) / 25.0  # datasheet: one of 4096 counts at 25 MHz / (PRE_SCALE + 1)
    assert driver.prescale == 121  # datasheet eq. 1 for 50 Hz: round(25e6 / (4096 * 50)) - 1
    for channel in range(4):
        assert abs(pulses[channel] - wanted_us[channel]) <= count_us
    assert pulses[4] is None  # released: full off
    assert all(p is None for p in pulses[5:])  # switched off at start by ALL_LED


def test_sleep_gates_the_outputs_and_pre_scale_is_written_only_asleep() -> None:
    led0 = [0x06, 0x00, 0x00, 0x00, 0x01]  # LED0: ON at 0, OFF at 256 counts
    awake = [[0x00, 0x20], [0xFE, 0x03], led0]  # wake (AI), then a PRE_SCALE write that must be ignored
    out = run_model(awake, reads=[(0xFE, 1)])
    assert out["reads"] == [[0x1E]]  # power-on PRE_SCALE (200 Hz) kept
    assert out["pulses"][0] == pytest.approx(256 * (0x1E + 1) / 25.0)
    asleep = run_model([[0xFE, 0x03], led0])  # power-on MODE1 has SLEEP set: PRE_SCALE taken, no output
    assert asleep["pulses"][0] is None


def test_auto_increment_rolls_over_as_the_datasheet_says() -> None:
    # With AI, a write running past LED15_OFF_H (0x45) continues at MODE1 (0x00).
    out = run_model([[0x00, 0x20], [0x45, 0x10, 0x20]], reads=[(0x00, 1), (0x45, 2)])
    assert out["reads"] == [[0x20], [0x10, 0x20]]
    # Without AI the pointer stays: three bytes to LED0_ON_L leave only the last one there.
    plain = run_model([[0x00, 0x00], [0x06, 1, 2, 3]], reads=[(0x06, 2)])
    assert plain["reads"] == [[3, 3]]


def test_all_led_registers_write_every_output() -> None:
    out = run_model([[0x00, 0x20], [0xFA, 0x00, 0x00, 0x00, 0x02]])
    assert out["pulses"] == [pytest.approx(512 * (0x1E + 1) / 25.0)] * 16
