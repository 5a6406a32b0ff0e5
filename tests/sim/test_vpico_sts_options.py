"""``vpico://?servo=sts`` wires the virtual Pico for Feetech bus servos: the board_config.py on its flash selects the
firmware's bus driver with one bus id per channel of its arm, the harness gets the bus (its UART, ids, line and
faults), and the bus options are checked as ``sim://?servo=sts`` checks them, each bad one named in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.arm import preset_text
from hanoibot.errors import ConfigError
from hanoibot.sim.vpico.flash import files_on_flash
from hanoibot.sim.vpico.options import make_pico, parse_vpico_url


def test_sts_selects_the_bus_driver_with_an_id_per_channel() -> None:
    names = ("shoulder_pan", "shoulder_lift", "elbow_flex", "wrist_flex", "wrist_roll", "gripper")
    text = files_on_flash(servo_driver="sts", channel_names=names)["board_config.py"].decode()
    assert '\nSERVO_DRIVER = "bus"' in text and text.count("\nSERVO_DRIVER = ") == 1
    assert "\nBUS_IDS = (1, 2, 3, 4, 5, 6)" in text and "\nCHANNELS = 6\n" in text
    assert '"RP2040": (0, 0, 1)' in text, "the bus on UART0, GP0 TX and GP1 RX, as the harness models it"


def test_the_harness_gets_the_so101_bus_with_its_faults(tmp_path: Path) -> None:
    config = tmp_path / "so101.toml"
    config.write_text(preset_text("so101"), encoding="utf-8")
    options = parse_vpico_url(f"vpico://?servo=sts&config={config}&silent=2,4&corrupt=0.1&delay_us=800&seed=3")
    pico = make_pico(options)  # not started: nothing boots
    assert pico.bus is not None and pico.channels == 6
    assert pico.bus.harness_options() == {
        "uart": 0,
        "ids": [1, 2, 3, 4, 5, 6],
        "baud": 1_000_000,
        "echo": True,
        "silent": [2, 4],
        "corrupt": 0.1,
        "delay_us": 800.0,
    }
    assert pico.files["board_config.py"].count(b'\nSERVO_DRIVER = "bus"') == 1
    assert make_pico(parse_vpico_url("vpico://?servo=pca9685")).bus is None


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("vpico://?silent=2", "vpico:// option silent is for bus servos: add servo=sts"),
        ("vpico://?servo=sts&silent=x", "silent='x' is invalid"),
        ("vpico://?servo=sts&corrupt=2", "corrupt='2' is invalid"),
        ("vpico://?servo=sts&delay_us=-1", "delay_us='-1' is invalid"),
        ("vpico://?servo=bus", "servo='bus' is invalid: expected pwm, pca9685 or sts"),
    ],
)
def test_a_bad_bus_option_is_named(url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("?", r"\?")):
        parse_vpico_url(url)
