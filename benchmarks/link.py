"""Link benchmark, run by hand: ``.venv/bin/python benchmarks/link.py`` (about a minute; ``--help`` for options).

Everything goes over a real pseudo-terminal to ``hanoibot emulate`` in its own process (the simulated board in
wall-clock time), through the same Session a run uses, at two line rates: a UART at 115200 baud and USB CDC
full speed (12 Mbit/s line rate); the emulator's ``--baud`` paces both directions to what such a line carries
(10 bits a byte). Figures per line rate, all measured in this one run:

(a) round-trip latency of PING/PONG over the clean line: p50, p90, p99 in ms, beside the time the PING and PONG
    frames alone take on the line (the floor);
(b) MOVE throughput in commands per second over the clean line, beside the line's limit for MOVE frames alone
    (baud / 10 / bytes per MOVE frame): MOVEs of 1 ms each, so the link, not the motion, sets the pace (the
    board's 10 ms control tick finishes up to a full queue of 8 MOVEs per tick);
(c) the same throughput with bit flips injected in both directions at 1e-3 and 1e-2 per byte, as a ratio of (b).
    Targets: at least 0.9 and 0.5.

Every run also checks that each MOVE was executed exactly once, in order (from the emulator's log).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from hanoibot.link.session import Session
from hanoibot.sim.spawn import EmulatorProcess
from hanoifw import protocol

CHANNELS = 5
PINGS = 200
SEED = "7"
#: (name, baud, MOVEs per throughput figure): enough MOVEs for a few seconds at each rate.
LINES = (("UART 115200 baud", 115_200, 600), ("USB CDC 12 Mbit/s", 12_000_000, 3000))


def pose_us(k: int) -> list[int]:
    """A distinct target pose for MOVE k, in µs, within 1000..2000."""
    return [1000 + k % 1000, 1000 + (k // 1000) % 1000, 1500, 1500, 1500]


def move_frame_bytes() -> int:
    """Bytes of one typical MOVE frame on the wire."""
    return len(protocol.encode(protocol.MOVE, 1234, 1234, [1234, 1, *pose_us(1234)]))


def throughput_per_s(baud: int, moves: int, *faults: str) -> tuple[float, int]:
    """MOVEs per second over a paced pty with the given emulator fault options, and the retransmissions it took."""
    with EmulatorProcess("--no-world", "--seed", SEED, "--baud", str(baud), *faults) as emulator:
        with Session(emulator.port_path) as session:
            session.configure([900] * CHANNELS, [2100] * CHANNELS, pose_us(0))
            began_s = time.perf_counter()
            for k in range(1, moves + 1):
                session.send_move(k, pose_us(k), 1)
            session.wait_done(moves, timeout_s=300.0)
            elapsed_s = time.perf_counter() - began_s
            retransmits = session.retransmits
        deadline_s = time.monotonic() + 2.0
        executed = emulator.executed_cmd_ids()
        while executed[-1:] != [moves] and time.monotonic() < deadline_s:
            time.sleep(0.05)
            executed = emulator.executed_cmd_ids()
        if executed != list(range(1, moves + 1)):
            raise SystemExit(f"MOVEs not executed exactly once in order with {faults or 'no faults'}")
    return moves / elapsed_s, retransmits


def ping_latencies_ms(baud: int) -> list[float]:
    """PING round trips over the clean paced pty, in ms."""
    options = ("--no-world", "--seed", SEED, "--baud", str(baud))
    with EmulatorProcess(*options) as emulator, Session(emulator.port_path) as session:
        return [session.ping() * 1000.0 for _ in range(PINGS)]


def bench_line(name: str, baud: int, moves: int) -> None:
    """Print (a)-(c) for one line rate."""
    print(f"{name}:")
    latencies_ms = sorted(ping_latencies_ms(baud))
    cut = statistics.quantiles(latencies_ms, n=100)
    ping_bytes = len(protocol.encode(protocol.PING, 0, 0, ["1"])) + len(protocol.encode(protocol.PONG, 0, 0, ["1"]))
    floor_ms = ping_bytes * 10 / baud * 1000
    print(
        f"  (a) PING round trip: p50 {cut[49]:.2f} ms, p90 {cut[89]:.2f} ms, p99 {cut[98]:.2f} ms "
        f"(line floor {floor_ms:.2f} ms)"
    )
    clean_per_s, _ = throughput_per_s(baud, moves)
    limit_per_s = baud / 10 / move_frame_bytes()
    print(
        f"  (b) clean: {clean_per_s:.0f} MOVE/s ({moves} MOVEs); line limit {limit_per_s:.0f} MOVE/s "
        f"({move_frame_bytes()}-byte frames); ratio {clean_per_s / limit_per_s:.2f}"
    )
    for flip in ("1e-3", "1e-2"):
        per_s, retransmits = throughput_per_s(baud, moves, "--flip", flip)
        target = 0.9 if flip == "1e-3" else 0.5
        ratio = per_s / clean_per_s
        verdict = "ok" if ratio >= target else "BELOW TARGET"
        print(
            f"  (c) flip {flip}: {per_s:.0f} MOVE/s = {ratio:.2f} x clean (target >= {target}, {verdict});"
            f" {retransmits} retransmissions"
        )


def main() -> None:
    """Parse the options, then run every measurement once per line rate and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--line", choices=("uart", "usb", "both"), default="both", help="which line rate(s) to run")
    args = parser.parse_args()
    for name, baud, moves in LINES:
        if args.line == "both" or name.lower().startswith(args.line):
            bench_line(name, baud, moves)


if __name__ == "__main__":
    main()
