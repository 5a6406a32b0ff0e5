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
