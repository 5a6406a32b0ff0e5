"""Shared by the virtual-Pico tests: URLs on chip time, waits in the chip's time, and the speed cap of the few tests
that must run in real time.

Chip time (``vpico://``, the default): the chip runs in lockstep with the host and the world, and its emulated time
is the host's clock, so a test meets the same board on every machine at any load; a slow machine makes it slower,
never different. :func:`vpico_url` always gives a seed, so a failing test replays exactly: the URL is printed with
the failure (``conftest.py``). Waits are counted in the chip's time (:func:`run_chip_until`).

Real time (``hanoibot emulate --pico`` behind a pty, for a host in another process: mpremote, a person's pace, the
console): the emulated RP2040 runs at about 0.4x real time on a free core and at 0.1-0.3x on a busy two-core
machine, while the host's link bounds are wall time. Those tests cap the chip at 1/:data:`CHIP_SLOW` of a real
RP2040 (``--slow``): chip time against host time is then the same on every machine that sustains the cap. Only a
machine that stays well below the cap (busy speed under :data:`MIN_SPEED`) skips them, and the skip names the speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

#: The real-time virtual-Pico tests run the chip at most 1/CHIP_SLOW as fast as a real RP2040.
CHIP_SLOW = 6
#: Below this busy speed (a fraction of a real RP2040) the machine is too far below the cap: those tests skip.
MIN_SPEED = 0.6 / CHIP_SLOW
#: How long the speed probe's spinning board is timed, in s of wall time.
_PROBE_S = 1.5
#: The seed of every chip-time URL that does not name its own.
DEFAULT_SEED = 1

_measured: list[float] = []  # the machine's speed, measured once per test process
#: Every chip-time URL made for the test that runs now (conftest.py prints them with a failure, to replay it).
URLS_MADE: list[str] = []


def vpico_url(**options: object) -> str:
    """A ``vpico://`` URL on chip time with ``options`` (name=value) and a seed (:data:`DEFAULT_SEED` unless
    given): the same run on every machine, replayed exactly by the same URL."""
    options.setdefault("seed", DEFAULT_SEED)
    url = "vpico://?" + "&".join(f"{name}={value}" for name, value in options.items())
    URLS_MADE.append(url)
    return url


def run_chip_until(pico: Any, predicate: Callable[[], bool], chip_s: float, what: str, step_s: float = 0.02) -> None:
    """Run the driven virtual Pico ``pico`` in steps of ``step_s`` s of its time until ``predicate()``; fail naming
    ``what`` once ``chip_s`` s of chip time passed without it."""
    end_s = pico.time_s + chip_s
    while not predicate():
        assert pico.time_s < end_s, f"{what} did not happen within {chip_s:g} s of chip time"
        pico.run_until(pico.time_s + step_s)


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
    """Skip the calling real-time test when this machine runs the virtual Pico below ``min_speed`` of a real RP2040
    (default :data:`MIN_SPEED`, for the cap of 1/CHIP_SLOW; a test with a cap of its own gives its own); the skip
    names the measured speed."""
    speed = machine_speed()
    if speed < min_speed:
        pytest.skip(
            f"the emulated chip runs at {speed:.3f}x real time here, below {min_speed:.3f}x: too far under the"
            " test's speed cap (the machine is too busy)"
        )
