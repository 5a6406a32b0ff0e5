"""An e-stop from the page preempts and flushes: at seeded moments of a run, the controlling page queues Clear,
Home and Run and a watching page asks for Clear and Home, then the watcher presses E-STOP. Judged by the simulated
board's log: from the ESTOP frame the board received on, no segment finishes and no disk is picked or placed until
a CLEAR that reaches the board after the explicit Clear sent later; the page is told what was discarded."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from console_bench import bench_on

pytestmark = pytest.mark.slow
#: Seeded moments (s after the run started) at which the commands are queued and the e-stop pressed.
MOMENTS = [random.Random(seed).uniform(0.0, 1.2) for seed in range(6)]
#: How long the test waits after the latch for anything that leaked from the queue to move the arm, in s.
LEAK_WAIT_S = 1.0


def first(events: list[dict[str, Any]], start: int, test: Any) -> int | None:
    """Index of the first event from ``start`` on that passes ``test``."""
    return next((i for i in range(start, len(events)) if test(events[i])), None)


@pytest.mark.parametrize("moment_s", MOMENTS)
def test_nothing_moves_between_an_estop_and_a_clear_sent_after_it(
    moment_s: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with bench_on("sim://?speed=8", str(tmp_path), monkeypatch) as bench:
        controller, watcher = bench.page(), bench.page()
        controller.send("connect", state="AAA", pegs=3)
        controller.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected")
        controller.send("run", rules="classic", goal="CCC", pegs=3)
        controller.wait_for(lambda s: s["busy"] == "running", "a run under way")
        time.sleep(moment_s)
        for name in ("clear", "home", "run"):
            options = {"rules": "classic", "goal": "AAA", "pegs": 3} if name == "run" else {}
            controller.send(name, **options)
        watcher.send("clear")
        watcher.send("home")
        pressed = len(bench.events)
        watcher.send("estop")
        stopped = controller.wait_for(lambda s: s["mode"] == "ESTOP" and s["busy"] == "", "the e-stop latched")
        time.sleep(LEAK_WAIT_S)
        controller.wait_for(lambda s: True, "a fresh state")
        asked_clear = len(bench.events)
        controller.send("clear")
        controller.wait_for(lambda s: "cleared" in s["message"] and s["mode"] == "IDLE", "cleared")
        events = bench.events
        estop = first(events, pressed, lambda e: e.get("event") == "rx" and e["kind"] == "ESTOP")
        assert estop is not None, "no ESTOP reached the board"
        clear = first(events, estop, lambda e: e.get("event") == "rx" and e["kind"] == "CLEAR")
        assert clear is not None and clear >= asked_clear, "a CLEAR sent before the e-stop released its latch"
        moved = [e for e in events[estop:clear] if e["event"] in ("executed", "pick", "place", "put_back")]
        assert moved == [], f"the arm moved between the e-stop and the Clear: {moved}"
        watcher.wait_for(lambda s: len(watcher.errors) >= 2, "the watcher's two refusals")
        told = " ".join([s["message"] + " " + s["error"] for s in controller.seen] + watcher.errors)
        if stopped["moves_done"] < 7:  # the e-stop caught the run: what was queued behind it was discarded
            assert "Discarded what was sent before it: clear, home, run" in told, told
        assert all("read-only" in error for error in watcher.errors), watcher.errors
