"""PCA9685 driver tests against the NXP datasheet (register map, PRE_SCALE examples), with a fake I2C bus
(also run under MicroPython)."""

from fwfakes import FakeI2C
from hanoifw.controller import Controller
from hanoifw.pca9685 import PCA9685, prescale_for

# Datasheet register addresses (section 7.3, table 4)
MODE1 = 0x00
MODE2 = 0x01
LED0_ON_L = 0x06
LED15_ON_L = 0x42
ALL_LED_ON_L = 0xFA
PRE_SCALE = 0xFE


def make(address=0x40, freq_hz=50):
    i2c = FakeI2C()
    slept = []
    driver = PCA9685(i2c, address=address, freq_hz=freq_hz, sleep_us=slept.append)
    return i2c, driver, slept


def test_prescale_matches_the_datasheet_examples():
    assert prescale_for(200) == 0x1E  # the power-on default: 200 Hz
    assert prescale_for(1526) == 0x03  # the fastest rate
    assert prescale_for(24) == 253  # eq. 1; 0xFF gives 23.8 Hz, which the datasheet rounds to 24 Hz
    assert prescale_for(50) == 121  # round(25 MHz / (4096 * 50)) - 1
    for freq_hz in (23, 1600):
        try:
            prescale_for(freq_hz)
        except ValueError as err:
            assert str(freq_hz) in str(err)
        else:
            raise AssertionError(f"accepted {freq_hz} Hz")


def test_start_up_sets_auto_increment_first_then_the_rate_while_asleep_then_all_off():
    i2c, driver, slept = make(address=0x41)
    assert i2c.writes == [
        (0x41, MODE1, bytes([0x30])),  # SLEEP | AI, ALLCALL cleared: before any multi-byte write
        (0x41, MODE2, bytes([0x04])),  # OUTDRV: totem pole
        (0x41, PRE_SCALE, bytes([121])),
        (0x41, ALL_LED_ON_L, bytes([0, 0, 0, 0x10])),  # ALL_LED_OFF_H bit 4: full off
        (0x41, MODE1, bytes([0x20])),  # awake, AI only
    ]
    assert slept == [500]  # oscillator start-up time
    assert driver.channels == 16 and driver.held_us == [0] * 16
    regs = i2c.registers[0x41]
    assert regs[MODE1] == 0x20 and regs[PRE_SCALE] == 121


def test_a_chip_at_its_power_on_state_ends_up_at_50_hz_with_every_output_off():
    """The modelled chip ignores PRE_SCALE while awake and, without AI, puts a 4-byte write into one register:
    an init that writes LED registers or PRE_SCALE in the wrong state leaves the chip at 200 Hz or an output on."""
    i2c, driver, _ = make()
    assert i2c.registers[0x40][PRE_SCALE] == 121
    assert all(i2c.pulse_counts(0x40, n) is None for n in range(16))
    driver.set_pulse_us(4, 1500)
    assert i2c.pulse_counts(0x40, 4) == (4 * 256, 4 * 256 + 307)  # ON staggered by 256 counts per output


def test_a_running_chip_keeps_its_pulses_and_reports_them():
    """After an MCU reset the PCA9685 still drives the servos: start-up reads the pulses back, blanks nothing."""
    i2c, first, _ = make()
    first.set_pulse_us(0, 1500)
    first.set_pulse_us(2, 2100)
    i2c.writes.clear()
    second = PCA9685(i2c, sleep_us=lambda us: None)
    assert [reg for _, reg, _ in i2c.writes] == [MODE1, MODE2]  # no LED register written
    assert i2c.pulse_counts(0x40, 0) == (0, 307) and i2c.pulse_counts(0x40, 2) == (512, 512 + 430)
    assert abs(second.held_us[0] - 1500) <= 3 and abs(second.held_us[2] - 2100) <= 3
    assert second.held_us[1] == 0 and second.held_us[15] == 0


def test_a_chip_at_another_rate_is_blanked_not_read():
    i2c, first, _ = make(freq_hz=200)
    first.set_pulse_us(0, 1500)
    second = PCA9685(i2c, sleep_us=lambda us: None)
    assert second.held_us == [0] * 16 and i2c.pulse_counts(0x40, 0) is None
    assert i2c.registers[0x40][PRE_SCALE] == 121


def test_a_measured_oscillator_changes_the_counts():
    """Datasheet eq. 1 with the chip's real clock: 27 MHz instead of 25 MHz needs PRE_SCALE 131 for 50 Hz."""
    i2c = FakeI2C()
    driver = PCA9685(i2c, osc_hz=27000000, sleep_us=lambda us: None)
    assert driver.prescale == 131 == round(27e6 / (4096 * 50)) - 1
    assert driver.counts_for(1500) == round(1500e-6 * 27e6 / 132)


class OePin:
    """The Pin wired to OE: records every level it is driven to, and what output 0 gave at that moment."""

    def __init__(self, i2c):
        self.i2c = i2c
        self.values = []

    def value(self, level):
        self.values.append((level, self.i2c.pulse_counts(0x40, 0)))


def test_output_enable_is_driven_low_after_start_up():
    i2c = FakeI2C()
    oe = OePin(i2c)
    driver = PCA9685(i2c, oe=oe, sleep_us=lambda us: None)
    assert oe.values == [(0, None)] and driver.held_us == [0] * 16


def test_with_output_enable_wired_pulses_kept_through_a_reset_are_blanked_before_enabling():
    """OE was pulled high while the MCU was in reset, so the servos went limp: enabling the old pulses again would
    drive every servo back at once. They are switched off first; the first CONFIG enables them one at a time."""
    i2c, first, _ = make()
    first.set_pulse_us(0, 1500)
    first.set_pulse_us(2, 2100)
    oe = OePin(i2c)
    second = PCA9685(i2c, oe=oe, sleep_us=lambda us: None)
    assert oe.values == [(0, None)]  # OE low only once output 0 is off
    assert second.held_us == [0] * 16
    assert all(i2c.pulse_counts(0x40, n) is None for n in range(16))
    assert i2c.registers[0x40][MODE1] == 0x20 and i2c.registers[0x40][PRE_SCALE] == 121


def test_pulse_width_becomes_the_off_count():
    i2c, driver, _ = make()
    driver.set_pulse_us(0, 1500)
    expected = round(1500e-6 * 25e6 / (121 + 1))  # counts of a 25 MHz / (PRE_SCALE + 1) tick
    regs = i2c.registers[0x40]
    assert (regs[LED0_ON_L], regs[LED0_ON_L + 1]) == (0, 0)
    assert regs[LED0_ON_L + 2] | (regs[LED0_ON_L + 3] << 8) == expected == 307
    driver.set_pulse_us(15, 2500)
    on = 15 * 256  # staggered: output 15 starts at count 3840, its 512 counts wrap past the period's end
    off = (on + 512) % 4096
    assert i2c.writes[-1] == (0x40, LED15_ON_L, bytes([on & 0xFF, on >> 8, off & 0xFF, off >> 8]))
    assert driver.counts_for(100000) == 4095 and driver.counts_for(-3) == 0


def test_release_and_close_switch_outputs_full_off():
    i2c, driver, _ = make()
    with driver:
        driver.set_pulse_us(3, 1000)
        driver.release(3)
        assert i2c.writes[-1] == (0x40, LED0_ON_L + 12, bytes([0, 0, 0, 0x10]))
    assert i2c.writes[-1] == (0x40, ALL_LED_ON_L, bytes([0, 0, 0, 0x10]))


def test_a_controller_step_writes_every_changed_channel_in_one_staggered_burst():
    """One I2C transaction per step: the chip applies it at its STOP, so all joints step in the same PWM frame."""
    from fwfakes import Host

    i2c = FakeI2C()
    driver = PCA9685(i2c, sleep_us=lambda us: None)
    host = Host(ctl=Controller(driver, boot_id="b0071d00", stagger_ms=0))
    host.start()
    host.move(1, 500, [1900, 1100, 1700, 1300, 1999])
    host.run(200)  # mid-segment: every channel changes at every step
    i2c.writes.clear()
    for _ in range(10):
        host.step()
        led_writes = [(reg, data) for _, reg, data in i2c.writes if LED0_ON_L <= reg < ALL_LED_ON_L]
        assert len(led_writes) == 1 and led_writes[0][0] == LED0_ON_L and len(led_writes[0][1]) == 5 * 4
        i2c.writes.clear()
    ons = [i2c.pulse_counts(0x40, n)[0] for n in range(5)]
    assert ons == [0, 256, 512, 768, 1024]  # the current surges at the pulses' starts never coincide
    assert all(
        abs(driver.pulse_us_for((off - on) % 4096) - host.ctl.pulses_us[n]) <= 3
        for n, (on, off) in enumerate(i2c.pulse_counts(0x40, n) for n in range(5))
    )
