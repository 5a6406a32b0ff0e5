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
    Targets: at least 0.9 and 0.5. Beside it, what each retransmission cost (the noisy run's extra time over the
    clean run of its round, per retransmission) and the probability that a MOVE frame comes through intact.

``--bus``: the same, with the board driving a bus of Feetech STS servos (``hanoibot emulate --servo sts``: every
control step a sync write of the goals and a read of one servo, answered after its return delay, as the firmware's
bus schedule does), clean and noisy in the same run. The bus must not starve the link: targets (c) at least 0.95
and 0.5 of that clean figure.

(b) and (c) are measured ``--repeat`` times (3), alternated (clean, 1e-3, 1e-2, clean, ...), so that the machine's
load falls on all alike; each figure is the median of its runs, each ratio the median over the rounds of a noisy
run against the clean run of its round. Every run also checks that each MOVE was executed exactly once, in order
(from the emulator's log).
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
    """A distinct target pose for MOVE k, in µs, within 1000..2000: channel 0 goes up and down 1 µs a MOVE (a jump
    would be faster than the board allows), channel 1 counts the thousands."""
    return [1000 + abs(k % 2000 - 1000), 1000 + (k // 1000) % 1000, 1500, 1500, 1500]


def move_frame_bytes() -> int:
    """Bytes of one typical MOVE frame on the wire."""
    return len(protocol.encode(protocol.MOVE, 1234, 1234, [1234, 1, *pose_us(1234)]))


#: Emulator options of the board driving a bus of STS servos (``--bus``).
BUS = ("--servo", "sts")
#: Targets of (c) per flip rate: the plain board's, and with the bus schedule.
TARGETS = {"1e-3": 0.9, "1e-2": 0.5}
BUS_TARGETS = {"1e-3": 0.95, "1e-2": 0.5}


def throughput_per_s(baud: int, moves: int, *faults: str) -> tuple[float, int]:
    """MOVEs per second over a paced pty with the given emulator options (faults, the bus), and the
    retransmissions it took."""
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


def ping_latencies_ms(baud: int, *board: str) -> list[float]:
    """PING round trips over the clean paced pty, in ms (``board``: more emulator options)."""
    options = ("--no-world", "--seed", SEED, "--baud", str(baud), *board)
    with EmulatorProcess(*options) as emulator, Session(emulator.port_path) as session:
        return [session.ping() * 1000.0 for _ in range(PINGS)]


def bench_line(name: str, baud: int, moves: int, repeat: int, board: tuple[str, ...] = ()) -> None:
    """Print (a)-(c) for one line rate, the board started with the emulator options ``board`` (:data:`BUS`: it
    drives a servo bus)."""
    print(f"{name}{' (the board driving an STS servo bus)' if board else ''}:")
    latencies_ms = sorted(ping_latencies_ms(baud, *board))
    cut = statistics.quantiles(latencies_ms, n=100)
    ping_bytes = len(protocol.encode(protocol.PING, 0, 0, ["1"])) + len(protocol.encode(protocol.PONG, 0, 0, ["1"]))
    floor_ms = ping_bytes * 10 / baud * 1000
    print(
        f"  (a) PING round trip: p50 {cut[49]:.2f} ms, p90 {cut[89]:.2f} ms, p99 {cut[98]:.2f} ms "
        f"(line floor {floor_ms:.2f} ms)"
    )
    flips = ("1e-3", "1e-2")
    rounds = []  # per round: {flip or "": (MOVE/s, retransmissions)}
    for _ in range(repeat):
        rounds.append(
            {"": throughput_per_s(baud, moves, *board)}
            | {f: throughput_per_s(baud, moves, *board, "--flip", f) for f in flips}
        )
    clean_per_s = statistics.median(r[""][0] for r in rounds)
    limit_per_s = baud / 10 / move_frame_bytes()
    runs = ", ".join(f"{r[''][0]:.0f}" for r in rounds)
    print(
        f"  (b) clean: {clean_per_s:.0f} MOVE/s ({moves} MOVEs; runs {runs}); line limit {limit_per_s:.0f} MOVE/s "
        f"({move_frame_bytes()}-byte frames); ratio {clean_per_s / limit_per_s:.2f}"
    )
    for flip in flips:
        per_s = statistics.median(r[flip][0] for r in rounds)
        ratios = [r[flip][0] / r[""][0] for r in rounds]
        ratio = statistics.median(ratios)
        target = (BUS_TARGETS if board else TARGETS)[flip]
        verdict = "ok" if ratio >= target else "BELOW TARGET"
        print(
            f"  (c) flip {flip}: {per_s:.0f} MOVE/s = {ratio:.2f} x clean (target >= {target}, {verdict}; rounds "
            f"{', '.join(f'{x:.2f}' for x in ratios)}); {statistics.median(r[flip][1] for r in rounds):.0f}"
            " retransmissions"
        )
        # What each loss cost: the noisy run's extra time over the clean run of its round, per retransmission.
        costs_ms = [(moves / r[flip][0] - moves / r[""][0]) / r[flip][1] * 1000 for r in rounds if r[flip][1] > 0]
        intact = (1 - float(flip)) ** move_frame_bytes()
        print(
            f"      each retransmission cost {statistics.median(costs_ms) if costs_ms else 0:.1f} ms "
            f"(a clean MOVE takes {1000 / clean_per_s:.1f} ms); a {move_frame_bytes()}-byte MOVE comes through "
            f"intact with probability {intact:.3f}: the ratio a full line keeps when each spoiled MOVE is sent again"
        )


def main() -> None:
    """Parse the options, then run every measurement once per line rate and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--line", choices=("uart", "usb", "both"), default="both", help="which line rate(s) to run")
    parser.add_argument("--repeat", type=int, default=3, metavar="N", help="rounds of (b) and (c) (default 3)")
    parser.add_argument("--bus", action="store_true", help="the board drives a bus of STS servos (its schedule)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat} is invalid: expected at least 1")
    for name, baud, moves in LINES:
        if args.line == "both" or name.lower().startswith(args.line):
            bench_line(name, baud, moves, args.repeat, BUS if args.bus else ())


if __name__ == "__main__":
    main()
