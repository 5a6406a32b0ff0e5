"""The RP2 servo HAL on a fake PWM block built like the chip's registers (slicefakes.py; also run under MicroPython):
every frame latches one whole control step wherever the wrap falls, the pulses are those ``duty_u16`` gave, the
other half of a shared slice is kept, and an RP2350 is driven at its own addresses only."""

from fwfakes import heap_bytes_during
from hanoifw.boardpins import BoardConfigError
from hanoifw.outputs import Outputs
from hanoifw.rp2pwm import GUARD_US, Rp2PwmServos, align_rp2_slices, compare_for_duty, rp2_slices, slice_of
from hanoifw.servos import PwmServos, duty_u16_for
from slicefakes import FakePwmBlock, last_steps, mixed_frames, sweep_steps

PINS = (2, 3, 4, 5, 6)  # board_config.PWM_PINS["RP2040"]: slices 1 (A, B), 2 (A, B), 3 (A)


def rp2_servos(block, pins=PINS, **kwargs):
    """An Rp2PwmServos on ``block``'s chip, its machine.PWM objects made as main.py makes them; the block's
    counters of interrupts and stores start afresh."""
    pwm = block.pwm_class()
    pwms = [pwm(pin, freq=50, duty_u16=0) for pin in pins]
    servos = Rp2PwmServos(
        pwms,
        pins,
        chip=block.chip,
        mem32=block,
        disable_irq=block.disable_irq,
        enable_irq=block.enable_irq,
        **kwargs,
    )
    block.cc_writes_with_irq_on = 0
    block.irq_off_longest = 0
    return servos


def guard_accesses(block, servos):
    """How many of ``block``'s accesses the HAL's guard spans: a wrap placed up to this far ahead makes it wait."""
    guard_counts = GUARD_US * (servos.top + 1) // servos.period_us
    return guard_counts // block.counts_per_access + 1


def test_every_frame_latches_one_whole_step_wherever_the_wrap_falls():
    """The wrap is placed before each access of a step in turn, from the guard's far edge to the last store, at
    two register speeds (about 1.2 and 4.9 us an access): no frame mixes two steps, and no step is lost."""
    for counts_per_access in (4, 16):
        block = FakePwmBlock("RP2040", counts_per_access=counts_per_access)
        servos = rp2_servos(block)
        positions = list(range(guard_accesses(block, servos) + 40))
        steps = sweep_steps(Outputs(servos, len(PINS), stagger_ms=0), block, positions)
        assert mixed_frames(block, PINS, steps) == [], counts_per_access
        latched = last_steps(block, PINS, steps)
        assert latched == sorted(latched) and set(latched) == set(range(len(steps))), latched
        assert block.cc_writes_with_irq_on == 0


def test_the_fake_block_catches_a_step_split_by_the_wrap():
    """The check above can fail: ``duty_u16`` channel by channel (the HAL before this one), slices aligned, splits
    steps across two frames at some of the same wrap positions."""
    block = FakePwmBlock("RP2040", counts_per_access=4)
    pwm = block.pwm_class()
    servos = PwmServos([pwm(pin, freq=50, duty_u16=0) for pin in PINS])
    align_rp2_slices(block, "RP2040", PINS)
    steps = sweep_steps(Outputs(servos, len(PINS), stagger_ms=0), block, list(range(60)))
    mixed = mixed_frames(block, PINS, steps)
    assert len(mixed) >= 10, mixed
    taken = mixed[0][1]
    assert max(taken) - min(taken) == 1, taken  # this frame's servos took two neighbouring steps


def test_interrupts_are_off_only_for_the_stores_and_an_interrupt_anywhere_splits_no_step():
    """An interrupt handler of twice the guard's length lands at each access of a step while the wrap sits just
    past the guard's edge: held off while the counter is read and the compare registers stored, it cannot push
    the stores past the wrap. Interrupts are off for at most the counter read and one read and store per slice."""
    block = FakePwmBlock("RP2040", counts_per_access=8)
    servos = rp2_servos(block)
    outputs = Outputs(servos, len(PINS), stagger_ms=0)
    steps = sweep_steps(outputs, block, [100])
    edge = guard_accesses(block, servos)
    for wrap_after in (edge - 1, edge, edge + 1, edge + 2):
        for at in range(8):
            block.interrupt_at(block.count + at, 2 * edge * block.counts_per_access)
            block.place_wrap(wrap_after)
            steps.append([pulse + 1 for pulse in steps[-1]])
            outputs.update(10 * len(steps), steps[-1], [500] * 5, [2500] * 5)
            block.run_to_wrap()
    assert mixed_frames(block, PINS, steps) == []
    assert last_steps(block, PINS, steps)[-1] == len(steps) - 1
    assert 1 <= block.irq_off_longest <= 1 + 2 * 3, block.irq_off_longest
    assert block.cc_writes_with_irq_on == 0


def test_a_stopped_counter_does_not_hold_a_step_up():
    """Slices stopped with their counter inside the guard (no wrap will come): the flush stores at once."""
    block = FakePwmBlock("RP2040", counts_per_access=4)
    servos = rp2_servos(block)
    block[0x400500A0] = 0
    for n in (1, 2, 3):
        block.ctr[n] = servos.top - 5
    before = block.count
    servos.set_pulse_us(0, 1500)
    assert block.count - before == 2 + 1 + 3, block.count - before  # 2 counter reads, GPIO 7's half, 3 stores
    assert block.cc[1] & 0xFFFF == compare_for_duty(duty_u16_for(1500, 20000), servos.top)


def test_channels_of_one_slice_take_one_store_and_a_half_no_servo_uses_keeps_its_value():
    """GPIO 7 (slice 3's B half) and, with the servos moved up one pin, GPIO 2 (slice 1's A half) belong to
    someone else: their compare values survive every flush. Each flush stores each slice's CC once."""
    for pins, other in ((PINS, 7), ((3, 4, 5, 6, 7), 2)):
        block = FakePwmBlock("RP2040")
        pwm = block.pwm_class()
        foreign = pwm(other, freq=50, duty_u16=1234)
        servos = rp2_servos(block, pins)
        outputs = Outputs(servos, len(pins), stagger_ms=0)
        sweep_steps(outputs, block, [200, 300, 0, 1, 2])
        cc_address = block.base + 0x14 * foreign.slice + 0x0C
        expected = (1234 * (servos.top + 1) + 32767) // 65535
        assert block.latched(block.frames[-1], other) == expected
        block.recording = True
        outputs.update(1000, [1500, 1600, 1700, 1800, 1900], [500] * 5, [2500] * 5)
        stores = [address for address, value in block.accesses if value is not None]
        assert sorted(stores) == sorted(set(stores)) and len(stores) == 3, stores
        assert cc_address in stores and block.cc[foreign.slice] >> (16 * (other & 1)) & 0xFFFF == expected


def test_pulses_are_the_compare_values_duty_u16_gave_to_the_count():
    """The same pulses through ``duty_u16`` (MicroPython v1.27's formula, on the TOP its ``freq`` chose at each
    chip's clock) and through this HAL give the same compare values, every us from 0 to 3000."""
    for chip in ("RP2040", "RP2350"):
        old = FakePwmBlock(chip)
        pwm = old.pwm_class()
        today = PwmServos([pwm(pin, freq=50, duty_u16=0) for pin in PINS])
        new = FakePwmBlock(chip)
        servos = rp2_servos(new)
        for pulse_us in range(0, 3001):
            today.set_pulse_us(2, pulse_us)
            servos.set_pulse_us(2, pulse_us)
            assert new.cc[2] == old.cc[2], (chip, pulse_us, new.cc[2], old.cc[2])
        assert servos.top == old.top[2]


def test_compare_for_duty_is_micropythons_formula_without_long_integers():
    for top in (65465, 62499, 65534, 9999, 255):
        duties = list(range(0, 65536, 97))
        duties.extend((65534, 65535))
        for duty in duties:
            assert compare_for_duty(duty, top) == (duty * (top + 1) + 32767) // 65535, (duty, top)
    assert duty_u16_for(1500, 20000) == 4915


def test_an_rp2350_is_driven_at_its_own_addresses_only():
    """On the RP2350 the PWM block is at 0x400a8000 with EN at +0xf0 (0x40050000 is PLL_SYS): every access of
    the HAL, from the alignment to a release, stays in that block, and the RP2350B's GPIO 32-47 use slices 8-11."""
    for pins in (PINS, (32, 33, 36, 38, 47)):
        block = FakePwmBlock("RP2350")  # any other address raises
        block.recording = True
        servos = rp2_servos(block, pins)
        steps = sweep_steps(Outputs(servos, 5, stagger_ms=0), block, [0, 1, 2, 3, 150])
        servos.release(4)
        assert mixed_frames(block, pins, steps) == []
        addresses = [address for address, _ in block.accesses]
        assert all(0x400A8000 <= address < 0x400AC000 for address in addresses)
        assert not [address for address in addresses if 0x40050000 <= address < 0x40054000]
    assert [slice_of("RP2350", pin) for pin in (32, 33, 34, 38, 40, 45, 47)] == [8, 8, 9, 11, 8, 10, 11]
    assert rp2_slices("RP2350", (32, 33, 36, 38, 47)) == 1 << 8 | 1 << 10 | 1 << 11
    for chip, pin in (("RP2040", 32), ("RP2350", 48)):
        try:
            slice_of(chip, pin)
        except BoardConfigError as err:
            assert str(pin) in str(err) and chip in str(err)
        else:
            raise AssertionError(f"GPIO {pin} accepted on {chip}")


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


def test_two_servos_on_one_pwm_channel_are_refused():
    """GPIO 2 and 18 are both slice 1's A output on an RP2040: they would always give the same pulse."""
    block = FakePwmBlock("RP2040")
    try:
        rp2_servos(block, (2, 3, 18))
    except BoardConfigError as err:
        assert "GPIO 2 and GPIO 18" in str(err) and "PWM_PINS" in str(err)
    else:
        raise AssertionError("two servos on one PWM channel accepted")


def test_a_chip_that_is_no_rp2_is_refused():
    try:
        Rp2PwmServos([], (), chip="ESP32", mem32=None, disable_irq=None, enable_irq=None)
    except ValueError as err:
        assert "ESP32" in str(err)
    else:
        raise AssertionError("an ESP32 was taken for an RP2")


class QuietBlock:
    """``machine.mem32`` of a running PWM block whose counter always reads 0, and nothing recorded: a flush's own
    heap use, measured with nothing allocating around it."""

    def __init__(self, top):
        self.words = {}
        for n in range(8):
            for reg in (0x00, 0x04, 0x08, 0x0C, 0x10):
                self.words[0x40050000 + 0x14 * n + reg] = top if reg == 0x10 else 0
        self.words[0x400500A0] = 0

    def __getitem__(self, address):
        return self.words[address]

    def __setitem__(self, address, value):
        self.words[address] = value


class SilentPWM:
    def freq(self, hz):
        pass

    def duty_u16(self, value):
        pass


def irq_off():
    return 1


def irq_on(state):
    pass


def test_a_step_through_the_hal_allocates_nothing():
    """On MicroPython (gc.mem_alloc): 20 steps of every channel staged and flushed allocate no heap."""
    block = QuietBlock(65465)
    servos = Rp2PwmServos(
        [SilentPWM() for _ in PINS], PINS, chip="RP2040", mem32=block, disable_irq=irq_off, enable_irq=irq_on
    )
    outputs = Outputs(servos, 5, stagger_ms=0)
    steps = [[1000 + 7 * k + 100 * ch for ch in range(5)] for k in range(20)]
    mins_us = [500] * 5
    maxs_us = [2500] * 5
    outputs.start_enable(0)
    outputs.update(0, steps[0], mins_us, maxs_us)

    def run():
        for k in range(20):
            outputs.update(10 * k, steps[k], mins_us, maxs_us)

    used = heap_bytes_during(run)
    assert used in (None, 0), used
    assert block.words[0x40050000 + 0x14 * 3 + 0x0C] == compare_for_duty(duty_u16_for(steps[19][4], 20000), 65465)
