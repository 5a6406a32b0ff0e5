"""Benchmarks of the general planners (issue 3), run by hand: ``.venv/bin/python benchmarks/planner_variants.py``.

Every figure is set against a baseline measured in the same run (the machines are shared and noisy):

(d) ``count_moves`` between two regular 3-peg states (O(n) bit string) for n = 10**3 to 10**6, with
    the time per disk (flat = linear; expect a step once the arrays outgrow the CPU caches); and from a random
    regular state to a tower, n = 100 000, against a straightforward linear walk over an equal State (peg of
    each disk, then one bit per moving disk, one int() at the end); each call of either side gets a State of its
    own, made before the timing, so both read memory that is not warm from the call before. Targets: n = 100 000
    under 1 s; to a tower within 1.5x of the linear walk.
(e) ``count_moves`` for Frame–Stewart towers of 10**6 disks on 4 and 10 pegs (block sums, cache cleared before
    every call: cold), against summing the 10**6 increments one disk at a time. Target: under 10 ms.
(f) exact search, states visited per second: the integer-coded bidirectional search against a textbook
    breadth-first search over :class:`~hanoibot.puzzle.State` objects (``State.apply``) on the same request.

``main()`` prints the figures; the lead's ``benchmarks/planner.py`` may call it after its own.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import deque
from collections.abc import Callable

from hanoibot.planner import count_moves
from hanoibot.planner.general.frame_stewart import fs_count
from hanoibot.planner.general.search import shortest_path
from hanoibot.puzzle import Rules, State

#: Calls per side in the paired timings.
REPEATS = 7


def _paired_best_s(ours: Callable[[], object], base: Callable[[], object], repeats: int = 7) -> tuple[float, float]:
    """Best wall-clock seconds of ``ours`` and of ``base``, called in turn so both see the same machine load."""
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for side, call in enumerate((ours, base)):
            began = time.perf_counter()
            call()
            best[side] = min(best[side], time.perf_counter() - began)
    return best[0], best[1]


def _best_s(call: Callable[[], object], repeats: int = 5) -> float:
    """Best wall-clock seconds of ``repeats`` calls."""
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - began)
    return best


def _linear_walk(start: State, peg: int) -> int:
    """Moves to gather the regular ``start`` on ``peg``: the straightforward linear walk (the baseline)."""
    where = [0] * start.n_disks
    for p, stack in enumerate(start.stacks):
        for disk in stack:
            where[disk - 1] = p
    bits = bytearray(b"0" * len(where))
    goal = peg
    top = len(where) - 1
    for i in range(top, -1, -1):
        here = where[i]
        if here != goal:
            bits[top - i] = 0x31
            goal = 3 - here - goal
    return int(bits, 2)


def bench_regular_count() -> None:
    """(d) O(n) regular -> regular counts and their scaling."""
    times_s = {}
    for n in (1_000, 10_000, 100_000, 1_000_000):
        start = State.from_pegs([d % 3 for d in range(n)])
        goal = State.from_pegs([(d * 2 + 1) % 3 for d in range(n)])
        times_s[n] = _best_s(
            lambda start=start, goal=goal, n=n: count_moves(n, start=start, goal=goal), 7 if n < 10**6 else 2
        )
    rng = random.Random(1)
    where = [rng.randrange(3) for _ in range(100_000)]
    start = State.from_pegs(where)
    tower = State.tower(100_000, 2)
    assert count_moves(100_000, start=start, goal=tower) == _linear_walk(start, 2)
    # A fresh start State for every call of either side: nothing ours learnt about a state is reused, and neither
    # side walks a State whose lists are still in the CPU caches from the call before (both cold).
    fresh = iter([State.from_pegs(where) for _ in range(REPEATS)])
    fresh_for_walk = iter([State.from_pegs(where) for _ in range(REPEATS)])
    ours_s, walk_s = _paired_best_s(
        lambda: count_moves(100_000, start=next(fresh), goal=tower),
        lambda: _linear_walk(next(fresh_for_walk), 2),
        REPEATS,
    )
    print("(d) regular -> regular count, 3 pegs")
    print(
        f"    n=1000 {times_s[1_000] * 1e3:8.2f} ms   n=100000 {times_s[100_000] * 1e3:8.1f} ms   "
        f"scaling {times_s[100_000] / times_s[1_000]:6.1f}x for 100x disks"
    )
    per_disk_ns = {n: t_s / n * 1e9 for n, t_s in times_s.items()}
    print("    per disk: " + "   ".join(f"n={n} {ns:5.0f} ns" for n, ns in per_disk_ns.items()))
    verdict = "ok" if ours_s <= 1.5 * walk_s else "ABOVE TARGET"
    print(
        f"    random regular state to a tower, n=100000: ours {ours_s * 1e3:8.1f} ms   "
        f"linear walk {walk_s * 1e3:8.1f} ms   ours/walk {ours_s / walk_s:5.2f} (target <= 1.5, {verdict})"
    )


def _disk_by_disk_fs(n_disks: int, pegs: int) -> int:
    """Frame–Stewart count adding one 2**t increment per disk (the baseline)."""
    total = 0
    covered = 0
    block = 1
    t = 0
    r = pegs - 3
    for _ in range(n_disks):
        if covered == block:
            t += 1
            covered = 0
            block = block * (t + r) // t
        total += 1 << t
        covered += 1
    return total


def bench_frame_stewart_count() -> None:
    """(e) Frame–Stewart counts for a million disks."""
    print("(e) Frame–Stewart count, 10**6 disks")
    for pegs in (4, 10):
        ours_s = _best_s(lambda pegs=pegs: (fs_count.cache_clear(), count_moves(10**6, pegs=pegs)))
        base_s = _best_s(lambda pegs=pegs: _disk_by_disk_fs(10**6, pegs), 1)
        assert count_moves(10**6, pegs=pegs) == _disk_by_disk_fs(10**6, pegs)
        digits = len(str(count_moves(10**6, pegs=pegs)))
        print(
            f"    {pegs:2d} pegs ({digits} digits): ours {ours_s * 1e3:7.3f} ms   "
            f"disk by disk {base_s * 1e3:8.1f} ms   ratio {base_s / ours_s:8.0f}x"
        )


def _textbook_bfs(start: State, goal: State, rules: Rules) -> tuple[int, int]:
    """(moves, states seen) by a textbook BFS over State objects."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state == goal:
            return seen[state], len(seen)
        for move in state.legal_moves(rules):
            nxt = state.apply(move, rules)
            if nxt not in seen:
                seen[nxt] = seen[state] + 1
                queue.append(nxt)
    raise AssertionError("goal not reachable")


def bench_search() -> None:
    """(f) states per second of the exact search."""
    print("(f) exact search, states visited per second")
    for name, n in (("classic", 9), ("linear", 8), ("cyclic", 8)):
        rules = Rules.named(name)
        start, goal = State.parse("ABCABCABC"[:n]), State.tower(n, 2)
        began = time.perf_counter()
        plan = shortest_path(start, [goal], rules)
        ours_s = time.perf_counter() - began
        began = time.perf_counter()
        moves, seen = _textbook_bfs(start, goal, rules)
        base_s = time.perf_counter() - began
        assert moves == plan.length
        ours_rate, base_rate = plan.visited / ours_s, seen / base_s
        print(
            f"    {name:8s} n={n}: ours {ours_rate / 1e3:7.0f} k states/s ({plan.visited} states)   "
            f"textbook {base_rate / 1e3:6.0f} k states/s ({seen} states)   "
            f"time ratio {base_s / ours_s:5.1f}x"
        )


def main() -> None:
    """Run every figure of this module."""
    bench_regular_count()
    bench_frame_stewart_count()
    bench_search()


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
