"""Shared by the virtual-Pico tests: skip the timing-sensitive ones when the machine is too busy to emulate.

The emulated RP2040 runs at about 0.4x real time on a free core. Host timing (the link's 1 s silence bound,
its heartbeats, the firmware's tick budget) is real time, so on a machine so loaded that the chip runs at a
few percent of real time the firmware's ticks overrun and a run is no longer what a board would do. The
measured speed decides, and the skip message says it. ``make test`` runs these tests alone, after the parallel
run, so the chip has a core to itself; on a two-core machine whose other core runs the host, that is still only
0.2-0.3x, so the check skips (with the measured speed) rather than fails there too.
"""

from __future__ import annotations

import pytest

#: Below this emulated-to-wall time ratio the timing-sensitive virtual-Pico tests are skipped.
MIN_SPEED = 0.25


def emulator_speed(pico) -> float:
    """CPU cycles executed per wall second since the virtual Pico started, as a fraction of the real chip's
    125 MHz (idle time, which the emulator skips, does not count: a busy chip measures the machine)."""
    stats = pico.stats()
    return (stats["cycles"] / 125e6) / max(stats["wall_ms"] / 1e3, 1e-9)


def require_near_real_time(pico, min_speed: float = MIN_SPEED) -> None:
    """Skip the calling test when the virtual Pico runs below ``min_speed`` of real time."""
    speed = emulator_speed(pico)
    if speed < min_speed:
        pytest.skip(f"the emulated chip runs at {speed:.2f}x real time (< {min_speed}x): machine too busy")


def require_machine_near_real_time(min_speed: float = MIN_SPEED) -> None:
    """Measure on a virtual Pico whose main.py only spins (busy: every cycle counts) for a couple of seconds and
    skip like :func:`require_near_real_time`; for tests whose own board must not be disturbed by the measurement."""
    import time

    from hanoibot.sim.vpico.process import VirtualPico

    with VirtualPico(files={"main.py": b"while True:\n    pass\n"}) as pico:
        pico.wait_connected()
        time.sleep(1.0)
        require_near_real_time(pico, min_speed)
