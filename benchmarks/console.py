"""Console benchmark, run by hand: ``.venv/bin/python benchmarks/console.py`` (about a minute).

Starts ``hanoibot serve`` on 127.0.0.1 (simulated arm) and drives Debian's Chromium with Playwright. Figures, all
measured in this one run, each beside a baseline from the same run:

(a) page ready: navigation start to the page saying it is ready (board drawn, planner answered, WebSocket role
    received), median of 10 loads; baseline: loading a one-line JSON endpoint of the same server. Target < 1 s.
(b) board update -> page: wall time from the worker reading the board's STATUS to the page handling it, p50 / p95
    over a 3-disk run; baseline: the live period (50 ms) between two snapshots. Target < 100 ms.
(c) animation at 10 disks: requestAnimationFrame rate while Solve animates (0.16 s a move); baseline: the rate of an
    idle requestAnimationFrame loop on the same page. Target 60 frames/s (ratio close to 1).
"""

from __future__ import annotations

import itertools
import re
import shutil
import statistics
import subprocess
import sys
from typing import Any

LOADS = 10


def start_console() -> tuple[subprocess.Popen[str], str]:
    """A ``hanoibot serve`` process and its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "hanoibot", "serve", "--http-port", "0", "--port", "sim://?speed=8"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    match = re.search(r"(http://\S+)", process.stdout.readline())
    if match is None:
        process.kill()
        raise SystemExit("hanoibot serve printed no URL")
    return process, match.group(1)


def page_ready_ms(page: Any, url: str) -> float:
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]", timeout=15_000)
    return float(page.evaluate("() => window.__consoleStats.readyMs"))


def baseline_load_ms(page: Any, url: str) -> float:
    page.goto(url + "api/layout?pegs=3&disks=3")
    return float(page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd"))


def frame_rate(page: Any, frame_times_ms: list[float]) -> float:
    """Frames per second of a list of requestAnimationFrame timestamps (ms)."""
    gaps = [b - a for a, b in itertools.pairwise(frame_times_ms) if b > a]
    return 1000.0 / statistics.median(gaps)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args()
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("Chromium is not installed: run sh tools/ensure_chromium.sh")
    process, url = start_console()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page_ready_ms(page, url)  # warm-up: caches, the planner's first import
            ready = [page_ready_ms(page, url) for _ in range(LOADS)]
            baseline = [baseline_load_ms(page, url) for _ in range(LOADS)]
            print(
                f"(a) page ready: median {statistics.median(ready):.0f} ms (max {max(ready):.0f}); baseline JSON "
                f"load {statistics.median(baseline):.0f} ms; ratio "
                f"{statistics.median(ready) / max(statistics.median(baseline), 0.1):.1f}x; target < 1000 ms"
            )

            page.goto(url)
            page.wait_for_selector("body[data-ready=true]")
            page.select_option("#disks", "3")
            page.click("#new")
            page.click("#r-connect")
            page.wait_for_selector("body[data-robot-phase=idle]", timeout=60_000)
            page.evaluate("() => { window.__consoleStats.latenciesMs.length = 0; }")
            page.click("#r-run")
            page.wait_for_function(
                "() => document.getElementById('robot-message').textContent.startsWith('done')", timeout=120_000
            )
            latencies = sorted(page.evaluate("() => window.__consoleStats.latenciesMs"))
            p50 = latencies[len(latencies) // 2]
            p95 = latencies[int(len(latencies) * 0.95)]
            print(
                f"(b) board update -> page: p50 {p50:.1f} ms, p95 {p95:.1f} ms over {len(latencies)} updates; "
                f"baseline live period 50 ms; p95 / period {p95 / 50:.2f}; target < 100 ms"
            )

            page.select_option("#disks", "10")
            page.click("#new")
            page.wait_for_function("() => document.getElementById('position').textContent === 'AAAAAAAAAA'")
            idle = page.evaluate(
                """() => new Promise((resolve) => { const t = [];
                    const f = (now) => { t.push(now); if (t.length < 180) requestAnimationFrame(f); else resolve(t); };
                    requestAnimationFrame(f); })"""
            )
            page.evaluate("() => { window.__consoleStats.frameTimesMs.length = 0; }")
            page.click("#solve")
            page.wait_for_timeout(5000)
            frames = page.evaluate("() => window.__consoleStats.frameTimesMs.slice()")
            page.click("#solve-pause")
            solve_fps, idle_fps = frame_rate(page, frames), frame_rate(page, idle)
            gaps = sorted(b - a for a, b in itertools.pairwise(frames) if b > a)
            print(
                f"(c) animation, 10 disks: {solve_fps:.1f} frames/s over {len(frames)} frames (p95 frame gap "
                f"{gaps[int(len(gaps) * 0.95)]:.1f} ms, worst {gaps[-1]:.1f} ms); idle rAF loop "
                f"{idle_fps:.1f} frames/s; ratio {solve_fps / idle_fps:.2f}; target 60 frames/s"
            )
            browser.close()
    finally:
        process.send_signal(2)
        process.wait(timeout=10)


if __name__ == "__main__":
    main()
