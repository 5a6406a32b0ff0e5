"""Link benchmark, run by hand: ``.venv/bin/python benchmarks/link.py``.

Everything goes over a real pseudo-terminal to ``hanoibot emulate`` in its own process (the simulated board in
wall-clock time), through the same Session a run uses. Figures, all measured in this one run:

(a) round-trip latency of PING/PONG over the clean pty: p50, p90, p99 in ms (the baseline for (b));
(b) MOVE throughput in commands per second over the clean pty: MOVEs of 1 ms each, so the board's 10 ms control
    tick (up to a full queue of 8 MOVEs finished per tick) and the link, not the motion, set the pace;
(c) the same throughput with bit flips injected in both directions at 1e-3 and 1e-2 per byte, as a ratio of (b).
    Targets: at least 0.9 and 0.5.

Every run also checks that each MOVE was executed exactly once, in order (from the emulator's log).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from hanoibot.link.session import Session
from hanoibot.sim.spawn import EmulatorProcess

CHANNELS = 5
MOVES = 3000
PINGS = 500
SEED = "7"


def pose_us(k: int) -> list[int]:
    """A distinct target pose for MOVE k, in µs, within 1000..2000."""
    return [1000 + k % 1000, 1000 + (k // 1000) % 1000, 1500, 1500, 1500]


def throughput_per_s(*faults: str) -> tuple[float, int]:
    """MOVEs per second over a pty with the given emulator fault options, and the retransmissions it took."""
    with EmulatorProcess("--no-world", "--seed", SEED, *faults) as emulator:
        with Session(emulator.port_path) as session:
            session.configure([900] * CHANNELS, [2100] * CHANNELS, pose_us(0))
            began_s = time.perf_counter()
            for k in range(1, MOVES + 1):
                session.send_move(k, pose_us(k), 1)
            session.wait_done(MOVES, timeout_s=120.0)
            elapsed_s = time.perf_counter() - began_s
            retransmits = session.retransmits
        deadline_s = time.monotonic() + 2.0
        executed = emulator.executed_cmd_ids()
        while executed[-1:] != [MOVES] and time.monotonic() < deadline_s:
            time.sleep(0.05)
            executed = emulator.executed_cmd_ids()
        if executed != list(range(1, MOVES + 1)):
            raise SystemExit(f"MOVEs not executed exactly once in order with {faults or 'no faults'}")
    return MOVES / elapsed_s, retransmits


def ping_latencies_ms() -> list[float]:
    """PING round trips over the clean pty, in ms."""
    with EmulatorProcess("--no-world", "--seed", SEED) as emulator, Session(emulator.port_path) as session:
        return [session.ping() * 1000.0 for _ in range(PINGS)]


def main() -> None:
    """Run every measurement once and print the figures."""
    latencies_ms = sorted(ping_latencies_ms())
    cut = statistics.quantiles(latencies_ms, n=100)
    print(f"(a) PING round trip over the pty: p50 {cut[49]:.2f} ms, p90 {cut[89]:.2f} ms, p99 {cut[98]:.2f} ms")
    clean_per_s, _ = throughput_per_s()
    print(f"(b) clean: {clean_per_s:.0f} MOVE/s ({MOVES} MOVEs)")
    for flip in ("1e-3", "1e-2"):
        per_s, retransmits = throughput_per_s("--flip", flip)
        target = 0.9 if flip == "1e-3" else 0.5
        ratio = per_s / clean_per_s
        verdict = "ok" if ratio >= target else "BELOW TARGET"
        print(
            f"(c) flip {flip}: {per_s:.0f} MOVE/s = {ratio:.2f} x clean (target >= {target}, {verdict});"
            f" {retransmits} retransmissions"
        )


if __name__ == "__main__":
    main()
