"""main.py and board_config.py under CPython with a fake ``machine`` module, and a static check that every
firmware source stays within what MicroPython runs (its tests also run under MicroPython: see
tests/board/test_firmware_on_micropython.py, which compiles main.py there too)."""

import ast
import errno
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any, ClassVar

import busfakes
import fwfakes
import ledcfakes
import pytest
from hanoifw.board import grip_timer_maker, start_grip_timer
from hanoifw.boardpins import BoardConfigError, check_port_version, check_wdt_ms, chip_name
from hanoifw.controller import Controller
from hanoifw.outputs import Outputs
from hanoifw.pca9685 import PCA9685
from hanoifw.protocol import MAX_BOARD_ERROR_LEN, clean_text
from hanoifw.servos import PwmServos
from ledcfakes import FakeLedc
from slicefakes import FakePwmBlock, mixed_frames, sweep_steps

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_micropython"
FORBIDDEN_IMPORTS = {"dataclasses", "enum", "typing", "pathlib", "logging", "__future__", "abc"}
ESP32_STRAPPING_PINS = {0, 2, 5, 12, 15}


class FakePin:
    """machine.Pin as both ports have it: an output made without ``value`` drives low at once (the GPIO output
    register is 0 after a reset). ``levels`` is every level an output drove, in order."""

    IN = 0
    OUT = 1

    def __init__(self, number: int, mode: int | None = None, *, value: int | None = None) -> None:
        self.number = number
        self.mode = mode
        self.level = 1 if mode != FakePin.OUT else (0 if value is None else value)
        self.levels = [self.level] if mode == FakePin.OUT else []

    def value(self, level: int | None = None) -> int:
        if level is not None:
            self.level = level
            self.levels.append(level)
        return self.level


class Esp32PWM:
    """machine.PWM as the esp32 port has it: without keywords it starts at once at 5 kHz and 50 % duty."""

    def __init__(self, pin: FakePin, *, freq: int = 5000, duty_u16: int = 32768) -> None:
        self.pin = pin
        self.output: list[tuple[int, int]] = [(freq, duty_u16)]  # (Hz, duty) the pin gave, in order
        self.calls: list[tuple[str, int]] = []

    def freq(self, hz: int) -> None:
        self.calls.append(("freq", hz))
        self.output.append((hz, self.output[-1][1]))

    def duty_u16(self, value: int) -> None:
        self.calls.append(("duty_u16", value))
        self.output.append((self.output[-1][0], value))


class Rp2V120PWM(Esp32PWM):
    """machine.PWM of the rp2 port in MicroPython 1.20: no keywords; a new PWM(pin) gives duty 0."""

    def __init__(self, pin: FakePin, **kwargs: int) -> None:
        if kwargs:
            raise TypeError("function doesn't take keyword arguments")
        super().__init__(pin, freq=1907, duty_u16=0)


class FakeI2C(fwfakes.FakeI2C):
    def __init__(self, bus: int, *, scl: FakePin, sda: FakePin, freq: int) -> None:
        super().__init__()
        self.bus, self.scl, self.sda, self.freq = bus, scl.number, sda.number, freq


class FakeADC:
    ATTN_11DB = 3

    def __init__(self, pin: FakePin, **kwargs: int) -> None:
        self.pin = pin
        self.kwargs = kwargs

    def read_u16(self) -> int:
        return 1234


class FakeWDT:
    def __init__(self, *, timeout: int) -> None:
        self.timeout = timeout


class FakeTimer:
    """machine.Timer as the ports have it: rp2 has soft timers only (id -1) and runs hard callbacks in an
    interrupt; esp32 has hardware timers 0..3 and refuses ``hard=True`` (ValueError). The ``hard`` keyword came
    with MicroPython 1.26 on rp2 and 1.27 on esp32 (ports/*/machine_timer.c): before, any ``hard=`` is a TypeError
    ("extra keyword arguments given"). ``PORT`` and ``VERSION`` say which; every timer made is kept in ``made``."""

    PERIODIC = 1
    PORT = "rp2"
    VERSION = (1, 27)
    made: ClassVar[list["FakeTimer"]] = []

    def __init__(self, timer_id: int, *, mode: int, period: int, callback: Any, **keywords: bool) -> None:
        if self.PORT == "rp2" and timer_id != -1:
            raise ValueError("Timer doesn't exist")
        if self.PORT == "esp32" and not 0 <= timer_id <= 3:
            raise ValueError("invalid Timer number")
        if keywords and (set(keywords) != {"hard"} or {"rp2": (1, 26), "esp32": (1, 27)}[self.PORT] > self.VERSION):
            raise TypeError("extra keyword arguments given")
        hard = keywords.get("hard", False)
        if self.PORT == "esp32" and hard:
            raise ValueError("hard Timers are not implemented")
        self.timer_id, self.mode, self.period, self.callback, self.hard = timer_id, mode, period, callback, hard
        self.running = True
        FakeTimer.made.append(self)

    def deinit(self) -> None:
        self.running = False


def fake_machine(pwm: type = Esp32PWM) -> types.ModuleType:
    machine = types.ModuleType("machine")
    machine.Pin = FakePin  # type: ignore[attr-defined]
    machine.PWM = pwm  # type: ignore[attr-defined]
    machine.I2C = FakeI2C  # type: ignore[attr-defined]
    machine.ADC = FakeADC  # type: ignore[attr-defined]
    machine.WDT = FakeWDT  # type: ignore[attr-defined]
    machine.Timer = FakeTimer  # type: ignore[attr-defined]
    machine.PWRON_RESET = 1  # type: ignore[attr-defined]
    machine.WDT_RESET = 3  # type: ignore[attr-defined]
    machine.reset_cause = lambda: 3  # type: ignore[attr-defined]
    block = FakePwmBlock("RP2040")  # the rp2 port's register access (machine.mem32) and interrupt switch
    machine.mem32 = BoardMem32(block, FakeLedc("ESP32"), FakeLedc("ESP32S3"))  # type: ignore[attr-defined]
    machine.disable_irq = block.disable_irq  # type: ignore[attr-defined]
    machine.enable_irq = block.enable_irq  # type: ignore[attr-defined]
    return machine


class BoardMem32:
    """``machine.mem32`` over the fake register blocks of the chips main.py is tested for, by address (the GPIO
    matrix of an ESP32 whose PWM objects are no LEDC fake's routes every pin to a plain output)."""

    def __init__(self, *blocks: Any) -> None:
        self.blocks = blocks

    def _block(self, address: int) -> Any:
        for block in self.blocks:
            if block.owns(address):
                return block
        raise ValueError(f"address 0x{address:08x}: no register modelled")

    def __getitem__(self, address: int) -> int:
        return int(self._block(address)[address])

    def __setitem__(self, address: int, value: int) -> None:
        self._block(address)[address] = value


class FakeMicropython(types.ModuleType):
    """The ``micropython`` module: ``kbd_intr`` settings are kept in ``settings``, in order."""

    def __init__(self) -> None:
        super().__init__("micropython")
        self.settings: list[int] = []

    def kbd_intr(self, char: int) -> None:
        self.settings.append(char)


@pytest.fixture
def board_main(monkeypatch: pytest.MonkeyPatch) -> Any:
    """main.py imported (not run) with fake machine and micropython modules and board_config importable."""
    monkeypatch.setitem(sys.modules, "machine", fake_machine())
    monkeypatch.setitem(sys.modules, "micropython", FakeMicropython())
    monkeypatch.syspath_prepend(str(FIRMWARE))
    monkeypatch.delitem(sys.modules, "board_config", raising=False)
    spec = importlib.util.spec_from_file_location("hanoibot_board_main", FIRMWARE / "main.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


UNAMES = {  # os.uname().machine of the stock MicroPython builds
    "ESP32": "Generic ESP32 module with ESP32",
    "ESP32S3": "Generic ESP32S3 module with ESP32S3",
    "ESP32C3": "ESP32C3 module with ESP32C3",
    "RP2040": "Raspberry Pi Pico with RP2040",
}


def test_the_chip_is_read_from_uname_not_sys_platform() -> None:
    assert {chip_name(text) for text in UNAMES.values()} == set(UNAMES)
    assert chip_name("ESP32-S3") == "ESP32S3"


@pytest.mark.parametrize(
    ("machine", "family"),
    [
        ("Generic ESP32 module with ESP32-D2WD", "ESP32"),
        ("Olimex ESP32-POE with ESP32-PICO-D4", "ESP32"),
        ("ESP32-S2 Saola with ESP32-S2FN4R2", "ESP32S2"),
        ("LOLIN C3 mini with ESP32-C3FH4", "ESP32C3"),
        ("Raspberry Pi Pico 2 with RP2350", "RP2350"),
    ],
)
def test_a_chip_is_mapped_to_its_family_whatever_its_package(machine: str, family: str) -> None:
    assert chip_name(machine) == family


def test_esp32_micropython_before_1_26_is_refused_naming_the_version() -> None:
    for version in ((1, 20, 0), (1, 25, 0)):
        with pytest.raises(BoardConfigError, match=r"MicroPython 1\.2[05]\.0 on esp32.*1\.26"):
            check_port_version("esp32", version)
    check_port_version("esp32", (1, 26, 0))
    check_port_version("esp32", (1, 27, 1))
    check_port_version("rp2", (1, 20, 0))  # rp2's PWM starts at duty 0 in every version


def test_an_esp32_1_26_preview_build_without_the_pwm_fix_is_refused_naming_its_build() -> None:
    # Issue 34 item 8: a 1.26.0 preview says (1, 26, 0, "preview"), and passed the floor with or without the fix
    # (MicroPython commit 150a5aa3a1, the 115th after the v1.26.0-preview tag); os.uname().version names the build.
    preview = (1, 26, 0, "preview")
    for build in ("v1.26.0-preview.114.gc310301f27 on 2025-02-19", "v1.26.0-preview on 2025-01-02", ""):
        with pytest.raises(BoardConfigError, match=r"1\.26\.0-preview on esp32 .*predates the PWM fix"):
            check_port_version("esp32", preview, build)
    check_port_version("esp32", preview, "v1.26.0-preview.115.g150a5aa3a1 on 2025-02-20")
    check_port_version("esp32", preview, "v1.26.0-preview.402.g0123abcd.dirty on 2025-06-01")
    check_port_version("esp32", (1, 26, 0, ""), "v1.26.0 on 2025-08-09")
    check_port_version("esp32", (1, 27, 0, "preview"), "v1.27.0-preview.3.gdeadbeef on 2025-08-20")
    check_port_version("rp2", preview, "v1.26.0-preview on 2025-01-02")


@pytest.mark.parametrize("pwm", [Esp32PWM, Rp2V120PWM])
def test_pwm_pins_never_pulse_before_config_on_either_port(board_main: Any, pwm: type) -> None:
    """esp32: a bare PWM(pin) gives 5 kHz at 50 % at once; rp2 (v1.20) refuses keywords. No output may show a
    non-zero duty or another rate than 50 Hz once running."""
    board_main.machine.PWM = pwm
    servos, held_us = board_main.make_servos("ESP32")
    assert isinstance(servos, PwmServos) and held_us is None
    pwms = servos._pwms
    assert [p.pin.number for p in pwms] == list(board_main.cfg.PWM_PINS["ESP32"])
    for p in pwms:
        assert all(duty == 0 for _, duty in p.output), p.output
        assert p.output[-1] == (50, 0)


def test_every_shipped_chip_gets_its_own_pins(board_main: Any) -> None:
    s3_pins = board_main.cfg.PWM_PINS["ESP32S3"]
    servos, _ = board_main.make_servos("ESP32S3")
    assert [p.pin.number for p in servos._pwms] == list(s3_pins)
    assert not set(s3_pins) & set(range(22, 26))  # the ESP32-S3 has no GPIO 22-25
    with pytest.raises(BoardConfigError, match="PWM_PINS has no entry for chip ESP32C3"):
        board_main.make_servos("ESP32C3")


def test_a_chip_without_pins_stops_main_with_one_line_before_any_output(
    board_main: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(board_main.os, "uname", lambda: types.SimpleNamespace(machine=UNAMES["ESP32C3"]))
    made: list[object] = []
    served: list[str] = []
    monkeypatch.setattr(board_main.machine, "PWM", lambda *a, **k: made.append(a))
    monkeypatch.setattr(board_main, "serve_board_error", served.append)
    board_main.main()
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "ESP32C3" in out[0] and "board_config.py" in out[0] and made == []
    assert served == [out[0].removeprefix("hanoibot: ")], "the host is then told the same, never left in silence"


def test_an_old_esp32_micropython_is_refused_by_main_before_any_output(
    board_main: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(board_main.os, "uname", lambda: types.SimpleNamespace(machine=UNAMES["ESP32"]))
    monkeypatch.setattr(board_main.sys, "platform", "esp32")
    monkeypatch.setattr(board_main.sys.implementation, "version", (1, 24, 1, ""))
    made: list[object] = []
    served: list[str] = []
    monkeypatch.setattr(board_main.machine, "PWM", lambda *a, **k: made.append(a))
    monkeypatch.setattr(board_main, "serve_board_error", served.append)
    board_main.main()
    assert made == [] and served and "MicroPython 1.24.1 on esp32" in served[0]


def board_error_of_main(board_main: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    """Run main.py's main() on an RP2040 as far as its BOARD_ERROR; returns the text the host is told, after
    checking it is the one line printed and fits one ERROR field whole."""
    monkeypatch.setattr(board_main.os, "uname", lambda: types.SimpleNamespace(machine=UNAMES["RP2040"]))
    served: list[str] = []
    monkeypatch.setattr(board_main, "serve_board_error", served.append)
    board_main.main()  # returns: no traceback into the REPL
    out = capsys.readouterr().out.strip().splitlines()
    assert len(served) == 1 and out == ["hanoibot: " + served[0]]
    assert clean_text(served[0], MAX_BOARD_ERROR_LEN) == served[0], "cut or changed on its way to the host"
    return served[0]


class NoDeviceI2C(FakeI2C):
    """An I2C bus with nothing on it: every transfer gets no ACK (MicroPython raises OSError ENODEV or EIO)."""

    def writeto_mem(self, addr: int, reg: int, buf: bytes) -> None:
        raise OSError(errno.ENODEV, "ENODEV")

    def readfrom_mem_into(self, addr: int, reg: int, buf: bytearray) -> None:
        raise OSError(errno.ENODEV, "ENODEV")


def test_a_missing_pca9685_is_a_board_error_naming_its_address_bus_and_what_to_check(
    board_main: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 34, defect 3: the OSError of the first I2C read went up as a traceback into the REPL; the host heard
    nothing. Now the host's HELLO comes with BOARD_ERROR naming the address, the bus and its pins."""
    monkeypatch.setattr(board_main.cfg, "SERVO_DRIVER", "pca9685")
    monkeypatch.setattr(board_main.machine, "I2C", NoDeviceI2C)
    text = board_error_of_main(board_main, monkeypatch, capsys)
    bus, scl, sda = board_main.cfg.I2C_BUS["RP2040"]
    assert text.startswith("board_config.py PCA9685_ADDRESS: no PCA9685 at 0x40"), text
    assert f"I2C bus {bus} (SCL GPIO {scl} SDA GPIO {sda})" in text and "ENODEV" in text
    assert text.endswith("check its VCC GND SDA SCL wires and A0-A5 jumpers")


def test_a_grip_pin_without_an_adc_is_a_board_error_naming_it_and_the_adc_pins(
    board_main: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 34, defect 3: machine.ADC's ValueError for a pin without an ADC went up as a traceback."""
    monkeypatch.setitem(board_main.cfg.GRIP_SENSOR_PIN, "RP2040", 21)

    def no_adc(pin: FakePin, **kwargs: int) -> None:
        raise ValueError("Pin doesn't have ADC capabilities")  # rp2's machine_adc.c

    monkeypatch.setattr(board_main.machine, "ADC", no_adc)
    made: list[object] = []
    monkeypatch.setattr(board_main.machine, "PWM", lambda *a, **k: made.append(a))
    text = board_error_of_main(board_main, monkeypatch, capsys)
    assert text.startswith("board_config.py GRIP_SENSOR_PIN: chip RP2040 has no ADC on GPIO 21"), text
    assert "ADC capabilities" in text and "GPIO 26-28" in text and made == [], "no output touched"


class RefusedPin(FakePin):
    """machine.Pin refusing GPIO 99 (a pin the chip has not: MicroPython raises ValueError)."""

    def __init__(self, number: int, *args: Any, **kwargs: Any) -> None:
        if number == 99:
            raise ValueError("invalid pin")
        super().__init__(number, *args, **kwargs)


@pytest.mark.parametrize(
    ("setting", "change", "expected"),
    [
        ("PWM_PINS", lambda cfg: cfg.PWM_PINS.__setitem__("RP2040", (2, 3, 4, 5, 99)), "gives no PWM on GPIO 99"),
        ("RAIL_SENSE_PIN", lambda cfg: cfg.RAIL_SENSE_PIN.__setitem__("RP2040", 99), "has no input GPIO 99"),
        ("I2C_BUS", lambda cfg: cfg.I2C_BUS.__setitem__("RP2040", (0, 99, 4)), "no I2C bus 0 on SCL GPIO 99"),
        ("PCA9685_OE_PIN", lambda cfg: setattr(cfg, "PCA9685_OE_PIN", 99), "has no output GPIO 99"),
    ],
)
def test_a_pin_the_chip_refuses_is_a_board_error_naming_the_setting_and_the_pin(
    board_main: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    setting: str,
    change: Any,
    expected: str,
) -> None:
    monkeypatch.setattr(board_main.machine, "Pin", RefusedPin)
    if setting in ("I2C_BUS", "PCA9685_OE_PIN"):
        monkeypatch.setattr(board_main.cfg, "SERVO_DRIVER", "pca9685")
    for table in ("PWM_PINS", "RAIL_SENSE_PIN", "I2C_BUS"):
        monkeypatch.setattr(board_main.cfg, table, dict(getattr(board_main.cfg, table)))
    change(board_main.cfg)
    text = board_error_of_main(board_main, monkeypatch, capsys)
    assert text.startswith(f"board_config.py {setting}: chip RP2040 ") or setting == "I2C_BUS", text
    assert expected in text and "invalid pin" in text, text


def test_any_other_error_building_the_hardware_is_a_board_error_too(
    board_main: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def out_of_memory(chip: str) -> None:
        raise MemoryError("memory allocation failed")

    monkeypatch.setattr(board_main, "make_servos", out_of_memory)
    text = board_error_of_main(board_main, monkeypatch, capsys)
    assert text == (
        "building the board's hardware failed (MemoryError: memory allocation failed): check board_config.py "
        "against the wiring"
    )


def test_an_esp32_preview_build_without_the_pwm_fix_is_refused_by_main_before_any_output(
    board_main: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = "v1.26.0-preview.114.gc310301f27 on 2025-02-19"
    monkeypatch.setattr(board_main.os, "uname", lambda: types.SimpleNamespace(machine=UNAMES["ESP32"], version=build))
    monkeypatch.setattr(board_main.sys, "platform", "esp32")
    monkeypatch.setattr(board_main.sys.implementation, "version", (1, 26, 0, "preview"))
    made: list[object] = []
    served: list[str] = []
    monkeypatch.setattr(board_main.machine, "PWM", lambda *a, **k: made.append(a))
    monkeypatch.setattr(board_main, "serve_board_error", served.append)
    board_main.main()
    assert made == [] and served and "v1.26.0-preview.114.gc310301f27" in served[0]


def test_the_hardware_watchdog_timeout_is_checked_against_the_port() -> None:
    check_wdt_ms("RP2040", 8388)
    check_wdt_ms("ESP32S3", 2000)
    check_wdt_ms("ESP32", None)
    # Issue 34 item 8: the esp32 port takes milliseconds as they are since v1.21 (ports/esp32/machine_wdt.c hands
    # them to esp_task_wdt_reconfigure); only v1.20 rounded to whole seconds, and the floor is 1.26.
    check_wdt_ms("ESP32", 1500)
    check_wdt_ms("ESP32S3", 250)
    for chip, timeout_ms in (("RP2040", 8389), ("RP2040", 0), ("ESP32", 0), ("ESP32S3", -5)):
        with pytest.raises(BoardConfigError, match=f"HARDWARE_WDT_MS = {timeout_ms}: chip {chip}"):
            check_wdt_ms(chip, timeout_ms)


@pytest.mark.parametrize(("chip", "timeout_ms"), [("RP2040", 10000), ("ESP32", 0)])
def test_a_watchdog_timeout_the_port_refuses_stops_main_with_one_line_before_any_output(
    board_main: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], chip: str, timeout_ms: int
) -> None:
    monkeypatch.setattr(board_main.os, "uname", lambda: types.SimpleNamespace(machine=UNAMES[chip]))
    monkeypatch.setattr(board_main.cfg, "HARDWARE_WDT_MS", timeout_ms)
    made: list[object] = []
    monkeypatch.setattr(board_main.machine, "PWM", lambda *a, **k: made.append(a))
    monkeypatch.setattr(board_main.machine, "ADC", lambda *a, **k: made.append(a))
    monkeypatch.setattr(board_main, "serve_board_error", lambda text: None)
    board_main.main()
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and f"HARDWARE_WDT_MS = {timeout_ms}: chip {chip}" in out[0] and made == []


def rp2_pwm_block(board_main: Any, monkeypatch: pytest.MonkeyPatch, chip: str) -> FakePwmBlock:
    """Give the fake machine module ``chip``'s PWM block (slicefakes.py), with machine.PWM on it as MicroPython
    v1.27 drives it: every register access takes 4 counts (1.2 us), the wrap may fall between any two."""
    block = FakePwmBlock(chip, counts_per_access=4)
    monkeypatch.setattr(board_main.machine, "PWM", block.pwm_class())
    monkeypatch.setattr(board_main.machine, "mem32", block)
    monkeypatch.setattr(board_main.machine, "disable_irq", block.disable_irq)
    monkeypatch.setattr(board_main.machine, "enable_irq", block.enable_irq)
    return block


def test_rp2_servo_outputs_take_each_control_step_in_one_pwm_frame(
    board_main: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33, cause B: with duty_u16 written channel by channel, a wrap between two of a step's writes gave
    some servos the step in one frame and the rest in the next. The outputs main.py builds on an RP2040 are driven
    through 300 steps, the slices' wrap placed before each register access of a step in turn: every frame the
    slices latch holds one step's pulses on every channel."""
    block = rp2_pwm_block(board_main, monkeypatch, "RP2040")
    servos, held_us = board_main.make_servos("RP2040")
    assert held_us is None
    steps = sweep_steps(Outputs(servos, 5, stagger_ms=0), block, list(range(300)))
    assert mixed_frames(block, board_main.cfg.PWM_PINS["RP2040"], steps) == []


@pytest.mark.parametrize("chip", ["ESP32", "ESP32S3"])
def test_esp32_servo_outputs_take_each_control_step_in_one_pwm_frame(
    board_main: Any, monkeypatch: pytest.MonkeyPatch, chip: str
) -> None:
    """Issue 33, cause B, on the esp32 port: duty_u16 takes effect at the LEDC timer's next overflow, so a step
    written across it was split as on an RP2. main.py's outputs on each ESP32 (the timer found from the GPIO
    matrix) are driven through steps with the overflow placed at every 16 counts from the guard's far edge to the
    last write: every frame holds one step on every channel."""
    ledc = FakeLedc(chip, counts_per_call=64 if chip == "ESP32" else 8)
    monkeypatch.setattr(board_main.machine, "PWM", ledc.pwm_class())
    monkeypatch.setattr(board_main.machine, "mem32", ledc)
    servos, held_us = board_main.make_servos(chip)
    step_counts = 16 if chip == "ESP32" else 2
    positions = list(range(0, 3600 if chip == "ESP32" else 460, step_counts))
    steps = ledcfakes.sweep_steps(Outputs(servos, 5, stagger_ms=0), ledc, positions)
    assert ledcfakes.mixed_frames(ledc, board_main.cfg.PWM_PINS[chip], steps) == []
    assert held_us is None and servos.is_guarded


def test_two_servos_on_one_rp2_pwm_output_are_a_board_config_error(
    board_main: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GPIO 2 and 18 are both output A of slice 1: main.py names them (and stops with BOARD_ERROR) instead of
    driving two servos with one pulse."""
    monkeypatch.setitem(board_main.cfg.PWM_PINS, "RP2040", (2, 3, 18, 5, 6))
    block = rp2_pwm_block(board_main, monkeypatch, "RP2040")
    with pytest.raises(BoardConfigError, match="PWM_PINS: GPIO 2 and GPIO 18 are one PWM output of chip RP2040"):
        board_main.make_servos("RP2040")
    assert block.cc == [0] * 8


def test_an_rp2350_board_never_touches_an_rp2040_pwm_address(board_main: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34, item 2: on the RP2350, 0x40050000 (the RP2040's PWM block) is PLL_SYS; a servo on slice 0 wrote
    0 into its feedback divider. main.py's outputs on an RP2350 (its PWM block at 0x400a8000; any other address
    raises here) are aligned, driven and released without an access outside it."""
    monkeypatch.setitem(board_main.cfg.PWM_PINS, "RP2350", (0, 1, 2, 3, 4))  # slices 0, 0, 1, 1, 2
    block = rp2_pwm_block(board_main, monkeypatch, "RP2350")
    block.recording = True
    servos, _ = board_main.make_servos("RP2350")
    steps = sweep_steps(Outputs(servos, 5, stagger_ms=0), block, [0, 5, 10, 100])
    for channel in range(5):
        servos.release(channel)
    assert mixed_frames(block, (0, 1, 2, 3, 4), steps) == []
    assert block.accesses and not [a for a, _ in block.accesses if 0x40050000 <= a < 0x40054000]
    assert all(block.cc[n] == 0 for n in range(3)) and block.csr[0] & 1


def test_pca9685_servos_map_channels_to_outputs(board_main: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(board_main.cfg, "SERVO_DRIVER", "pca9685")
    monkeypatch.setattr(board_main.cfg, "PCA9685_CHANNELS", (8, 9, 10, 11, 12))
    servos, held_us = board_main.make_servos("RP2040")
    driver = servos._driver
    assert isinstance(driver, PCA9685) and held_us == [0] * 5
    i2c = driver._i2c
    assert (i2c.bus, i2c.scl, i2c.sda) == board_main.cfg.I2C_BUS["RP2040"]
    servos.set_pulse_us(2, 1500)
    assert i2c.writes[-1][:2] == (0x40, 0x06 + 4 * 10)  # channel 2 -> output 10 -> LED10_ON_L


def test_a_wired_pca9685_oe_stays_high_until_every_output_is_off(
    board_main: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OE low enables whatever the chip holds: the pin must come up high, and go low only after start-up."""
    monkeypatch.setattr(board_main.cfg, "SERVO_DRIVER", "pca9685")
    monkeypatch.setattr(board_main.cfg, "PCA9685_OE_PIN", 7)
    made: list[FakePin] = []

    class RecordedPin(FakePin):
        def __init__(self, number: int, *args: Any, **kwargs: Any) -> None:
            super().__init__(number, *args, **kwargs)
            made.append(self)

    monkeypatch.setattr(board_main.machine, "Pin", RecordedPin)
    servos, held_us = board_main.make_servos("RP2040")
    oe = next(p for p in made if p.number == 7)
    assert oe.mode == FakePin.OUT and oe.levels == [1, 0] and held_us == [0] * 5
    assert all(servos._driver._i2c.pulse_counts(0x40, n) is None for n in range(16))


def test_sensors_come_from_the_chip_tables(board_main: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    grip = board_main.make_grip_sensor("ESP32")
    assert grip.pin.number == 34 and grip.kwargs == {"atten": FakeADC.ATTN_11DB}  # 0..3.3 V, not 0..1.1 V
    assert board_main.make_rail_sense("RP2040").number == 22
    monkeypatch.setattr(board_main.cfg, "GRIP_SENSOR_PIN", None)
    monkeypatch.setattr(board_main.cfg, "RAIL_SENSE_PIN", {"RP2040": None})
    assert board_main.make_grip_sensor("RP2040") is None and board_main.make_rail_sense("RP2040") is None


def test_main_wires_controller_sensors_watchdog_and_usb(board_main: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_serve(controller: Controller, port: Any, clock: Any, *, make_wdt: Any, period_ms: int, **kw: Any) -> str:
        seen.update(controller=controller, wdt=make_wdt(), period_ms=period_ms, **kw)
        seen["timer_running"] = [timer.running for timer in FakeTimer.made]
        return "interrupted"

    class Poll:
        def register(self, stream: object, mask: int) -> None:
            seen["registered"] = stream

    stdin = types.SimpleNamespace(buffer=object())
    monkeypatch.setattr(board_main, "serve", fake_serve)
    monkeypatch.setattr(board_main, "select", types.SimpleNamespace(poll=Poll, POLLIN=1))
    monkeypatch.setattr(board_main.os, "uname", lambda: types.SimpleNamespace(machine=UNAMES["RP2040"]))
    monkeypatch.setattr(
        board_main,
        "sys",
        types.SimpleNamespace(
            platform="rp2",
            implementation=types.SimpleNamespace(version=(1, 27, 0, "")),
            stdin=stdin,
            stdout=types.SimpleNamespace(buffer=1),
        ),
    )
    monkeypatch.setattr(FakeTimer, "made", [])
    monkeypatch.setattr(board_main, "time", types.SimpleNamespace(ticks_ms=lambda: 0))  # MicroPython's time
    board_main.main()
    controller = seen["controller"]
    # the grip current is sampled by a hard timer at a fixed rate, running while serve does, stopped after it
    [timer] = FakeTimer.made
    assert (timer.timer_id, timer.mode, timer.period, timer.hard) == (-1, FakeTimer.PERIODIC, 2, True)
    assert seen["timer_running"] == [True] and not timer.running and controller.grip_timed
    assert isinstance(controller, Controller)
    assert len(controller.boot_id) == 8 and int(controller.boot_id, 16) >= 0
    assert controller.reset_cause == "wdt" and controller.watchdog_ms == 300 and controller.channels == 5
    assert controller.grip_sensor.pin.number == 26 and controller.rail_sense.number == 22
    assert seen["wdt"].timeout == board_main.cfg.HARDWARE_WDT_MS and seen["registered"] is stdin
    assert seen["period_ms"] <= 20  # >= 50 Hz
    assert seen["kbd_intr"] is not None and seen["collect"] is not None
    # a stray 0x03 is data from the start: the keyboard interrupt is off before the hardware is built
    assert sys.modules["micropython"].settings == [-1]


def test_esp32_samples_the_grip_from_a_soft_hardware_timer(board_main: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # esp32 refuses hard=True: start_grip_timer asks for a hard one first, then takes a soft one (timer 0, whose
    # callback is scheduled and wakes the loop's poll wait).
    monkeypatch.setattr(FakeTimer, "PORT", "esp32")
    monkeypatch.setattr(FakeTimer, "made", [])
    controller = Controller(fwfakes.FakeServos(), boot_id="e5932000", grip_sensor=FakeADC(FakePin(34)))
    timer = start_grip_timer(controller, grip_timer_maker(FakeTimer, "esp32"), lambda: 0)
    assert (timer.timer_id, timer.period, timer.hard) == (0, 2, False) and controller.grip_timed


@pytest.mark.parametrize(("port", "version"), [("esp32", (1, 26)), ("rp2", (1, 25)), ("rp2", (1, 20))])
def test_a_port_without_the_hard_keyword_samples_the_grip_from_a_soft_timer(
    monkeypatch: pytest.MonkeyPatch, port: str, version: tuple[int, int]
) -> None:
    """esp32 MicroPython 1.26 (the firmware's floor) has no ``hard`` keyword: ``hard=False`` was a TypeError as well
    as ``hard=True``, so no timer was made and the loop sampled in its poll slices, which end at 10 ms FreeRTOS
    ticks on esp32: the grip meter never had a verdict (issue 34, defect 1)."""
    monkeypatch.setattr(FakeTimer, "PORT", port)
    monkeypatch.setattr(FakeTimer, "VERSION", version)
    monkeypatch.setattr(FakeTimer, "made", [])
    controller = Controller(fwfakes.FakeServos(), boot_id="e5932000", grip_sensor=FakeADC(FakePin(34)))
    timer = start_grip_timer(controller, grip_timer_maker(FakeTimer, port), lambda: 0)
    assert timer is not None and not timer.hard and timer.period == 2 and controller.grip_timed
    assert FakeTimer.made == [timer]


def test_a_failure_after_boot_switches_every_output_off(board_main: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a PCA9685 the pulses would outlive main.py: a crash must not leave them without a loop behind them."""
    monkeypatch.setattr(board_main.cfg, "SERVO_DRIVER", "pca9685")
    monkeypatch.setattr(board_main.os, "uname", lambda: types.SimpleNamespace(machine=UNAMES["RP2040"]))
    made: list[Any] = []
    real = board_main.make_servos

    def make_servos(chip: str) -> Any:
        servos, held_us = real(chip)
        servos.set_pulse_us(0, 1500)  # a pulse left over from before the crash
        made.append(servos)
        return servos, held_us

    def crash(*args: Any) -> None:
        raise MemoryError("out of memory")

    monkeypatch.setattr(board_main, "make_servos", make_servos)
    monkeypatch.setattr(board_main, "serve_host", crash)
    with pytest.raises(MemoryError):
        board_main.main()
    i2c = made[0]._driver._i2c
    assert all(i2c.pulse_counts(0x40, output) is None for output in range(5))


def test_board_config_is_consistent() -> None:
    sys.path.insert(0, str(FIRMWARE))
    try:
        import board_config as cfg
    finally:
        sys.path.pop(0)
    for chip, pins in cfg.PWM_PINS.items():
        assert len(pins) == cfg.CHANNELS == len(set(pins)), chip
        used = set(pins) | set(cfg.I2C_BUS[chip][1:]) | {cfg.GRIP_SENSOR_PIN[chip], cfg.RAIL_SENSE_PIN[chip]}
        assert len(used) == cfg.CHANNELS + 4, f"{chip}: two functions on one pin"
    assert not set(cfg.PWM_PINS["ESP32"]) & ESP32_STRAPPING_PINS
    assert 32 <= cfg.GRIP_SENSOR_PIN["ESP32"] <= 39  # ADC1
    assert 26 <= cfg.GRIP_SENSOR_PIN["RP2040"] <= 28 and 1 <= cfg.GRIP_SENSOR_PIN["ESP32S3"] <= 10  # ADC pins
    assert sorted(cfg.ENABLE_ORDER) == list(range(cfg.CHANNELS))
    check_wdt_ms("RP2040", cfg.HARDWARE_WDT_MS)
    check_wdt_ms("ESP32", cfg.HARDWARE_WDT_MS)
    assert len(cfg.PCA9685_CHANNELS) == cfg.CHANNELS and all(0 <= ch <= 15 for ch in cfg.PCA9685_CHANNELS)
    assert cfg.SERVO_DRIVER in ("pwm", "pca9685", "bus") and cfg.QUEUE_DEPTH >= 8 and cfg.HOST_WATCHDOG_MS == 300
    assert cfg.CONTROL_PERIOD_MS <= 20 and (cfg.HARDWARE_WDT_MS is None or cfg.HARDWARE_WDT_MS > 10 * 20)


@pytest.mark.parametrize("path", sorted(FIRMWARE.rglob("*.py")), ids=lambda path: path.name)
def test_firmware_source_uses_only_what_micropython_has(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names = {(node.module or "").split(".")[0]}
        else:
            names = set()
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        assert not names & FORBIDDEN_IMPORTS, f"{where} imports {names}"
        assert not isinstance(node, ast.JoinedStr), f"{where}: use % formatting, not f-strings"
        assert not isinstance(node, ast.Match), f"{where}: MicroPython has no match statement"
        assert not (isinstance(node, ast.Attribute) and node.attr == "format_map"), f"{where}: str.format_map"


class FakeBusUart(busfakes.FakeBus):
    """machine.UART with Feetech servos on it (busfakes.FakeBus), keeping the settings main.py opened it with."""

    holding: ClassVar[dict[int, int]] = {}  # bus id -> goal (steps) of servos still holding since before the reset

    def __init__(self, uart_id: int, **settings: Any) -> None:
        super().__init__((1, 2, 3, 4, 5))
        self.uart_id, self.settings = uart_id, settings
        for servo_id, goal in self.holding.items():
            self.servos[servo_id].torque, self.servos[servo_id].goal = 1, goal


class RefusingUart:
    def __init__(self, uart_id: int, **settings: Any) -> None:
        raise ValueError("bad TX pin")


class FakeTime:
    """The ``time`` module of MicroPython as main.py uses it (sleep_ms, sleep_us)."""

    def __init__(self) -> None:
        self.slept_ms = 0

    def sleep_ms(self, ms: int) -> None:
        self.slept_ms += ms

    def sleep_us(self, us: int) -> None:
        pass


def test_bus_servos_are_built_on_the_chips_uart_and_keep_what_they_hold(
    board_main: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hanoifw.busservos import BusGripLoad, BusServos

    monkeypatch.setattr(board_main.cfg, "SERVO_DRIVER", "bus")
    monkeypatch.setattr(board_main.machine, "UART", FakeBusUart, raising=False)
    monkeypatch.setattr(board_main, "time", FakeTime())
    monkeypatch.setattr(FakeBusUart, "holding", {2: 3000})  # the shoulder held its pose through the reset
    servos, held_us = board_main.make_servos("RP2040")
    uart_id, tx, rx = board_main.cfg.BUS_UART["RP2040"]
    assert isinstance(servos, BusServos) and servos._uart.uart_id == uart_id
    settings = servos._uart.settings
    assert (settings["tx"].number, settings["rx"].number, settings["baudrate"]) == (tx, rx, 1000000)
    assert settings["timeout"] == 0  # reads never wait: the driver asks any() first
    assert held_us == [0, servos.us_for(3000), 0, 0, 0] and servos.torque == [False, True, False, False, False]
    assert board_main.time.slept_ms <= 5 * servos.tries * 5  # bounded, whatever the servos do
    # the controller takes the held pose as on (no re-enable, no jump), and the gripper's load is the grip sensor
    captured: dict[str, Any] = {}
    monkeypatch.setattr(board_main, "serve_host", lambda *args: captured.update(args=args))
    monkeypatch.setattr(board_main.os, "uname", lambda: types.SimpleNamespace(machine=UNAMES["RP2040"]))
    board_main.main()
    servos, held_us, grip_sensor, _rail = captured["args"]
    assert held_us[1] == servos.us_for(3000) and isinstance(grip_sensor, BusGripLoad)


def test_a_bus_uart_the_port_refuses_is_a_board_error_naming_it(
    board_main: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(board_main.cfg, "SERVO_DRIVER", "bus")
    monkeypatch.setattr(board_main.machine, "UART", RefusingUart, raising=False)
    text = board_error_of_main(board_main, monkeypatch, capsys)
    assert text.startswith("board_config.py BUS_UART: chip RP2040 has no UART 0 on TX GPIO 0 and RX GPIO 1"), text
    assert "bad TX pin" in text


def test_bus_ids_that_do_not_fit_the_channels_are_a_board_error(
    board_main: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(board_main.cfg, "SERVO_DRIVER", "bus")
    monkeypatch.setattr(board_main.cfg, "BUS_IDS", (1, 2, 3, 4, 5, 6))
    monkeypatch.setattr(board_main.machine, "UART", FakeBusUart, raising=False)
    text = board_error_of_main(board_main, monkeypatch, capsys)
    assert text == "board_config.py BUS_IDS has 6 ids: expected one per channel (CHANNELS = 5)"
