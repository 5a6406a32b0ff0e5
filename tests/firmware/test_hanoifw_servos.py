"""PWM servo HAL tests with a recording fake PWM (also run under MicroPython)."""

from fwfakes import FakePWM
from hanoifw.servos import DUTY_U16_FULL, PwmServos, duty_u16_for


def test_outputs_start_released_at_50_hz():
    pwms = [FakePWM(), FakePWM()]
    PwmServos(pwms)
    assert [pwm.calls for pwm in pwms] == [[("freq", 50), ("duty_u16", 0)]] * 2


def test_duty_is_the_pulse_share_of_the_20_ms_frame():
    pwm = FakePWM()
    servos = PwmServos([FakePWM(), pwm])
    for pulse_us in (500, 1000, 1500, 1501, 2000, 2500):
        servos.set_pulse_us(1, pulse_us)
        duty = pwm.calls[-1][1]
        assert abs(duty - pulse_us / 20000 * 65535) <= 0.5, pulse_us
    assert duty_u16_for(1500, 20000) == 4915  # 1.5 ms of 20 ms = 7.5 % of 65535 = 4915.1
    assert duty_u16_for(0, 20000) == 0 and duty_u16_for(25000, 20000) == DUTY_U16_FULL


def test_release_stops_the_pulses_and_close_releases_all():
    pwms = [FakePWM(), FakePWM(), FakePWM()]
    with PwmServos(pwms, freq_hz=100) as servos:
        servos.set_pulse_us(2, 1500)
        assert pwms[2].calls[-1] == ("duty_u16", duty_u16_for(1500, 10000))
        servos.release(2)
        assert pwms[2].calls[-1] == ("duty_u16", 0)
        assert servos.channels == 3
    assert [pwm.calls[-1] for pwm in pwms] == [("duty_u16", 0)] * 3


def test_a_frame_rate_no_servo_takes_is_refused():
    for freq_hz in (10, 1000):
        try:
            PwmServos([FakePWM()], freq_hz=freq_hz)
        except ValueError as err:
            assert str(freq_hz) in str(err)
        else:
            raise AssertionError(f"accepted {freq_hz} Hz")


class Mem32:
    """``machine.mem32`` stand-in: a dict of 32-bit words, every write recorded as (address, value)."""

    def __init__(self):
        self.words = {}
        self.writes = []

    def __getitem__(self, address):
        return self.words.get(address, 0)

    def __setitem__(self, address, value):
        self.words[address] = value & 0xFFFFFFFF
        self.writes.append((address, value & 0xFFFFFFFF))


def test_rp2_slices_of_the_servo_pins_restart_together_with_one_enable_write():
    from hanoifw.servos import align_rp2_slices, rp2_slices

    pins = (2, 3, 4, 5, 6)  # slices 1, 1, 2, 2, 3
    assert rp2_slices(pins) == 0b1110
    mem = Mem32()
    mem[0x400500A0] = 0b1000_0110  # slices 1, 2 already running (each enabled on its own), 7 is not ours
    mem.writes.clear()
    align_rp2_slices(mem, pins)
    en_writes = [value for address, value in mem.writes if address == 0x400500A0]
    assert en_writes == [0b1000_0000, 0b1000_1110], "stopped, then started by one write"
    counters = [address for address, value in mem.writes if address != 0x400500A0]
    assert counters == [0x40050000 + 0x14 * n + 0x08 for n in (1, 2, 3)]  # zeroed while stopped
    assert mem.writes.index((0x400500A0, 0b1000_1110)) == len(mem.writes) - 1
