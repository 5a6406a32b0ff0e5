"""Shared by the virtual-Pico tests: the chip's speed cap, and the skip for a machine that cannot even reach it.

The emulated RP2040 runs at about 0.4x real time on a free core and at 0.1-0.3x on a busy two-core machine (CI).
Host timing (the link's 1 s silence bound, its heartbeats and resend timeouts) is wall time, so on free-running
chips a test would meet a different board on every machine. The timing-sensitive tests therefore cap the chip at
1/:data:`CHIP_SLOW` of a real RP2040 (``vpico://?slow=K``, ``hanoibot emulate --pico --slow K``): chip time
against host time is then the same on every machine that sustains the cap, and the host meets a board that slow
through its own link policy (measured round trips, back-off), with the bounds a user's command has. Only a machine
that stays well below the cap (busy speed under :data:`MIN_SPEED`) skips them, and the skip names the speed.
``make test`` runs these tests alone, after the parallel run.
"""

from __future__ import annotations

import time

import pytest

#: The timing-sensitive virtual-Pico tests run the chip at most 1/CHIP_SLOW as fast as a real RP2040.
CHIP_SLOW = 6
#: Below this busy speed (a fraction of a real RP2040) the machine is too far below the cap: those tests skip.
MIN_SPEED = 0.6 / CHIP_SLOW
#: How long the speed probe's spinning board is timed, in s of wall time.
_PROBE_S = 1.5

_measured: list[float] = []  # the machine's speed, measured once per test process


def vpico_url(**options: object) -> str:
    """A ``vpico://`` URL with the chip capped at 1/CHIP_SLOW real speed and ``options`` (name=value) added."""
    query = "&".join([f"slow={CHIP_SLOW}", *(f"{name}={value}" for name, value in options.items())])
    return f"vpico://?{query}"


def machine_speed() -> float:
    """The speed an uncapped virtual Pico reaches on this machine now, as a fraction of a real RP2040: a board
    whose main.py only spins (every cycle counts), timed for a while after its USB port is up. Measured once per
    test process."""
    if not _measured:
        from hanoibot.sim.vpico.process import VirtualPico

        with VirtualPico(files={"main.py": b"while True:\n    pass\n"}) as pico:
            pico.wait_connected()
            before = pico.stats()
            time.sleep(_PROBE_S)
            after = pico.stats()
        wall_s = max((after["wall_ms"] - before["wall_ms"]) / 1e3, 1e-9)
        _measured.append((after["cycles"] - before["cycles"]) / 125e6 / wall_s)
    return _measured[0]


def require_machine_sustains_the_cap(min_speed: float = MIN_SPEED) -> None:
    """Skip the calling test when this machine runs the virtual Pico below ``min_speed`` of a real RP2040 (default
    :data:`MIN_SPEED`, for the cap of 1/CHIP_SLOW; a test with a cap of its own gives its own); the skip names
    the measured speed."""
    speed = machine_speed()
    if speed < min_speed:
        pytest.skip(
            f"the emulated chip runs at {speed:.3f}x real time here, below {min_speed:.3f}x: too far under the"
            " test's speed cap (the machine is too busy)"
        )
