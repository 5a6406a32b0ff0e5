"""The virtual Pico's flash: firmware files in a littlefs image where MicroPython mounts it."""

from __future__ import annotations

import os

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
