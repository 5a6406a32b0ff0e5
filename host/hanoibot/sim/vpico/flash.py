"""The virtual Pico's flash: the MicroPython image plus a littlefs filesystem holding hanoibot's firmware files.

The files go exactly where the README's ``mpremote`` steps put them: ``main.py`` and ``board_config.py`` at the
root, the ``hanoifw`` package in ``/hanoifw``. On the RPI_PICO build of MicroPython v1.27.0 the filesystem is
littlefs2 at flash offset 0xA0000: 352 blocks of 4096 bytes, programmed 256 bytes and read 32 bytes at a time.
``board_config.py`` is copied with its ``SERVO_DRIVER`` set to the driver the virtual board is wired with, and
for an arm of other than 5 channels with its channel settings rewired for that arm
(:func:`~hanoibot.board_wiring.wire_board_config`, as ``hanoibot init --arm`` writes them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from ...board_wiring import pwm_pins, wire_board_config
from ...errors import ConfigError
from ...firmware_source import FirmwareSource, shipped_firmware
from .uf2 import FLASH_BYTES, flash_image

FS_OFFSET = 0xA0000
FS_BLOCK_BYTES = 4096
FS_BLOCK_COUNT = 352
FS_PROG_BYTES = 256
FS_READ_BYTES = 32
#: The virtual board's servo kinds (vpico://?servo=...), and board_config.py's SERVO_DRIVER for each: "sts" is
#: Feetech bus servos, the firmware's "bus" driver.
SERVO_DRIVERS = ("pwm", "pca9685", "sts")
BOARD_DRIVERS = {"pwm": "pwm", "pca9685": "pca9685", "sts": "bus", "bus": "bus"}

#: Servo wiring of firmware_micropython/board_config.py on rp2: PWM pins, PCA9685 outputs, I2C bus and address
#: (the shipped 5 channels; an arm of N channels gets :func:`wiring`'s).
PWM_PINS = (2, 3, 4, 5, 6)
PCA9685_CHANNELS = (0, 1, 2, 3, 4)


def wiring(channels: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The rp2 PWM pins and PCA9685 outputs of ``channels`` servo channels, as
    :func:`~hanoibot.board_wiring.wire_board_config` writes them into the board's board_config.py."""
    return pwm_pins(channels, PWM_PINS, "RP2040"), tuple(range(channels))


def firmware_dir() -> Path:
    """The folder holding ``main.py``, ``board_config.py`` and ``hanoifw/`` of a source checkout
    (``firmware_micropython``); ConfigError when this hanoibot was installed without it (see
    :func:`~hanoibot.firmware_source.shipped_firmware` for the files wherever they are)."""
    source = shipped_firmware()
    folder = source.package_dir.parent
    if source.main_py.parent != folder:
        raise ConfigError(f"firmware files not found next to {source.package_dir}: this hanoibot is installed")
    return folder


def files_on_flash(
    folder: Path | None = None, *, servo_driver: str = "pwm", channel_names: Sequence[str] | None = None
) -> dict[str, bytes]:
    """The files the README copies to the board, by path on the board, with ``SERVO_DRIVER = servo_driver`` ("bus"
    for "sts": Feetech bus servos, one bus id per channel) (from the firmware ``folder``, default the shipped
    firmware, in a checkout or an installed wheel), and the board wired for the channels ``channel_names`` names
    (wire order; None: as shipped)."""
    if servo_driver not in BOARD_DRIVERS:
        raise ConfigError(f"servo driver {servo_driver!r} is unknown: expected one of {', '.join(SERVO_DRIVERS)}")
    servo_driver = BOARD_DRIVERS[servo_driver]
    source = FirmwareSource.from_folder(folder) if folder is not None else shipped_firmware()
    files = {f"hanoifw/{path.name}": path.read_bytes() for path in source.modules()}
    files["main.py"] = source.main_py.read_bytes()
    config = source.board_config_py.read_text(encoding="utf-8")
    config, found = re.subn(r"(?m)^SERVO_DRIVER = .*$", f'SERVO_DRIVER = "{servo_driver}"', config)
    if found != 1:
        raise ConfigError(f"{source.board_config_py} has no line 'SERVO_DRIVER = ...': expected exactly one")
    if channel_names is not None:
        config = wire_board_config(config, channel_names)
    files["board_config.py"] = config.encode()
    return files


def filesystem_image(files: Mapping[str, bytes]) -> bytes:
    """A littlefs2 image of ``files`` (path on the board -> content) in the geometry MicroPython mounts.

    ConfigError names the file that no longer fits (the filesystem holds 1408 KiB including its metadata).
    """
    from littlefs import LittleFS, LittleFSError

    fs = LittleFS(
        block_size=FS_BLOCK_BYTES, block_count=FS_BLOCK_COUNT, prog_size=FS_PROG_BYTES, read_size=FS_READ_BYTES
    )
    total = 0
    for path, content in files.items():
        folder = path.rpartition("/")[0]
        if folder:
            fs.makedirs(folder, exist_ok=True)
        total += len(content)
        try:
            with fs.open(path, "wb") as handle:
                handle.write(content)
        except LittleFSError as err:
            raise ConfigError(
                f"firmware file {path!r} does not fit the Pico's {FS_BLOCK_COUNT * FS_BLOCK_BYTES // 1024} KiB"
                f" filesystem ({total} bytes of files so far): {err}"
            ) from err
    return bytes(fs.context.buffer)


def pico_flash(uf2: bytes, files: Mapping[str, bytes], *, uf2_name: str = "the UF2 file") -> bytearray:
    """The whole 2 MiB flash: the UF2 image's contents with the filesystem image of ``files`` at FS_OFFSET."""
    flash = flash_image(uf2, name=uf2_name)
    end = FS_OFFSET + FS_BLOCK_COUNT * FS_BLOCK_BYTES
    if any(byte != 0xFF for byte in flash[FS_OFFSET:end]):
        raise ConfigError(f"{uf2_name} writes into the filesystem at 0x{FS_OFFSET:x}: expected a plain RPI_PICO build")
    flash[FS_OFFSET:end] = filesystem_image(files)
    assert len(flash) == FLASH_BYTES
    return flash
