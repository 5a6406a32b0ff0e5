"""Port models (hanoibot.sim.ports): each port's output resolution, machine.Timer, reset behaviour, and the
sim:// options that pick one."""

from __future__ import annotations

import pytest
from hanoibot.errors import ConfigError
from hanoibot.motion import drivers
from hanoibot.motion.drivers import output_us
from hanoibot.sim.factory import make_wire
from hanoibot.sim.ports import PORTS, ledc_bits, outputs_survive_reset, port_model, rp2_slice
from hanoifw.board import grip_timer_maker

PULSES_US = range(500, 2501)


def test_each_driver_counts_as_micropython_sets_it_up_at_50_hz() -> None:
    # rp2: machine.PWM.freq(50) from 125 MHz takes DIV 611/16 and TOP 65465 (ports/rp2/machine_pwm.c); esp32: the
    # LEDC resolution MicroPython picks (ports/esp32/machine_pwm.c with ESP-IDF's ledc_find_suitable_duty_resolution):
    # 16 bits on the ESP32 (20-bit timer, capped at 16), 13 on the ESP32-S3 (14-bit timer, one bit kept back);
    # PCA9685: PRE_SCALE 121 at 25 MHz.
    assert rp2_slice() == (65465, 611)
    assert (ledc_bits("ESP32"), ledc_bits("ESP32S3")) == (16, 13)
    assert pytest.approx(4.88, abs=0.001) == drivers.DRIVERS["pca9685"].step_us
    # the grids the margins count (hanoibot.motion.drivers) are these, derived
    assert (drivers.RP2_TOP, drivers.ESP32_LEDC_BITS, drivers.ESP32S3_LEDC_BITS) == (65465, 16, 13)


@pytest.mark.parametrize(
    ("driver", "step_us", "truncates"),
    [
        ("pca9685", 122 / 25, False),
        ("rp2", 20000 / 65466, False),
        ("esp32", 20000 / 65536, True),
        ("esp32s3", 20000 / 8192, True),
        ("sts", 2000 / 4096, False),
    ],
)
def test_each_driver_gives_its_pulses_on_its_own_grid(driver: str, step_us: float, truncates: bool) -> None:
    """A pulse comes out as a whole number of the driver's counts: rounded to the nearest (PCA9685, rp2: within
    half a count) or cut short (LEDC keeps duty_u16's top bits: up to one count short). Where duty_u16 comes first,
    its own rounding (half of 20000 / 65535 us) and scale (65535 for 65536) add up to 0.21 us."""
    errors = [output_us(driver, pulse_us) - pulse_us for pulse_us in PULSES_US]
    duty_us = 0.0 if driver in ("pca9685", "sts") else 0.21  # a bus servo's goal is no duty cycle
    for pulse_us in (1000, 1500, 2000):
        assert output_us(driver, pulse_us) / step_us == pytest.approx(round(output_us(driver, pulse_us) / step_us))
    if truncates:
        assert max(errors) <= duty_us and min(errors) >= -step_us - duty_us, (min(errors), max(errors))
    else:
        assert max(abs(error) for error in errors) <= step_us / 2 + duty_us + 0.01, (min(errors), max(errors))
    assert max(abs(error) for error in errors) >= step_us / 2 - 0.05, "the grid is as coarse as said"
    assert output_us(driver, 0) == 0.0


def test_only_a_pca9685_without_oe_keeps_pulsing_through_an_mcu_reset() -> None:
    assert outputs_survive_reset("pca9685")
    assert not outputs_survive_reset("pca9685", oe_wired=True)
    assert not outputs_survive_reset("pwm")


class Recorded:
    """The timers a port model's machine.Timer started."""

    def __init__(self) -> None:
        self.started: list[object] = []

    def __call__(self, timer: object) -> None:
        self.started.append(timer)


@pytest.mark.parametrize(
    ("port", "version", "kind"),
    [
        ("rp2", "1.27", "hard"),
        ("rp2", "1.26", "hard"),
        ("rp2", "1.25", "soft"),  # no hard keyword before 1.26
        ("esp32", "1.27", "soft"),  # hard=True: ValueError
        ("esp32", "1.26", "soft"),  # no hard keyword before 1.27: hard=False was a TypeError too
        ("esp32s3", "1.28", "soft"),
    ],
)
def test_each_port_gives_the_firmware_the_timer_it_has(port: str, version: str, kind: str) -> None:
    model = port_model(port, version)
    started = Recorded()
    make = grip_timer_maker(model.timer_class(started), model.platform)
    callback = lambda timer: None  # noqa: E731
    if kind == "hard":
        timer = make(2, callback, True)
    else:
        with pytest.raises((TypeError, ValueError)):
            make(2, callback, True)
        timer = make(2, callback, False)
    assert started.started == [timer] and timer.hard == (kind == "hard") and timer.period_ms == 2


def test_a_timer_a_port_has_not_is_refused_as_the_port_refuses_it() -> None:
    rp2 = PORTS["rp2"].timer_class(Recorded())
    with pytest.raises(ValueError, match="Timer doesn't exist"):
        rp2(0, mode=rp2.PERIODIC, period=2, callback=print)
    esp32 = PORTS["esp32"].timer_class(Recorded())
    with pytest.raises(ValueError, match="invalid Timer number"):
        esp32(-1, mode=esp32.PERIODIC, period=2, callback=print)
    with pytest.raises(TypeError, match="extra keyword"):
        port_model("esp32", "1.26").timer_class(Recorded())(0, mode=1, period=2, callback=print, hard=False)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"port": "esp8266"}, "port='esp8266' is unknown: expected one of rp2, esp32, esp32s3"),
        ({"port": "esp32", "micropython": "latest"}, "micropython='latest' is invalid"),
        ({"micropython": "1.26"}, "micropython needs a port model"),
        ({"port": "rp2", "oe": "1"}, "oe='1' is invalid: expected 0, or 1 with outputs=pca9685"),
        ({"port": "esp32", "slow": "4"}, "port and slow cannot go together"),
    ],
)
def test_bad_port_options_are_refused_naming_the_fix(options: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(")", r"\)")):
        make_wire({"world": "0", **options})


def test_the_options_pick_the_port_its_outputs_and_their_reset_behaviour() -> None:
    board = make_wire({"world": "0", "port": "esp32s3", "micropython": "1.26"}).board
    assert board.port is not None and board.port.micropython == (1, 26, 0) and board.port.chip == "ESP32S3"
    assert board.servo_driver == "esp32s3" and not board.outputs_survive_reset
    board = make_wire({"world": "0", "port": "esp32", "outputs": "pca9685"}).board
    assert board.servo_driver == "pca9685" and board.outputs_survive_reset
    board = make_wire({"world": "0", "port": "rp2", "outputs": "pca9685", "oe": "1"}).board
    assert board.servo_driver == "pca9685" and not board.outputs_survive_reset
    assert make_wire({"world": "0"}).board.port is None, "no port option: the board as it always was"
    assert "ESP32 on MicroPython 1.27.0 (UART through a USB-UART bridge" in PORTS["esp32"].describe()
