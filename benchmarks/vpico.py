"""Virtual Pico benchmark, run by hand: ``.venv/bin/python benchmarks/vpico.py`` (a few minutes on a free core).

The emulated RP2040 counts the cycles it executes, so these are the firmware's own costs on a 125 MHz
Cortex-M0+ running the stock MicroPython v1.27.0 image, whatever the speed of the machine running the emulator.
The chip runs free here (``realtime=0``): idle time is skipped, busy time costs what it costs. The board runs the
shipped firmware under a small probe (its ``main.py`` imports the real one as ``fwmain`` and wraps the control
step and its garbage collections with ``time.ticks_us``). The host side is a minimal protocol speaker, not a
``Session``: it sends no heartbeats and paces itself by the board's own ACK and DONE frames, so the figures do not
depend on how fast the machine runs the emulator (a ``Session`` heartbeats at wall-clock pace, which on a busy
machine floods a chip running at a few percent of real time).

Figures:
(a) boot to HELLO: emulated time from reset to the firmware's first HELLO (MicroPython start-up, mounting the
    filesystem, compiling our .py files, building the controller);
(b) cycles per 10 ms control tick while idle (configured, every output on, nothing moving, the host quiet);
(c) cycles per control tick while moving (1000 MOVEs streamed by the host, 20 ms each, all five servos changing,
    the queue kept full);
(d) the worst control tick: the longest time between two control steps while moving, over (c) and over bursts
    of 40 PING frames written at once during a 2 s MOVE; and the longest single control step;
(e) heap free after importing the firmware, and after the 1000 MOVEs (both after a collection), and the least
    seen while moving (sampled every 50 steps);
(f) GC pause: the longest ``gc.collect()`` the firmware's loop made (when idle, and right after a step every
    2 KB of input).

Budget (DESIGN.md, issue 10): the control step uses at most 20 % of its period at 125 MHz = 250 000 cycles per
10 ms tick, and no tick overruns by more than one period (two control steps at most 20 ms apart). (b) and (c)
include everything the chip does in a tick: USB, frame parsing, replies, the loop.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from hanoibot.sim.vpico.flash import files_on_flash
from hanoibot.sim.vpico.process import VirtualPico
from hanoifw import protocol as p
from hanoifw.rxframe import FrameReader

CPU_HZ = 125_000_000
TICK_S = 0.010
BUDGET_CYCLES = int(0.2 * CPU_HZ * TICK_S)
BUDGET_GAP_MS = 2 * TICK_S * 1000
MOVES = 1000
BURSTS = 5
BURST_PINGS = 40
HEARTBEAT_S = 0.1  # the host's PING when it has sent nothing for this long, in the chip's time

# The board's main.py: the shipped main.py imported as fwmain, its serve() wrapped to time every control step and
# collection; after Ctrl-C one line "BENCH key=value ..." with the figures (emulated us, heap bytes).
PROBE = b"""
import gc
import time
gc.collect()
import fwmain
gc.collect()
S = {"free_import": gc.mem_free(), "free_min": 1 << 24, "gap_us": 0, "step_us": 0, "gc_us": 0, "gcs": 0, "steps": 0}
BREAKDOWN = False  # True: also time reading, frame handling, steps, writing and collections while moving
for part in ("busy", "read", "feed", "step", "write", "gc"):
    S["busy_" + part + "_us"] = 0
_serve = fwmain.serve


def timed(part, func):
    def wrapper(*args):
        t0 = time.ticks_us()
        out = func(*args)
        if S["moving"]:
            S["busy_" + part + "_us"] += time.ticks_diff(time.ticks_us(), t0)
        return out
    return wrapper

def serve(controller, port, clock, **kw):
    step_name = "step_view" if hasattr(controller, "step_view") else "step"  # what serve() calls
    real_step = getattr(controller, step_name)
    real_collect = kw["collect"]
    last = [0, False]

    def step(now_ms):
        t0 = time.ticks_us()
        busy = controller.motion.is_busy
        if busy and last[1]:
            gap = time.ticks_diff(t0, last[0])
            if gap > S["gap_us"]:
                S["gap_us"] = gap
            S["busy_busy_us"] += gap
        last[0] = t0
        last[1] = busy
        S["moving"] = busy
        out = real_step(now_ms)
        took = time.ticks_diff(time.ticks_us(), t0)
        if busy:
            S["busy_step_us"] += took
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
        if S["moving"]:
            S["busy_gc_us"] += took

    setattr(controller, step_name, step)
    kw["collect"] = collect
    if BREAKDOWN:
        port.read_available = timed("read", port.read_available)
        port.write = timed("write", port.write)
        controller.feed = timed("feed", controller.feed)
    return _serve(controller, port, clock, **kw)

S["moving"] = False
fwmain.serve = serve
fwmain.main()
gc.collect()
S["free_end"] = gc.mem_free()
del S["moving"]
print("BENCH " + " ".join("%s=%d" % item for item in S.items()))
"""


def probe_files(folder: Path | None = None, *, breakdown: bool = False) -> dict[str, bytes]:
    """The firmware in ``folder`` (default: this checkout's) with its main.py renamed fwmain.py, and the probe
    as main.py (timing the parts of the loop too if ``breakdown``)."""
    files = files_on_flash(folder, servo_driver="pwm")
    files["fwmain.py"] = files.pop("main.py")
    files["main.py"] = PROBE.replace(b"BREAKDOWN = False", b"BREAKDOWN = %r" % breakdown)
    return files


class Host:
    """The host end, reduced to what the benchmark needs: numbered reliable frames, the board's replies parsed,
    waits bounded in wall time but measured in the chip's (emulated) time."""

    def __init__(self, pico: VirtualPico) -> None:
        self.pico = pico
        self.reader = FrameReader()
        self.seq = 0
        self.done = 0
        self.acked = -1
        self.sent_s = 0.0  # emulated time of the last frame sent

    def send(self, kind: str, fields: list[object]) -> None:
        """Send a reliable frame with the next seq."""
        self.seq = (self.seq + 1) % p.SEQ_MOD
        self.write(p.encode(kind, self.seq, 0, fields))

    def write(self, data: bytes) -> None:
        """Send bytes (waiting while the board's USB FIFO is full)."""
        self.pico.write(data, timeout_s=600)
        self.sent_s = self.pico.time_s

    def take_replies(self) -> None:
        """Read what the board sent: the highest DONE and cumulative ack; an ERROR stops the benchmark."""
        for kind, _seq, ack, fields in self.reader.feed(self.pico.read_available()):
            self.acked = ack
            if kind == p.DONE:
                self.done = max(self.done, int(fields[0]))
            elif kind == p.ACK and len(fields) == 2:
                self.done = max(self.done, int(fields[1]))
            elif kind == p.ERROR:
                raise SystemExit(f"the board refused a frame: {fields}")

    def wait_until(self, condition: Callable[[], bool], what: str, timeout_s: float = 900.0) -> None:
        """Read replies (sending a heartbeat PING every HEARTBEAT_S of emulated silence) until ``condition()``;
        SystemExit naming ``what`` after ``timeout_s`` s of wall time."""
        deadline_s = time.monotonic() + timeout_s
        while not condition():
            if time.monotonic() > deadline_s:
                raise SystemExit(f"{what} did not happen within {timeout_s:g} s")
            self.pico.wait_readable(0.05)
            self.take_replies()
            if self.pico.time_s - self.sent_s >= HEARTBEAT_S:
                self.write(p.encode(p.PING, 0, 0, ("hb",)))

    def wait_emulated(self, seconds: float) -> None:
        """Let ``seconds`` of the chip's time pass (reading replies)."""
        start_s = self.pico.time_s
        self.wait_until(lambda: self.pico.time_s - start_s >= seconds, f"{seconds} s of emulated time")

    def start(self) -> None:
        """SYNC, then CONFIG (every channel 900..2100 us, start 1500 us, fastest speed), taken."""
        self.write(p.encode(p.SYNC, self.seq, 0, ("bench",)))
        fields: list[object] = [900, 2100, 1500, p.HARD_MAX_SPEED_US_S] * 5 + [0]
        self.send(p.CONFIG, fields)
        self.wait_until(lambda: self.acked == self.seq, "the CONFIG ack")
        self.wait_emulated(1.5)  # the outputs switch on one at a time, 200 ms apart


def cycles_per_tick(pico: VirtualPico, action: Callable[[], None]) -> tuple[float, float]:
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


def pose(k: int) -> list[object]:
    """The k-th MOVE target: every channel changes, within 1000..1999 us."""
    return [1000 + (k * 7 + c * 50) % 1000 for c in range(5)]


def run_host(host: Host) -> None:
    """The idle, moving and burst phases, printing (b) and (c); then RELEASE."""
    host.start()
    report("(b) idle", *cycles_per_tick(host.pico, lambda: host.wait_emulated(2.0)))

    def moving() -> None:
        for k in range(1, MOVES + 1):
            host.wait_until(lambda k=k: k - host.done <= 6, f"room in the queue for MOVE {k}")
            host.send(p.MOVE, [k, 20, *pose(k)])
        host.wait_until(lambda: host.done == MOVES, f"DONE {MOVES}")

    report("(c) moving", *cycles_per_tick(host.pico, moving))
    burst = b"".join(p.encode(p.PING, 0, 0, (f"burst{i}",)) for i in range(BURST_PINGS))
    for b in range(BURSTS):
        cmd_id = MOVES + 1 + b
        host.send(p.MOVE, [cmd_id, 2000, *pose(cmd_id)])
        host.wait_emulated(0.5)  # the MOVE is under way
        host.write(burst)
        host.wait_until(lambda cmd_id=cmd_id: host.done == cmd_id, f"DONE {cmd_id}")
    host.send(p.RELEASE, [])
    host.wait_until(lambda: host.acked == host.seq, "the RELEASE ack")


def probe_line(pico: VirtualPico, timeout_s: float = 60.0) -> str:
    """The probe's whole ``BENCH ...`` line, once its end has arrived (read at once: the hardware watchdog resets
    the chip 2 s of emulated time after main.py stopped feeding it, and a reboot clears the output)."""
    deadline_s = time.monotonic() + timeout_s
    while time.monotonic() < deadline_s:
        text = pico.output_since_boot().decode("ascii", "replace")
        start = text.find("BENCH ")
        if start >= 0 and "\n" in text[start:]:
            return text[start:].splitlines()[0]
        time.sleep(0.001)
    raise SystemExit(f"the probe's figures did not arrive within {timeout_s:g} s")


def figures(line: str) -> dict[str, int]:
    """The probe's ``BENCH key=value ...`` line as a dict."""
    return {key: int(value) for key, value in (item.split("=") for item in line.split()[1:])}


def print_breakdown(got: dict[str, int]) -> None:
    """(g): cycles per 10 ms tick while moving spent reading input, handling frames, stepping, writing replies and
    collecting garbage; the rest is the loop itself (clock reads, watchdog, Ctrl-C switch, waiting) and USB."""
    ticks = got["busy_busy_us"] / (TICK_S * 1e6)
    if ticks <= 0:
        print("(g) no time while moving was measured")
        return
    parts = {name: got[f"busy_{name}_us"] * CPU_HZ / 1e6 / ticks for name in ("read", "feed", "step", "write", "gc")}
    rest = CPU_HZ * TICK_S - sum(parts.values())
    shown = ", ".join(f"{name} {cycles:,.0f}" for name, cycles in parts.items())
    print(f"(g) per tick while moving, in cycles: {shown}; the rest of the period (loop, USB, idle) {rest:,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--firmware",
        type=Path,
        metavar="DIR",
        help="measure the firmware in DIR (a firmware_micropython folder, e.g. of an older checkout, to compare"
        " before and after in the same session); default: this checkout's",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also print (g): where the chip's time goes while moving (reading, frames, steps, writing, GC); the"
        " timing calls add to (b) and (c), so compare those between runs without it",
    )
    args = parser.parse_args()
    wall_start_s = time.monotonic()
    with VirtualPico(realtime=False, files=probe_files(args.firmware, breakdown=args.breakdown)) as pico:
        pico.wait_for_output(b"HELLO")
        print(f"(a) boot to HELLO: {(pico.boot_to_hello_s or 0) * 1000:.0f} ms emulated", flush=True)
        run_host(Host(pico))
        pico.write(b"\r\x03")  # every output is off: mpremote's Ctrl-C stops main.py; the probe prints its figures
        pico.wait_for_output(b"BENCH", timeout_s=600)
        text = probe_line(pico)
    got = figures(text)
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
    print(f"(f) GC pause: longest gc.collect() {got['gc_us'] / 1000:.2f} ms over {got['gcs']} collections by the loop")
    if args.breakdown:
        print_breakdown(got)
    print(f"wall time {time.monotonic() - wall_start_s:.0f} s")


if __name__ == "__main__":
    main()
