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
const { transactions, reads, times_ns, read_at_ns } = JSON.parse(process.argv[1]);
const chip = new PCA9685();
transactions.forEach((bytes, i) => {
  const t = times_ns[i];
  chip.start(t); for (const b of bytes) chip.write(b, t); chip.stop(t);
});
const out = { pulses: [], reads: [], since_ns: 0 };
for (let n = 0; n < 16; n++) out.pulses.push(chip.pulseUs(n, read_at_ns));
out.since_ns = chip.sinceNs;
out.cycle_ns = chip.cycleNs();
out.origin_ns = chip.cycleOriginNs;
for (const [reg, count] of reads) {
  chip.start(read_at_ns); chip.write(reg, read_at_ns); chip.start(read_at_ns);
  const got = []; for (let i = 0; i < count; i++) got.push(chip.read()); out.reads.push(got);
}
console.log(JSON.stringify(out));
"""
#: Transactions replayed 1 ms of emulated time apart; pulses are read back long after (every cycle has ended).
STEP_NS = 1_000_000
LATER_NS = 10**12


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


def run_model(
    transactions: list[list[int]],
    reads: list[tuple[int, int]] = (),
    *,
    times_ns: list[int] | None = None,
    read_at_ns: int = LATER_NS,
) -> dict:
    """Replay ``transactions`` (at ``times_ns``, default 1 ms apart) into the JS model; read back at ``read_at_ns``."""
    script = SCRIPT % {"model": json.dumps(MODEL.as_uri())}
    times = times_ns if times_ns is not None else [k * STEP_NS for k in range(len(transactions))]
    arg = {"transactions": transactions, "reads": reads, "times_ns": times, "read_at_ns": read_at_ns}
    result = subprocess.run(
        ["node", "--input-type=module", "-e", script, json.dumps(arg)],
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


def test_new_pulses_take_effect_together_at_the_end_of_the_chip_s_own_cycle() -> None:
    """Datasheet 7.3.1 (OCH = 0): LEDn_ON/OFF written in a transaction take effect at the end of the PWM cycle in
    which its STOP came, for every output at once; the counter runs from the oscillator's wake (SLEEP cleared, plus
    its 500 us settling time), one cycle every 4096 (PRE_SCALE + 1) / 25 MHz, and a pulse is whole counts."""
    wake = [[0xFE, 121], [0x00, 0x20]]  # 50 Hz (PRE_SCALE 121), then wake with auto-increment
    first = [0x06, 0, 0, 0x33, 0x01, 0, 0, 0x66, 0x01]  # LED0 OFF at 307 counts, LED1 at 358
    second = [0x06, 0, 0, 0x66, 0x01, 0, 0, 0x33, 0x01]  # swapped
    cycle_ns = 4096 * 122 / 25e6 * 1e9
    wake_ns, first_ns = 0, 3_000_000
    origin_ns = wake_ns + 500_000
    second_ns = origin_ns + 2 * cycle_ns - 50_000  # 50 us before the end of the second cycle
    times = [wake_ns, wake_ns, first_ns, round(second_ns)]
    count_us = 122 / 25.0  # 4.88 us
    before = run_model([*wake, first, second], times_ns=times, read_at_ns=round(second_ns) + 10_000)
    assert before["origin_ns"] == origin_ns and before["cycle_ns"] == pytest.approx(cycle_ns)
    assert before["pulses"][:2] == [pytest.approx(307 * count_us), pytest.approx(358 * count_us)]  # first, latched
    assert before["since_ns"][:3] == [pytest.approx(origin_ns + cycle_ns)] * 2 + [0]  # at the end of its cycle
    after = run_model([*wake, first, second], times_ns=times, read_at_ns=round(origin_ns + 2 * cycle_ns) + 1)
    assert after["pulses"][:2] == [pytest.approx(358 * count_us), pytest.approx(307 * count_us)]  # both at once
    assert after["since_ns"][:2] == [pytest.approx(origin_ns + 2 * cycle_ns)] * 2
    assert 1498 < after["pulses"][1] < 1499 and (after["pulses"][1] / count_us) == pytest.approx(307)  # whole counts
