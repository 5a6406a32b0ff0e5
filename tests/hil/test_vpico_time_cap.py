"""The virtual Pico's speed cap (``slow=K``) bounds the chip's rate, not only its total: a chip that fell behind
(its emulator stalled, as on a busy machine) does not run faster than the cap afterwards to catch up, which would
show the host a board several times quicker than the one the tests are written for. A boot is the exception: it
runs free until the board's first output (or the host's first input), since nothing outside the chip times it,
and the cap holds from then on."""

from __future__ import annotations

import os
import signal
import time

import pytest
from hanoibot.sim.vpico.process import VirtualPico

pytestmark = [pytest.mark.slow, pytest.mark.vpico, pytest.mark.vpico_realtime]

SLOW = 10  # a tenth of a real RP2040: below what the emulator reaches on a free core (about 0.4x)
STALL_S = 2.0
WATCH_S = 2.0
#: The boot test's cap: so low that a capped boot (MicroPython compiling the firmware: ~1.4 s of chip time) would
#: take minutes, while a free one takes seconds even on a machine running the emulator at a twentieth of real time.
BOOT_SLOW = 100
#: A board that only spins (every cycle busy; it prints nothing, so the host's first input ends its boot).
SPINNER = b"while True:\n    pass\n"


def emulated_s(pico: VirtualPico) -> float:
    return float(pico.stats()["t_us"]) / 1e6


def chip_s_in(pico: VirtualPico, wall_s: float) -> tuple[float, float]:
    """Chip time that passes while ``wall_s`` s of wall time do, measured from the harness's counters (both in s)."""
    start_s, wall_start_s = emulated_s(pico), time.monotonic()
    time.sleep(wall_s)
    return emulated_s(pico) - start_s, time.monotonic() - wall_start_s


def test_a_boot_runs_free_and_the_cap_holds_from_the_board_s_first_output() -> None:
    began_s = time.monotonic()
    with VirtualPico(slow=BOOT_SLOW) as pico:
        pico.wait_for_output(b"HELLO", timeout_s=BOOT_SLOW * 1.4 / 2)
        boot_wall_s = time.monotonic() - began_s
        assert pico.boot_to_hello_s is not None and pico.boot_to_hello_s > 0.5  # the firmware was compiled on it
        assert boot_wall_s < pico.boot_to_hello_s * BOOT_SLOW / 2, f"{boot_wall_s:.1f} s of wall time to boot"
        advanced_s, wall_s = chip_s_in(pico, WATCH_S)
    # The firmware idles between control steps: uncapped, it would skip far ahead of the cap.
    assert advanced_s <= wall_s / BOOT_SLOW + 0.02 + 0.01, f"{advanced_s:.3f} s of chip time in {wall_s:.3f} s"


def test_a_stalled_chip_does_not_catch_up_faster_than_its_cap() -> None:
    with VirtualPico(files={"main.py": SPINNER}, slow=SLOW) as pico:
        pico.wait_connected()
        pico.write(b"\n")  # the host's first input: the boot is over, the cap holds from here on
        deadline_s = time.monotonic() + 60
        while pico.in_flight:  # the harness has the byte (USB took it): the cap is on before the stall
            assert time.monotonic() < deadline_s, "the board's USB never took the byte"
            time.sleep(0.02)
        process = pico._process
        assert process is not None
        os.kill(process.pid, signal.SIGSTOP)  # the emulator stalls: the chip falls behind its cap
        time.sleep(STALL_S)
        os.kill(process.pid, signal.SIGCONT)
        advanced_s, wall_s = chip_s_in(pico, WATCH_S)
    # At most the cap's rate plus the 20 ms of lag it may make up (and a little for the stats round trips).
    assert advanced_s <= wall_s / SLOW + 0.02 + 0.01, f"{advanced_s:.3f} s of chip time in {wall_s:.3f} s of wall time"
