"""Virtual Pico benchmark, run by hand: ``.venv/bin/python benchmarks/vpico.py``.

The emulated RP2040 counts the cycles it executes, so these are the firmware's own costs on a 125 MHz
Cortex-M0+ running the stock MicroPython v1.27.0 image, whatever the speed of the machine running the emulator.
The chip runs free here (``realtime=0``): idle time is skipped, busy time costs what it costs. Figures:

(a) boot to HELLO: emulated time from reset to the firmware's first HELLO (MicroPython start-up, mounting the
    filesystem, compiling our .py files, building the controller);
(b) cycles per 10 ms control tick while idle (configured, nothing moving, the host's heartbeats answered);
(c) cycles per control tick while moving (MOVEs streamed by the host, 20 ms each, all five servos changing).

Budget (DESIGN.md, issue 10): the control step uses at most 20 % of its period at 125 MHz = 250 000 cycles per
10 ms tick. (b) and (c) include everything the chip does in a tick: USB, frame parsing, replies, the loop.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from hanoibot.link.core import LinkCore
from hanoibot.link.session import Session

CPU_HZ = 125_000_000
TICK_S = 0.010
BUDGET_CYCLES = int(0.2 * CPU_HZ * TICK_S)
MOVES = 100
URL = "vpico://?world=0&realtime=0"


def cycles_per_tick(pico, action) -> tuple[float, float]:
    """Cycles per control tick over ``action()`` (emulated ticks), and the emulated seconds it covered."""
    before = pico.stats()
    action()
    after = pico.stats()
    emulated_s = (after["t_us"] - before["t_us"]) / 1e6
    return (after["cycles"] - before["cycles"]) / (emulated_s / TICK_S), emulated_s


def report(name: str, cycles: float, covered_s: float) -> None:
    """Print one cycles-per-tick figure against the budget."""
    share = cycles / (CPU_HZ * TICK_S)
    verdict = "within" if cycles <= BUDGET_CYCLES else "OVER"
    print(
        f"{name}: {cycles:,.0f} cycles per tick = {share:.1%} of the period ({verdict} the 20 % budget,"
        f" {BUDGET_CYCLES:,} cycles), over {covered_s:.2f} s emulated",
        flush=True,
    )


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    wall_start_s = time.monotonic()
    with Session(LinkCore(URL, silence_s=30.0, handshake_s=120.0)) as session:
        pico = session.port.pico  # type: ignore[union-attr]
        boot_s = pico.boot_to_hello_s
        session.configure((900,) * 5, (2100,) * 5, (1500,) * 5)

        def idle() -> None:
            start_s = pico.time_s
            while pico.time_s - start_s < 2.0:
                session.poll()
                time.sleep(0.01)

        def moving() -> None:
            for k in range(1, MOVES + 1):
                pose = [1000 + (k * 7 + c * 50) % 1000 for c in range(5)]
                session.send_move(k, pose, 20)
            session.wait_done(MOVES, timeout_s=3600)

        print(f"(a) boot to HELLO: {boot_s * 1000:.0f} ms emulated", flush=True)
        report("(b) idle", *cycles_per_tick(pico, idle))
        report("(c) moving", *cycles_per_tick(pico, moving))
    print(f"wall time {time.monotonic() - wall_start_s:.0f} s")


if __name__ == "__main__":
    main()
