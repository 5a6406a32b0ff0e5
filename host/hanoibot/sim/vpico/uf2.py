"""UF2 images (Microsoft's USB flashing format, as the Pico's boot ROM reads them): checked and laid out in flash.

A UF2 file is a run of 512-byte blocks: two start magics, flags, target address, payload size, block number,
block count, family id (when flag 0x2000 is set), up to 476 payload bytes, an end magic. :func:`flash_image`
checks every block and copies the payloads into a flash image that starts at the RP2040's XIP base 0x10000000.
"""

from __future__ import annotations

import struct

from ...errors import ConfigError

BLOCK_BYTES = 512
MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_NOT_MAIN_FLASH = 0x00000001
FLAG_FAMILY_ID = 0x00002000
RP2040_FAMILY_ID = 0xE48BFF56
FLASH_BASE = 0x10000000
#: The Pico's flash: 2 MiB.
FLASH_BYTES = 2 * 1024 * 1024
_MAX_PAYLOAD_BYTES = 476


class UF2Error(ConfigError):
    """A file is not a UF2 image for the RP2040, or is damaged (names the file and the block)."""


def flash_image(data: bytes, *, name: str = "the UF2 file", flash_bytes: int = FLASH_BYTES) -> bytearray:
    """The ``flash_bytes`` flash contents (erased bytes are 0xFF) that the UF2 image ``data`` programs.

    UF2Error names ``name`` and the first bad block: wrong length, a bad magic number, a block number out of
    sequence, a payload that does not fit, another chip family, or an address outside the flash.
    """
    if not data or len(data) % BLOCK_BYTES:
        raise UF2Error(f"{name} is not a UF2 image: {len(data)} bytes, expected a multiple of {BLOCK_BYTES}")
    flash = bytearray(b"\xff" * flash_bytes)
    count = len(data) // BLOCK_BYTES
    for index in range(count):
        block = data[index * BLOCK_BYTES : (index + 1) * BLOCK_BYTES]
        magic0, magic1, flags, address, size, number, total, family = struct.unpack_from("<8I", block)
        (magic_end,) = struct.unpack_from("<I", block, BLOCK_BYTES - 4)
        where = f"{name} block {index}"
        if (magic0, magic1, magic_end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise UF2Error(f"{where} has a bad magic number: not a UF2 image, or a damaged one")
        if number != index or total != count:
            raise UF2Error(f"{where} says it is block {number} of {total}: expected {index} of {count} (damaged?)")
        if flags & FLAG_FAMILY_ID and family != RP2040_FAMILY_ID:
            raise UF2Error(f"{where} is for chip family 0x{family:08x}: expected the RP2040 (0x{RP2040_FAMILY_ID:08x})")
        if flags & FLAG_NOT_MAIN_FLASH:
            continue
        offset = address - FLASH_BASE
        if size > _MAX_PAYLOAD_BYTES or not 0 <= offset <= flash_bytes - size:
            raise UF2Error(f"{where} writes {size} bytes at 0x{address:08x}: outside the Pico's flash")
        flash[offset : offset + size] = block[32 : 32 + size]
    return flash
