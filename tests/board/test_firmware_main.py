"""main.py and board_config.py under CPython with a fake ``machine`` module, and a static check that every
firmware source stays within what MicroPython runs (its tests also run under MicroPython: see
tests/board/test_firmware_on_micropython.py, which compiles main.py there too)."""

import ast
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hanoifw.controller import Controller
from hanoifw.pca9685 import PCA9685
from hanoifw.servos import PwmServos

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_micropython"
FORBIDDEN_IMPORTS = {"dataclasses", "enum", "typing", "pathlib", "logging", "__future__", "abc"}
ESP32_STRAPPING_PINS = {0, 2, 5, 12, 15}


class FakePin:
    def __init__(self, number: int) -> None:
        self.number = number


class FakePWM:
    def __init__(self, pin: FakePin) -> None:
        self.pin = pin
        self.calls: list[tuple[str, int]] = []

    def freq(self, hz: int) -> None:
        self.calls.append(("freq", hz))

    def duty_u16(self, value: int) -> None:
        self.calls.append(("duty_u16", value))


class FakeI2C:
    def __init__(self, bus: int, *, scl: FakePin, sda: FakePin, freq: int) -> None:
        self.bus, self.scl, self.sda, self.freq = bus, scl.number, sda.number, freq
        self.writes: list[tuple[int, int, bytes]] = []

    def writeto_mem(self, addr: int, reg: int, buf: bytes) -> None:
        self.writes.append((addr, reg, bytes(buf)))


class FakeWDT:
    def __init__(self, *, timeout: int) -> None:
        self.timeout = timeout


def fake_machine() -> types.ModuleType:
    machine = types.ModuleType("machine")
    machine.Pin = FakePin  # type: ignore[attr-defined]
    machine.PWM = FakePWM  # type: ignore[attr-defined]
    machine.I2C = FakeI2C  # type: ignore[attr-defined]
    machine.WDT = FakeWDT  # type: ignore[attr-defined]
    machine.PWRON_RESET = 1  # type: ignore[attr-defined]
    machine.WDT_RESET = 3  # type: ignore[attr-defined]
    machine.reset_cause = lambda: 3  # type: ignore[attr-defined]
    return machine


@pytest.fixture
def board_main(monkeypatch: pytest.MonkeyPatch) -> Any:
    """main.py imported (not run) with a fake machine module and board_config importable."""
    monkeypatch.setitem(sys.modules, "machine", fake_machine())
    monkeypatch.syspath_prepend(str(FIRMWARE))
    monkeypatch.delitem(sys.modules, "board_config", raising=False)
    spec = importlib.util.spec_from_file_location("hanoibot_board_main", FIRMWARE / "main.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pwm_servos_on_the_configured_pins(board_main: Any) -> None:
    servos = board_main.make_servos("esp32")
    assert isinstance(servos, PwmServos)
    pwms = servos._pwms
    assert [pwm.pin.number for pwm in pwms] == list(board_main.cfg.PWM_PINS["esp32"])
    assert all(pwm.calls == [("freq", 50), ("duty_u16", 0)] for pwm in pwms)  # released until CONFIG


def test_pca9685_servos_map_channels_to_outputs(board_main: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(board_main.cfg, "SERVO_DRIVER", "pca9685")
    monkeypatch.setattr(board_main.cfg, "PCA9685_CHANNELS", (8, 9, 10, 11, 12))
    servos = board_main.make_servos("rp2")
    driver = servos._driver
    assert isinstance(driver, PCA9685)
    i2c = driver._i2c
    assert (i2c.bus, i2c.scl, i2c.sda) == board_main.cfg.I2C_BUS["rp2"]
    servos.set_pulse_us(2, 1500)
    assert i2c.writes[-1][:2] == (0x40, 0x06 + 4 * 10)  # channel 2 -> output 10 -> LED10_ON_L


def test_main_wires_controller_watchdog_and_usb(board_main: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_serve(controller: Controller, port: Any, clock: Any, *, make_wdt: Any, period_ms: int) -> str:
        seen.update(controller=controller, wdt=make_wdt(), period_ms=period_ms)
        return "interrupted"

    class Poll:
        def register(self, stream: object, mask: int) -> None:
            seen["registered"] = stream

    stdin = types.SimpleNamespace(buffer=object())
    monkeypatch.setattr(board_main, "serve", fake_serve)
    monkeypatch.setattr(board_main, "select", types.SimpleNamespace(poll=Poll, POLLIN=1))
    monkeypatch.setattr(
        board_main, "sys", types.SimpleNamespace(platform="rp2", stdin=stdin, stdout=types.SimpleNamespace(buffer=1))
    )
    board_main.main()
    controller = seen["controller"]
    assert isinstance(controller, Controller)
    assert len(controller.boot_id) == 8 and int(controller.boot_id, 16) >= 0
    assert controller.reset_cause == "wdt" and controller.watchdog_ms == 300 and controller.channels == 5
    assert seen["wdt"].timeout == board_main.cfg.HARDWARE_WDT_MS and seen["registered"] is stdin
    assert seen["period_ms"] <= 20  # >= 50 Hz


def test_board_config_is_consistent() -> None:
    sys.path.insert(0, str(FIRMWARE))
    try:
        import board_config as cfg
    finally:
        sys.path.pop(0)
    for platform, pins in cfg.PWM_PINS.items():
        assert len(pins) == cfg.CHANNELS == len(set(pins)), platform
    assert not set(cfg.PWM_PINS["esp32"]) & ESP32_STRAPPING_PINS
    assert len(cfg.PCA9685_CHANNELS) == cfg.CHANNELS and all(0 <= ch <= 15 for ch in cfg.PCA9685_CHANNELS)
    assert cfg.SERVO_DRIVER in ("pwm", "pca9685") and cfg.QUEUE_DEPTH >= 8 and cfg.HOST_WATCHDOG_MS == 300
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
