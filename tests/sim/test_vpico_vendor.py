"""The vendored virtual-Pico binaries are exactly the files whose provenance PROVENANCE.md records."""

from __future__ import annotations

import hashlib
import struct

import pytest
from hanoibot.sim.vpico.launch import BOOTROM_PATH
from hanoibot.sim.vpico.process import UF2_PATH

# From /work/shared/vpico/README.md (the builder's record), also in vendor/PROVENANCE.md.
EXPECTED = {
    UF2_PATH: ("df523cdaf29e6db0a2999cd486b34022789a1bc789746678a33d78532bf18b71", 678912),
    BOOTROM_PATH: ("90b31e108faedfa6bbcfcc33ba05dac61e645108cfbbdc385f8dafc71fde44ae", 16384),
}


@pytest.mark.parametrize("path", list(EXPECTED), ids=lambda p: p.name)
def test_vendored_binary_is_the_recorded_one(path) -> None:
    data = path.read_bytes()
    digest, size = EXPECTED[path]
    assert len(data) == size
    assert hashlib.sha256(data).hexdigest() == digest


def test_provenance_and_licences_ship_beside_them() -> None:
    vendor = UF2_PATH.parent
    provenance = (vendor / "PROVENANCE.md").read_text(encoding="utf-8")
    for digest, _size in EXPECTED.values():
        assert digest in provenance
    assert "MIT License" in (vendor / "LICENSE-micropython.txt").read_text(encoding="utf-8")
    assert "Redistribution and use" in (vendor / "LICENSE-pico-bootrom.txt").read_text(encoding="utf-8")


def test_boot_rom_has_the_flash_functions_the_harness_patches() -> None:
    # RP2040 datasheet 2.8.3: a 16-bit pointer to the function table at 0x14; entries are (code, address) pairs.
    rom = BOOTROM_PATH.read_bytes()
    (table,) = struct.unpack_from("<H", rom, 0x14)
    codes = []
    while True:
        code, _address = struct.unpack_from("<HH", rom, table)
        if code == 0:
            break
        codes.append(code.to_bytes(2, "little").decode())
        table += 4
    assert {"RE", "RP"} <= set(codes)
