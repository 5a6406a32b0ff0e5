"""PCA9685 driver tests against the NXP datasheet (register map, PRE_SCALE examples), with a fake I2C bus
(also run under MicroPython)."""

from fwfakes import FakeI2C
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


def test_start_up_turns_all_off_then_sets_the_rate_while_asleep():
    i2c, driver, slept = make(address=0x41)
    assert i2c.writes == [
        (0x41, ALL_LED_ON_L, bytes([0, 0, 0, 0x10])),  # ALL_LED_OFF_H bit 4: full off
        (0x41, MODE2, bytes([0x04])),  # OUTDRV: totem pole
        (0x41, MODE1, bytes([0x31])),  # SLEEP | AI | ALLCALL
        (0x41, PRE_SCALE, bytes([121])),
        (0x41, MODE1, bytes([0x21])),  # awake, AI | ALLCALL
    ]
    assert slept == [500]  # oscillator start-up time
    assert driver.channels == 16


def test_pulse_width_becomes_the_off_count():
    i2c, driver, _ = make()
    driver.set_pulse_us(0, 1500)
    expected = round(1500e-6 * 25e6 / (121 + 1))  # counts of a 25 MHz / (PRE_SCALE + 1) tick
    regs = i2c.registers[0x40]
    assert (regs[LED0_ON_L], regs[LED0_ON_L + 1]) == (0, 0)
    assert regs[LED0_ON_L + 2] | (regs[LED0_ON_L + 3] << 8) == expected == 307
    driver.set_pulse_us(15, 2500)
    assert i2c.writes[-1] == (0x40, LED15_ON_L, bytes([0, 0, 512 & 0xFF, 512 >> 8]))
    assert driver.counts_for(100000) == 4095 and driver.counts_for(-3) == 0


def test_release_and_close_switch_outputs_full_off():
    i2c, driver, _ = make()
    with driver:
        driver.set_pulse_us(3, 1000)
        driver.release(3)
        assert i2c.writes[-1] == (0x40, LED0_ON_L + 12, bytes([0, 0, 0, 0x10]))
    assert i2c.writes[-1] == (0x40, ALL_LED_ON_L, bytes([0, 0, 0, 0x10]))
