"""The RP2 PWM block at each chip's own addresses, on a fake PWM block built like the chip's registers
(slicefakes.py; also run under MicroPython)."""

from hanoifw.rp2pwm import align_rp2_slices, pwm_block, rp2_slices, slice_of
from slicefakes import FakePwmBlock

PINS = (2, 3, 4, 5, 6)  # board_config.PWM_PINS["RP2040"]: slices 1 (A, B), 2 (A, B), 3 (A)


def test_slices_of_the_servo_pins_restart_together_with_one_enable_write():
    for chip, en in (("RP2040", 0x400500A0), ("RP2350", 0x400A80F0)):
        block = FakePwmBlock(chip)
        pwm = block.pwm_class()
        pwms = [pwm(pin, freq=50, duty_u16=0) for pin in PINS]
        other = pwm(14, freq=50, duty_u16=0)  # slice 7 runs, not ours
        assert rp2_slices(chip, PINS) == 0b1110 and other.slice == 7
        block.ctr[1], block.ctr[2], block.ctr[3] = 100, 2000, 30000
        block.recording = True
        align_rp2_slices(block, chip, PINS)
        en_writes = [value for address, value in block.accesses if address == en and value is not None]
        assert en_writes == [0b1000_0000, 0b1000_1110], (chip, en_writes)  # stopped, then started by one write
        zeroed = [address for address, value in block.accesses if address != en]
        assert zeroed == [block.base + 0x14 * n + 0x08 for n in (1, 2, 3)]
        assert block.accesses[-1] == (en, 0b1000_1110)
        assert len(pwms) == 5 and block.ctr[1] == block.ctr[2] == block.ctr[3]


def test_an_rp2350_is_driven_at_its_own_addresses_only():
    """On the RP2350 the PWM block is at 0x400a8000 with EN at +0xf0 (0x40050000 is PLL_SYS): aligning the slices
    stays in that block, and the RP2350B's GPIO 32-47 use slices 8-11."""
    for pins in (PINS, (32, 33, 36, 38, 47)):
        block = FakePwmBlock("RP2350")  # any other address raises
        pwm = block.pwm_class()
        for pin in pins:
            pwm(pin, freq=50, duty_u16=0)
        block.recording = True
        align_rp2_slices(block, "RP2350", pins)
        addresses = [address for address, _ in block.accesses]
        assert addresses and all(0x400A8000 <= address < 0x400AC000 for address in addresses)
        assert not [address for address in addresses if 0x40050000 <= address < 0x40054000]
    assert [slice_of("RP2350", pin) for pin in (32, 33, 34, 38, 40, 45, 47)] == [8, 8, 9, 11, 8, 10, 11]
    assert rp2_slices("RP2350", (32, 33, 36, 38, 47)) == 1 << 8 | 1 << 10 | 1 << 11
    for chip, pin in (("RP2040", 32), ("RP2350", 48)):
        try:
            slice_of(chip, pin)
        except ValueError as err:
            assert str(pin) in str(err) and chip in str(err)
        else:
            raise AssertionError(f"GPIO {pin} accepted on {chip}")


def test_a_chip_that_is_no_rp2_is_refused():
    try:
        pwm_block("ESP32")
    except ValueError as err:
        assert "ESP32" in str(err)
    else:
        raise AssertionError("an ESP32 was taken for an RP2")
