"""Planner benchmarks, run by hand: ``.venv/bin/python benchmarks/planner.py``.

Every figure is a ratio against a baseline measured in the same run (the machines are shared and noisy):

(a) ``hanoibot solve -n 22 --format plain | reader`` against a plain recursive
    generator printing ``DISK FROM TO`` with one print() per move. Both run as fresh processes (start-up
    included) under the same conditions: the same environment without PYTHONUNBUFFERED (so both stdouts are
    block-buffered, as when piped), writing into a pipe that this process reads to the end and hashes (a real
    reader, not /dev/null); their outputs are checked to be byte-identical. Target: at least 30x.
(b) iterating the plan object in Python (``for move in plan``), in moves per second, against iterating the
    textbook recursive generator. Target: at least 5 million moves/s.
(c) peak traced memory (tracemalloc, fresh process each) streaming the first 10^6 moves of n = 20 and n = 64,
    both as Move objects and as plain text. Target: the same within 10%.

(g) streaming: iterating the first 3 * 10**6 moves of Frame–Stewart (4 and 5 pegs), linear and cyclic plans and
    the classic ``--method iterative``, against iterating the classic recursive plan in the same run. Target: at
    least 10 M moves/s each.
(h) ``hanoibot solve -n 21 --format text`` and ``--format json`` into a pipe, in lines per second (start-up
    included), against a seed-style writer (one f-string and one print() per line) into the same pipe; and the
    text of Frame–Stewart plans (4 pegs, n = 150: 1 900 545 lines; 5 pegs, n = 560: 1 507 327 lines) the same
    way. Target: at least 3 M lines/s.
(i) start-up: ``hanoibot solve -n 3`` against a bare ``python -c pass``, both into a pipe this process reads:
    30 interleaved pairs, the median of the pairs' ratios, in wall-clock and in CPU time. Target: within 1.5x.

Before timing, hanoibot's bytecode is compiled (``compileall``), as an installed package has it: with
PYTHONDONTWRITEBYTECODE set (as on the development machines) every timed start-up would otherwise compile the
sources again, a cost no installed copy pays and the bare interpreter never sees.

Then the variant planners' figures from ``planner_variants.py`` (regular counts, Frame–Stewart, exact search).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import itertools
import os
import resource
import statistics
import subprocess
import sys
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


#: The environment both processes of (a) get: ours, without PYTHONUNBUFFERED (which would unbuffer only one side's
#: print() calls and inflate the baseline tenfold).
FAIR_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}


def _timed_into_pipe(argv: list[str]) -> tuple[float, str, int]:
    """(wall-clock seconds, sha256, bytes) of one process writing into a pipe that this process reads and hashes."""
    digest = hashlib.sha256()
    size = 0
    began = time.perf_counter()
    with subprocess.Popen(argv, stdout=subprocess.PIPE, env=FAIR_ENV) as process:
        assert process.stdout is not None
        while chunk := process.stdout.read(1 << 16):
            digest.update(chunk)
            size += len(chunk)
    elapsed_s = time.perf_counter() - began
    if process.returncode:
        raise SystemExit(f"{argv[0]} failed with exit code {process.returncode}")
    return elapsed_s, digest.hexdigest(), size


def compile_bytecode() -> None:
    """Compile hanoibot's modules to bytecode, as installing the package does."""
    target = ROOT / "host" / "hanoibot"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(target)], check=True, stdout=subprocess.DEVNULL)


def bench_plain_output(n_disks: int = 22, repeats: int = 3) -> None:
    """(a) the bulk plain path against one print() per move, each the best of ``repeats``."""
    ours = [str(BIN / "hanoibot"), "solve", "-n", str(n_disks), "--format", "plain"]
    seed = [sys.executable, "-c", SEED_STYLE, str(n_disks)]
    ours_runs = [_timed_into_pipe(ours) for _ in range(repeats)]
    seed_runs = [_timed_into_pipe(seed) for _ in range(repeats)]
    ours_s, seed_s = min(run[0] for run in ours_runs), min(run[0] for run in seed_runs)
    identical = {run[1] for run in ours_runs} == {run[1] for run in seed_runs}
    size_mb = ours_runs[0][2] / 1e6
    print(f"(a) solve -n {n_disks} --format plain into a pipe ({size_mb:.1f} MB, outputs identical: {identical})")
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


SEED_TEXT = """
import sys
def hanoi(n, src, dst, aux, k=[0]):
    if n:
        hanoi(n - 1, src, aux, dst)
        k[0] += 1
        print(f"  {k[0]}  disk {n}  {src} -> {dst}")
        hanoi(n - 1, aux, dst, src)
hanoi(int(sys.argv[1]), "A", "C", "B")
"""


def bench_streaming(count: int = 3 * 10**6) -> None:
    """(g) moves per second of the general planners' iteration against the classic plan's, same run."""
    from hanoibot.planner import make_plan
    from hanoibot.puzzle import Rules

    def rate(plan_moves: Iterator[object]) -> float:
        """Moves per second, consumed at C speed (a zero-length deque), so the loop costs neither side anything."""
        began = time.perf_counter()
        collections.deque(itertools.islice(plan_moves, count), maxlen=0)
        return count / (time.perf_counter() - began)

    classic = rate(iter(make_plan(24)))
    print(f"(g) streaming, first {count} moves; classic recursive plan (baseline): {classic / 1e6:5.1f} M moves/s")
    cases = {
        "Frame-Stewart, 4 pegs, n=200": make_plan(200, pegs=4),
        "Frame-Stewart, 5 pegs, n=1000": make_plan(1000, pegs=5),
        "linear, n=15": make_plan(15, rules=Rules.named("linear")),
        "cyclic, n=16": make_plan(16, rules=Rules.named("cyclic")),
        "classic --method iterative, n=24": make_plan(24, method="iterative"),
    }
    for name, plan in cases.items():
        ours = rate(iter(plan))
        verdict = "ok" if ours >= 10e6 else "BELOW TARGET"
        print(f"    {name:30s} {ours / 1e6:5.1f} M moves/s   ratio to classic {ours / classic:4.2f} ({verdict})")


def bench_text_formats(n_disks: int = 21) -> None:
    """(h) text and json lines per second into a pipe, against a seed-style f-string writer."""
    lines = (1 << n_disks) - 1
    seed_s = min(_timed_into_pipe([sys.executable, "-c", SEED_TEXT, str(n_disks)])[0] for _ in range(2))
    print(
        f"(h) solve -n {n_disks} into a pipe; seed-style f-string writer (baseline): "
        f"{lines / seed_s / 1e6:4.2f} M lines/s"
    )
    for fmt in ("text", "json"):
        argv = [str(BIN / "hanoibot"), "solve", "-n", str(n_disks), "--format", fmt]
        ours_s = min(_timed_into_pipe(argv)[0] for _ in range(2))
        verdict = "ok" if lines / ours_s >= 3e6 else "BELOW TARGET"
        print(
            f"    --format {fmt:4s} {lines / ours_s / 1e6:4.2f} M lines/s   ratio {seed_s / ours_s:4.1f}x ({verdict})"
        )
    for pegs, disks, fs_lines in ((4, 150, 1_900_545), (5, 560, 1_507_327)):
        argv = [str(BIN / "hanoibot"), "solve", "-n", str(disks), "--pegs", str(pegs), "--format", "text"]
        ours_s = min(_timed_into_pipe(argv)[0] for _ in range(2))
        verdict = "ok" if fs_lines / ours_s >= 3e6 else "BELOW TARGET"
        print(
            f"    Frame-Stewart {pegs} pegs n={disks} --format text {fs_lines / ours_s / 1e6:4.2f} M lines/s   "
            f"ratio {seed_s / ours_s * fs_lines / lines:4.1f}x per line ({verdict})"
        )


def bench_startup(pairs: int = 30) -> None:
    """(i) start-up of ``solve -n 3`` against a bare interpreter: ``pairs`` interleaved pairs of runs, each pair's
    ratio taken while both saw the same machine load, and the median of those ratios; in wall-clock time and in
    CPU time (user + system of the process, which waiting for a shared core does not inflate)."""
    ours_argv = [str(BIN / "hanoibot"), "solve", "-n", "3"]
    bare_argv = [sys.executable, "-c", "pass"]
    runs: dict[str, list[tuple[float, float]]] = {"ours": [], "bare": []}
    for _ in range(pairs):
        for name, argv in (("ours", ours_argv), ("bare", bare_argv)):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall_s = _timed_into_pipe(argv)[0]
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu_s = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            runs[name].append((wall_s, cpu_s))
    for index, clock in ((0, "wall"), (1, "CPU")):
        ours = [run[index] for run in runs["ours"]]
        bare = [run[index] for run in runs["bare"]]
        ratio = statistics.median(o / b for o, b in zip(ours, bare, strict=True))
        verdict = "ok" if ratio <= 1.5 else "ABOVE TARGET"
        print(
            f"(i) start-up, {clock:4s} time: solve -n 3 {statistics.median(ours) * 1e3:6.1f} ms   bare python -c pass "
            f"{statistics.median(bare) * 1e3:6.1f} ms (medians)   median ratio of {pairs} pairs {ratio:4.2f} "
            f"(target <= 1.5, {verdict})"
        )


def main() -> None:
    """Parse the options, run all planner benchmarks and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--only", metavar="LETTERS", default="abcghiv", help="run only these figures, e.g. ghi (v: planner_variants)"
    )
    only = parser.parse_args().only
    compile_bytecode()
    figures = {
        "a": bench_plain_output,
        "b": bench_iteration,
        "c": bench_memory,
        "g": bench_streaming,
        "h": bench_text_formats,
        "i": bench_startup,
    }
    for letter, bench in figures.items():
        if letter in only:
            bench()
    if "v" in only:
        # The variant planners' figures (issue 3) live in their own module beside this one.
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import planner_variants

        planner_variants.main()


if __name__ == "__main__":
    main()
