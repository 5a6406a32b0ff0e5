"""Virtual Pico benchmark, run by hand: ``.venv/bin/python benchmarks/vpico.py`` (a few minutes on a free core).

The emulated RP2040 counts the cycles it executes, so these are the firmware's own costs on a 125 MHz
Cortex-M0+ running the stock MicroPython v1.27.0 image, whatever the speed of the machine running the emulator.
The chip runs free here (``realtime=0``): idle time is skipped, busy time costs what it costs. The board runs the
shipped firmware under a small probe (its ``main.py`` imports the real one as ``fwmain`` and wraps the control
step and the garbage collection with ``time.ticks_us``); the host talks to it over a pty like ``hanoibot`` would.

Figures:
(a) boot to HELLO: emulated time from reset to the firmware's first HELLO (MicroPython start-up, mounting the
    filesystem, compiling our .py files, building the controller);
(b) cycles per 10 ms control tick while idle (configured, every output on, nothing moving, the host unplugged:
    the firmware's own idle loop);
(c) cycles per control tick while moving (1000 MOVEs streamed by the host, 20 ms each, all five servos changing;
    this includes the host's heartbeats, which come at wall-clock pace: on a busy machine, where the chip runs at
    a few percent of real time, they come so densely in the chip's time that it is never idle; use a free core);
(d) the worst control tick: the longest time between two control steps while moving, over (c) and over bursts
    of 40 PING frames written at once during a 2 s MOVE; and the longest single control step;
(e) heap free after importing the firmware, and after the 1000 MOVEs (both after a collection), and the least
    seen while moving (sampled every 50 steps);
(f) GC pause: the longest ``gc.collect()`` the firmware's idle collection took.

Budget (DESIGN.md, issue 10): the control step uses at most 20 % of its period at 125 MHz = 250 000 cycles per
10 ms tick, and no tick overruns by more than one period (two control steps at most 20 ms apart). (b) and (c)
include everything the chip does in a tick: USB, frame parsing, replies, the loop.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from hanoibot.link.core import LinkCore
from hanoibot.link.session import Session
from hanoibot.sim.vpico.bridge import PicoPty
from hanoibot.sim.vpico.flash import firmware_files
from hanoibot.sim.vpico.process import VirtualPico
from hanoifw import protocol

CPU_HZ = 125_000_000
TICK_S = 0.010
BUDGET_CYCLES = int(0.2 * CPU_HZ * TICK_S)
BUDGET_GAP_MS = 2 * TICK_S * 1000
MOVES = 1000
BURSTS = 5
BURST_PINGS = 40

# The board's main.py: the shipped main.py imported as fwmain, its serve() wrapped to time every control step and
# idle collection; after Ctrl-C one line "BENCH key=value ..." with the figures (emulated us, heap bytes).
PROBE = b"""
import gc
import time
gc.collect()
import fwmain
gc.collect()
S = {"free_import": gc.mem_free(), "free_min": 1 << 24, "gap_us": 0, "step_us": 0, "gc_us": 0, "gcs": 0, "steps": 0}
_serve = fwmain.serve

def serve(controller, port, clock, **kw):
    real_step = controller.step
    real_collect = kw["collect"]
    last = [0, False]

    def step(now_ms):
        t0 = time.ticks_us()
        busy = controller.motion.is_busy
        if busy and last[1]:
            gap = time.ticks_diff(t0, last[0])
            if gap > S["gap_us"]:
                S["gap_us"] = gap
        last[0] = t0
        last[1] = busy
        out = real_step(now_ms)
        took = time.ticks_diff(time.ticks_us(), t0)
        if took > S["step_us"]:
            S["step_us"] = took
        S["steps"] += 1
        if busy and S["steps"] % 50 == 0:
            free = gc.mem_free()
            if free < S["free_min"]:
                S["free_min"] = free
        return out

    def collect():
        t0 = time.ticks_us()
        real_collect()
        took = time.ticks_diff(time.ticks_us(), t0)
        S["gcs"] += 1
        if took > S["gc_us"]:
            S["gc_us"] = took

    controller.step = step
    kw["collect"] = collect
    return _serve(controller, port, clock, **kw)

fwmain.serve = serve
fwmain.main()
gc.collect()
S["free_end"] = gc.mem_free()
print("BENCH " + " ".join("%s=%d" % item for item in S.items()))
"""


def probe_files() -> dict[str, bytes]:
    """The shipped firmware with its main.py renamed fwmain.py, and the probe as main.py."""
    files = firmware_files(servo_driver="pwm")
    files["fwmain.py"] = files.pop("main.py")
    files["main.py"] = PROBE
    return files


def cycles_per_tick(pico: VirtualPico, action) -> tuple[float, float]:
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


def pose(k: int) -> list[int]:
    """The k-th MOVE target: every channel changes, within 1000..1999 us."""
    return [1000 + (k * 7 + c * 50) % 1000 for c in range(5)]


def run_session(session: Session, pico: VirtualPico) -> None:
    """Configure, then the idle (host unplugged), moving and burst phases, printing (b) and (c)."""
    session.configure((900,) * 5, (2100,) * 5, (1500,) * 5)

    def idle() -> None:
        session.close()  # no host traffic: the board holds its pose and runs its idle loop
        start_s = pico.time_s
        deadline_s = time.monotonic() + 600
        while pico.time_s - start_s < 2.0 and time.monotonic() < deadline_s:
            time.sleep(0.05)
        session.open()

    def moving() -> None:
        for k in range(1, MOVES + 1):
            session.send_move(k, pose(k), 20)
        session.wait_done(MOVES, timeout_s=3600)

    report("(b) idle", *cycles_per_tick(pico, idle))
    report("(c) moving", *cycles_per_tick(pico, moving))
    burst = b"".join(protocol.encode(protocol.PING, 0, 0, (f"burst{i}",)) for i in range(BURST_PINGS))
    for b in range(BURSTS):
        cmd_id = MOVES + 1 + b
        session.send_move(cmd_id, pose(cmd_id), 2000)
        start_s = pico.time_s
        while pico.time_s - start_s < 0.5:  # the MOVE is under way
            session.poll()
            time.sleep(0.01)
        session.port.write(burst)  # type: ignore[union-attr]
        session.wait_done(cmd_id, timeout_s=600)
    session.release()


def figures(line: str) -> dict[str, int]:
    """The probe's ``BENCH key=value ...`` line as a dict."""
    return {key: int(value) for key, value in (item.split("=") for item in line.split()[1:])}


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    wall_start_s = time.monotonic()
    with VirtualPico(realtime=False, files=probe_files()) as pico:
        pico.wait_for_output(b"HELLO")
        print(f"(a) boot to HELLO: {(pico.boot_to_hello_s or 0) * 1000:.0f} ms emulated", flush=True)
        bridge = PicoPty(pico)
        serving = threading.Thread(target=bridge.serve, name="vpico-pty", daemon=True)
        serving.start()
        try:
            with Session(LinkCore(bridge.device_path, silence_s=30.0, handshake_s=120.0)) as session:
                run_session(session, pico)
            pico.write(b"\x03")  # every output is off: Ctrl-C stops main.py and the probe prints its figures
            pico.wait_for_output(b"BENCH", timeout_s=120)
            text = pico.output_since_boot().decode("ascii", "replace")  # now: the watchdog resets it 2 s later
        finally:
            bridge.stop()
            serving.join(timeout=10)
    got = figures(next(line for line in text.splitlines() if line.startswith("BENCH ")))
    gap_ms = got["gap_us"] / 1000
    verdict = "within" if gap_ms <= BUDGET_GAP_MS else "OVER"
    print(
        f"(d) worst tick while moving (streaming and {BURSTS} bursts of {BURST_PINGS} PINGs): control steps at most"
        f" {gap_ms:.1f} ms apart ({verdict} the {BUDGET_GAP_MS:.0f} ms budget); longest step"
        f" {got['step_us'] / 1000:.2f} ms = {got['step_us'] / 1e4:.1%} of the period",
        flush=True,
    )
    print(
        f"(e) heap free: {got['free_import']:,} B after import, {got['free_end']:,} B after {MOVES + BURSTS} MOVEs"
        f" (both after a collection; {got['free_import'] - got['free_end']:+,} B kept), least while moving"
        f" {got['free_min']:,} B",
        flush=True,
    )
    print(f"(f) GC pause: longest gc.collect() {got['gc_us'] / 1000:.2f} ms over {got['gcs']} idle collections")
    print(f"wall time {time.monotonic() - wall_start_s:.0f} s")


if __name__ == "__main__":
    main()
