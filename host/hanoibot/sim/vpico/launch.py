"""How the virtual Pico's harness is started: the flash image written, and the command line that runs
``harness.mjs`` in Node with the chip's options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...errors import PortError
from . import sensors
from .flash import pico_flash
from .stsbus import BOARD_DRIVER
from .tools import find_node, find_rp2040js

VENDOR_DIR = Path(__file__).with_name("vendor")
#: The RP2040's boot ROM (B1), vendored with its licence (vendor/PROVENANCE.md).
BOOTROM_PATH = VENDOR_DIR / "rp2040-bootrom-B1.bin"
HARNESS_PATH = Path(__file__).with_name("harness.mjs")


def harness_options(pico: Any) -> dict[str, Any]:
    """The harness's options for the virtual Pico ``pico`` (a :class:`~hanoibot.sim.vpico.process.VirtualPico`):
    its clock, its servo outputs (PWM pins, PCA9685 channels or the bus model), its sensors, its seed."""
    return {
        "realtime": pico.realtime,
        "time_scale": 1.0 / pico.slow,
        "fast_boot": pico.fast_boot,
        "servo_driver": BOARD_DRIVER if pico.bus is not None else pico.servo_driver,
        "bus": None if pico.bus is None else pico.bus.harness_options(),
        "pwm_pins": list(pico.pwm_pins),
        "pca9685_channels": list(pico.pca9685_channels),
        "pca9685_address": 0x40,
        "i2c_bus": 0,
        "gpio_inputs": {str(sensors.RAIL_SENSE_PIN): 1},
        "grip_model": sensors.grip_model(),
        "lockstep": True,
        "driven": pico.driven,
        "seed": pico.seed,
    }


def harness_command(pico: Any, folder: Path) -> list[str]:
    """The command that runs ``pico``'s chip: its flash image (its UF2 with its firmware files) written into
    ``folder``, Node, the harness, rp2040js, the boot ROM and :func:`harness_options`. PortError names a UF2 that
    cannot be read."""
    try:
        uf2 = pico.uf2_path.read_bytes()
    except OSError as err:
        raise PortError(f"UF2 file {str(pico.uf2_path)!r} cannot be read: {err.strerror}") from err
    flash_path = folder / "flash.bin"
    flash_path.write_bytes(pico_flash(uf2, pico.files, uf2_name=str(pico.uf2_path)))
    options = json.dumps(harness_options(pico))
    return [find_node(), str(HARNESS_PATH), find_rp2040js(), str(BOOTROM_PATH), str(flash_path), options]
