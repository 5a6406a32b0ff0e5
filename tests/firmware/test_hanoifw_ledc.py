"""The ESP32 / ESP32-S3 servo HAL on a fake GPIO matrix and LEDC built like the registers (ledcfakes.py; also run
under MicroPython): its LEDC timer is found from the matrix, every frame latches one whole step wherever the
overflow falls, and what it cannot find or guard it writes as before."""

from fwfakes import heap_bytes_during
from hanoifw.ledc import GUARD_US, LedcServos, find_ledc_timer
from hanoifw.outputs import Outputs
from hanoifw.servos import PwmServos, duty_u16_for
from ledcfakes import FakeLedc, frame_steps, mixed_frames, sweep_steps

PINS = {"ESP32": (13, 14, 27, 26, 25), "ESP32S3": (10, 11, 12, 13, 14)}  # board_config.PWM_PINS


def ledc_servos(ledc, pins=None, **kwargs):
    """A LedcServos on ``ledc``'s chip, its machine.PWM objects made as main.py makes them."""
    pins = pins or PINS[ledc.chip]
    pwm = ledc.pwm_class()
    pwms = [pwm(pin, freq=50, duty_u16=0) for pin in pins]
    return LedcServos(pwms, pins, chip=ledc.chip, mem32=ledc, **kwargs)


def test_the_servos_timer_is_found_from_the_gpio_matrix():
    """MicroPython puts five 50 Hz outputs on channels 0-4 of one timer: the classic ESP32's high-speed timer 0
    (VALUE at 0x3ff59144, 2**16 counts a frame), the ESP32-S3's low-speed timer 0 (0x600190a4, 2**13)."""
    for chip, value_addr, counts in (("ESP32", 0x3FF59144, 1 << 16), ("ESP32S3", 0x600190A4, 1 << 13)):
        ledc = FakeLedc(chip)
        servos = ledc_servos(ledc)
        assert servos.is_guarded and find_ledc_timer(ledc, chip, PINS[chip]) == (value_addr, counts), chip


def test_every_frame_latches_one_whole_step_wherever_the_overflow_falls():
    """The overflow is placed at every count from the guard's far edge to the last of a step's five duty_u16
    calls (each about 20 us): no frame mixes two steps, and no step is lost."""
    for chip, counts_per_call in (("ESP32", 64), ("ESP32S3", 8)):
        ledc = FakeLedc(chip, counts_per_call=counts_per_call)
        servos = ledc_servos(ledc)
        guard_counts = GUARD_US * (servos._value_mask + 1) // servos.period_us
        positions = list(range(0, guard_counts + 8 * counts_per_call, max(1, counts_per_call // 4)))
        steps = sweep_steps(Outputs(servos, 5, stagger_ms=0), ledc, positions)
        assert mixed_frames(ledc, PINS[chip], steps) == [], chip
        latched = frame_steps(ledc, PINS[chip], steps)
        assert latched == sorted(latched) and set(latched) == set(range(len(steps))), latched
        assert servos.split_steps == 0


def test_the_fake_ledc_catches_a_step_split_by_the_overflow():
    """The check above can fail: duty_u16 channel by channel (the HAL before this one) splits steps across two
    frames at some of the same overflow positions."""
    ledc = FakeLedc("ESP32", counts_per_call=64)
    pwm = ledc.pwm_class()
    servos = PwmServos([pwm(pin, freq=50, duty_u16=0) for pin in PINS["ESP32"]])
    steps = sweep_steps(Outputs(servos, 5, stagger_ms=0), ledc, list(range(0, 400, 16)))
    mixed = mixed_frames(ledc, PINS["ESP32"], steps)
    assert len(mixed) >= 10, mixed


def test_writes_slower_than_the_guard_are_counted_as_split_steps():
    """Interrupts stay on during the writes (see hanoifw/ledc.py): if they take longer than the guard, a step can
    still be split, and the HAL counts it."""
    ledc = FakeLedc("ESP32S3", counts_per_call=200)  # about 490 us a call: five of them outlast the guard
    servos = ledc_servos(ledc)
    steps = sweep_steps(Outputs(servos, 5, stagger_ms=0), ledc, list(range(0, 1400, 50)))
    split = len(mixed_frames(ledc, PINS["ESP32S3"], steps))
    assert 0 < split <= servos.split_steps, (split, servos.split_steps)  # it counts every step that may be split


def test_servos_off_the_ledc_or_on_two_timers_are_written_unguarded():
    """A pin routed to no LEDC channel, or servos on two timers (one at another rate), cannot be guarded: the
    duties go out as before, at once and in order."""
    ledc = FakeLedc("ESP32")
    pwm = ledc.pwm_class()
    pins = PINS["ESP32"]
    pwms = [pwm(pin, freq=50, duty_u16=0) for pin in pins]
    ledc.out_sel[pins[2]] = 256  # GPIO 27 taken back as a plain output
    servos = LedcServos(pwms, pins, chip="ESP32", mem32=ledc)
    assert not servos.is_guarded
    other = FakeLedc("ESP32S3")
    pwm = other.pwm_class()
    pwms = [pwm(pin, freq=50 if pin != 14 else 60, duty_u16=0) for pin in PINS["ESP32S3"]]
    assert find_ledc_timer(other, "ESP32S3", PINS["ESP32S3"]) is None
    assert find_ledc_timer(other, "ESP32C3", PINS["ESP32S3"]) is None
    outputs = Outputs(servos, 5, stagger_ms=0)
    outputs.start_enable(0)
    outputs.update(0, [1500] * 5, [500] * 5, [2500] * 5)
    assert [ledc.pending[0][channel] for channel in range(5)] == [duty_u16_for(1500, 20000)] * 5


def test_a_paused_timer_does_not_hold_a_step_up():
    ledc = FakeLedc("ESP32")
    servos = ledc_servos(ledc)
    ledc.timer_count[0][0] = (1 << 16) - 10  # inside the guard
    ledc.timer_paused[0][0] = True
    before = ledc.count
    servos.set_pulse_us(0, 1500)  # written at once
    servos.stage_pulse_us(1, 1600)
    servos.flush()
    assert ledc.count - before <= 3 and ledc.pending[0][1] is not None


class QuietLedc:
    """``machine.mem32`` of an ESP32-S3 whose five servo pins are on LEDC channels 0-4 of timer 0 (13 bits), its
    counter always 0, nothing recorded: a flush's own heap use, with nothing allocating around it."""

    def __init__(self):
        self.words = {0x60019000 + 0x14 * ch: 0 for ch in range(5)}
        for ch in range(5):
            self.words[0x60004554 + 4 * PINS["ESP32S3"][ch]] = 73 + ch
        self.words[0x600190A0] = 13
        self.words[0x600190A4] = 0

    def __getitem__(self, address):
        return self.words[address]


class SilentPWM:
    def __init__(self):
        self.duty = 0

    def freq(self, hz):
        pass

    def duty_u16(self, value):
        self.duty = value


def test_a_step_through_the_hal_allocates_nothing():
    """On MicroPython (gc.mem_alloc): 20 steps of every channel staged and flushed allocate no heap."""
    pwms = [SilentPWM() for _ in range(5)]
    servos = LedcServos(pwms, PINS["ESP32S3"], chip="ESP32S3", mem32=QuietLedc())
    assert servos.is_guarded
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
    assert pwms[4].duty == duty_u16_for(steps[19][4], 20000)
