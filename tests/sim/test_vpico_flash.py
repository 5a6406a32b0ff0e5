"""The virtual Pico's flash: firmware files in a littlefs image where MicroPython mounts it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hanoibot.errors import ConfigError
from hanoibot.sim.vpico.flash import (
    FS_BLOCK_BYTES,
    FS_BLOCK_COUNT,
    FS_OFFSET,
    files_on_flash,
    filesystem_image,
    pico_flash,
)
from hanoibot.sim.vpico.process import UF2_PATH
from littlefs import LittleFS, UserContext


def mount(image: bytes) -> LittleFS:
    """The image mounted by littlefs itself (the oracle: MicroPython's VfsLfs2 is the same littlefs 2)."""
    context = UserContext(len(image))
    context.buffer[:] = image
    return LittleFS(context, block_size=FS_BLOCK_BYTES, block_count=FS_BLOCK_COUNT)


def test_files_are_where_the_readme_copies_them() -> None:
    files = files_on_flash()
    assert {"main.py", "board_config.py", "hanoifw/controller.py", "hanoifw/protocol.py"} <= set(files)
    fs = mount(filesystem_image(files))
    assert sorted(fs.listdir("/")) == ["board_config.py", "hanoifw", "main.py"]
    with fs.open("hanoifw/controller.py", "rb") as handle:
        assert handle.read() == files["hanoifw/controller.py"]


@pytest.mark.parametrize("driver", ["pwm", "pca9685"])
def test_board_config_names_the_servo_driver(driver: str) -> None:
    text = files_on_flash(servo_driver=driver)["board_config.py"].decode()
    assert f'\nSERVO_DRIVER = "{driver}"' in text
    assert text.count("\nSERVO_DRIVER = ") == 1


def test_an_unknown_servo_driver_is_refused() -> None:
    with pytest.raises(ConfigError, match="servo driver 'servo2040' is unknown"):
        files_on_flash(servo_driver="servo2040")


def test_files_too_big_for_the_filesystem_are_refused_naming_the_file() -> None:
    files = files_on_flash()
    files["hanoifw/huge.py"] = os.urandom(FS_BLOCK_COUNT * FS_BLOCK_BYTES)
    with pytest.raises(ConfigError, match=r"firmware file 'hanoifw/huge.py' does not fit the Pico's 1408 KiB"):
        filesystem_image(files)


def test_the_filesystem_sits_after_the_image_in_flash() -> None:
    files = files_on_flash()
    flash = pico_flash(UF2_PATH.read_bytes(), files)
    assert len(flash) == 2 * 1024 * 1024
    fs = mount(bytes(flash[FS_OFFSET:]))
    with fs.open("main.py", "rb") as handle:
        assert handle.read() == files["main.py"]


def test_a_six_channel_arms_virtual_pico_is_wired_for_six_channels(tmp_path: Path) -> None:
    # The virtual Pico takes its channel count from its world's robot config: the board_config.py on its flash and
    # the outputs the harness reads back (rp2 PWM pins, PCA9685 outputs) have one per channel, none shared.
    from hanoibot.arm import preset_text
    from hanoibot.sim.factory import world_from_options
    from hanoibot.sim.vpico.process import VirtualPico

    path = tmp_path / "bracket6.toml"
    path.write_text(preset_text("bracket6"), encoding="utf-8")
    pico = VirtualPico(world=world_from_options({"config": str(path), "board": "AAA"}), driven=True)
    settings: dict[str, object] = {}
    exec(pico.files["board_config.py"].decode(), settings)
    assert pico.channels == settings["CHANNELS"] == 6
    assert pico.pwm_pins == settings["PWM_PINS"]["RP2040"]  # type: ignore[index]
    assert pico.pca9685_channels == settings["PCA9685_CHANNELS"]
    assert len({((pin >> 1) & 7, pin & 1) for pin in pico.pwm_pins}) == 6  # one rp2 PWM output each
    assert len(pico.pulses_us) == 6
    shipped = VirtualPico(world=world_from_options({"board": "AAA"}), driven=True)
    assert shipped.channels == 5 and shipped.files["board_config.py"] == files_on_flash()["board_config.py"]
