"""Planner benchmarks, run by hand: ``.venv/bin/python benchmarks/planner.py``.

Every figure is a ratio against a baseline measured in the same run (the machines are shared and noisy):

(a) ``hanoibot solve -n 22 --format plain > /dev/null`` against a plain recursive
    generator printing ``DISK FROM TO`` with one print() per move. Both run as fresh processes (start-up
    included) and their outputs are checked to be byte-identical. Target: at least 30x.
(b) iterating the plan object in Python (``for move in plan``), in moves per second, against iterating the
    textbook recursive generator. Target: at least 5 million moves/s.
(c) peak traced memory (tracemalloc, fresh process each) streaming the first 10^6 moves of n = 20 and n = 64,
    both as Move objects and as plain text. Target: the same within 10%.

Then the variant planners' figures from ``planner_variants.py`` (regular counts, Frame–Stewart, exact search).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

SEED_STYLE = """
import sys
sys.setrecursionlimit(10000)
def hanoi(n, src, dst, aux):
    if n:
        hanoi(n - 1, src, aux, dst)
        print(n, src, dst)
        hanoi(n - 1, aux, dst, src)
hanoi(int(sys.argv[1]), "A", "C", "B")
"""

PEAK_PROBE = """
import itertools, sys, tracemalloc
tracemalloc.start()
from hanoibot.planner import make_plan
from hanoibot.planner.classic.bulk import plain_pieces
n, kind, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
if kind == "moves":
    for _ in itertools.islice(make_plan(n), count):
        pass
else:
    for _ in plain_pieces(n, 0, 2, 0, count):
        pass
print(tracemalloc.get_traced_memory()[1])
"""


def _timed_to_file(argv: list[str], out: Path) -> float:
    """Wall-clock seconds of one process writing its stdout to ``out``."""
    with out.open("wb") as sink:
        began = time.perf_counter()
        subprocess.run(argv, stdout=sink, check=True)
        return time.perf_counter() - began


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bench_plain_output(n_disks: int = 22, repeats: int = 3) -> None:
    """(a) the bulk plain path (best of ``repeats``) against one print() per move (one run)."""
    with tempfile.TemporaryDirectory() as tmp:
        ours_file, seed_file = Path(tmp, "ours.txt"), Path(tmp, "seed.txt")
        ours = [str(BIN / "hanoibot"), "solve", "-n", str(n_disks), "--format", "plain"]
        seed = [sys.executable, "-c", SEED_STYLE, str(n_disks)]
        ours_s = min(_timed_to_file(ours, ours_file) for _ in range(repeats))
        seed_s = _timed_to_file(seed, seed_file)  # tens of seconds: once is enough
        identical = _digest(ours_file) == _digest(seed_file)
        size_mb = ours_file.stat().st_size / 1e6
    print(f"(a) solve -n {n_disks} --format plain ({size_mb:.1f} MB, outputs identical: {identical})")
    print(
        f"    hanoibot {ours_s * 1e3:8.1f} ms   seed-style print() {seed_s * 1e3:8.1f} ms   "
        f"ratio {seed_s / ours_s:6.1f}x"
    )


def _textbook(n: int, src: int, dst: int, aux: int) -> Iterator[tuple[int, int, int]]:
    if n:
        yield from _textbook(n - 1, src, aux, dst)
        yield n, src, dst
        yield from _textbook(n - 1, aux, dst, src)


def bench_iteration(n_disks: int = 22) -> None:
    """(b) iterating the plan object against iterating the textbook recursive generator."""
    sys.path.insert(0, str(ROOT / "host"))
    from hanoibot.planner import make_plan

    plan = make_plan(n_disks)
    began = time.perf_counter()
    for _ in plan:
        pass
    ours_s = time.perf_counter() - began
    began = time.perf_counter()
    for _ in _textbook(n_disks, 0, 2, 1):
        pass
    base_s = time.perf_counter() - began
    rate = plan.length / ours_s
    print(
        f"(b) iterate make_plan({n_disks}): {rate / 1e6:6.1f} M moves/s; textbook generator "
        f"{plan.length / base_s / 1e6:5.1f} M moves/s; ratio {base_s / ours_s:5.1f}x"
    )


def _peak_bytes(n_disks: int, kind: str, count: int) -> int:
    result = subprocess.run(
        [sys.executable, "-c", PEAK_PROBE, str(n_disks), kind, str(count)], capture_output=True, text=True, check=True
    )
    return int(result.stdout.strip())


def bench_memory(count: int = 10**6) -> None:
    """(c) peak traced memory streaming the first ``count`` moves of n = 20 and n = 64."""
    for kind in ("moves", "plain"):
        small, large = _peak_bytes(20, kind, count), _peak_bytes(64, kind, count)
        print(
            f"(c) first {count} moves as {kind:5}: peak n=20 {small / 1e6:6.2f} MB, n=64 {large / 1e6:6.2f} MB, "
            f"ratio {large / small:5.3f}"
        )


def main() -> None:
    """Run all planner benchmarks and print their figures."""
    bench_plain_output()
    bench_iteration()
    bench_memory()
    # The variant planners' figures (issue 3) live in their own module beside this one.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import planner_variants

    planner_variants.main()


if __name__ == "__main__":
    main()
