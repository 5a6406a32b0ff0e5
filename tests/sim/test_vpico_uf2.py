"""UF2 images are checked block by block before anything boots (hanoibot.sim.vpico.uf2)."""

from __future__ import annotations

import struct

import pytest
from hanoibot.errors import ConfigError
from hanoibot.sim.vpico.process import UF2_PATH
from hanoibot.sim.vpico.uf2 import (
    FLAG_FAMILY_ID,
    MAGIC_END,
    MAGIC_START0,
    MAGIC_START1,
    RP2040_FAMILY_ID,
    UF2Error,
    flash_image,
)


def block(index: int, total: int, address: int, payload: bytes, *, family: int = RP2040_FAMILY_ID) -> bytes:
    """One UF2 block as the format's specification lays it out (32-byte header, 476 data bytes, end magic)."""
    header = struct.pack("<8I", MAGIC_START0, MAGIC_START1, FLAG_FAMILY_ID, address, len(payload), index, total, family)
    return header + payload.ljust(476, b"\0") + struct.pack("<I", MAGIC_END)


def test_payloads_land_at_their_addresses() -> None:
    image = block(0, 2, 0x10000000, b"\x01\x02") + block(1, 2, 0x10000100, b"\x03")
    flash = flash_image(image, flash_bytes=4096)
    assert flash[:3] == b"\x01\x02\xff"
    assert flash[0x100:0x102] == b"\x03\xff"


def test_the_vendored_image_starts_with_boot2_and_its_vector_table() -> None:
    flash = flash_image(UF2_PATH.read_bytes())
    # boot2 is 256 bytes ending in a CRC; the vector table after it holds the initial SP in SRAM (0x2000_0000..).
    initial_sp, reset = struct.unpack_from("<II", flash, 0x100)
    assert 0x20000000 < initial_sp <= 0x20042000
    assert 0x10000100 < reset < 0x10200000 and reset & 1  # a Thumb address in flash


@pytest.mark.parametrize(
    ("image", "words"),
    [
        (b"", "not a UF2 image"),
        (b"x" * 100, "not a UF2 image"),
        (b"\0" * 512, "bad magic number"),
        (block(0, 1, 0x10000000, b"a")[:-4] + b"\0\0\0\0", "bad magic number"),
        (block(1, 1, 0x10000000, b"a"), "block 1 of 1: expected 0 of 1"),
        (block(0, 1, 0x10000000, b"a", family=0xADA52840), "chip family 0xada52840"),
        (block(0, 1, 0x20000000, b"a"), "outside the Pico's flash"),
    ],
    ids=["empty", "short", "zeros", "end-magic", "numbering", "family", "address"],
)
def test_a_bad_image_is_refused_naming_the_problem(image: bytes, words: str) -> None:
    with pytest.raises(UF2Error, match=words) as caught:
        flash_image(image, name="fw.uf2")
    assert str(caught.value).startswith("fw.uf2")
    assert isinstance(caught.value, ConfigError) and "\n" not in str(caught.value)


def test_a_flipped_bit_in_the_vendored_image_is_caught() -> None:
    data = bytearray(UF2_PATH.read_bytes())
    data[512 * 7 + 2] ^= 0x10  # the start magic of block 7
    with pytest.raises(UF2Error, match="block 7 has a bad magic number"):
        flash_image(bytes(data))
