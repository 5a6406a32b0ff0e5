"""The virtual Pico's speed cap (``slow=K``) bounds the chip's rate, not only its total: a chip that fell behind
(its emulator stalled, as on a busy machine) does not run faster than the cap afterwards to catch up, which would
show the host a board several times quicker than the one the tests are written for."""

from __future__ import annotations

import os
import signal
import time

import pytest
from hanoibot.sim.vpico.process import VirtualPico

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

SLOW = 10  # a tenth of a real RP2040: below what the emulator reaches on a free core (about 0.4x)
STALL_S = 2.0
WATCH_S = 2.0


def emulated_s(pico: VirtualPico) -> float:
    return float(pico.stats()["t_us"]) / 1e6


def test_a_stalled_chip_does_not_catch_up_faster_than_its_cap() -> None:
    with VirtualPico(files={"main.py": b"while True:\n    pass\n"}, slow=SLOW) as pico:
        pico.wait_connected()
        process = pico._process
        assert process is not None
        os.kill(process.pid, signal.SIGSTOP)  # the emulator stalls: the chip falls behind its cap
        time.sleep(STALL_S)
        os.kill(process.pid, signal.SIGCONT)
        start_s, wall_start_s = emulated_s(pico), time.monotonic()
        time.sleep(WATCH_S)
        advanced_s = emulated_s(pico) - start_s
        wall_s = time.monotonic() - wall_start_s
    # At most the cap's rate plus the 20 ms of lag it may make up (and a little for the stats round trips).
    assert advanced_s <= wall_s / SLOW + 0.02 + 0.01, f"{advanced_s:.3f} s of chip time in {wall_s:.3f} s of wall time"
