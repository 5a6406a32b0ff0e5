"""The console's "killed" row: ``hanoibot serve`` is killed with SIGKILL while the arm carries a disk of a run
started from its page. The board (``hanoibot emulate``, a separate process, as a real board outlives its host)
stops the arm when the host goes silent. A new console on the same port and journal folder resumes the run from
its page: every move exactly once, judged by the emulator's world log (no collision, no drop, the goal reached)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from console_bench import Bench, Page
from hanoibot.planner import make_plan
from hanoibot.sim.spawn import EmulatorProcess
from world_events import bad_events, disks_after, world_moves

pytestmark = pytest.mark.slow

#: Longest wait for one step of the scenario, in s of wall time.
STEP_S = 60.0


def page_socket(url: str) -> Any:
    """A WebSocket to the ``hanoibot serve`` at ``url``, as its page opens it (a context manager)."""
    from websockets.sync.client import connect

    http = url.split("/?")[0].rstrip("/")
    return connect(http.replace("http://", "ws://") + "/ws", additional_headers={"Origin": http})


class ServedSocket:
    """A real WebSocket to ``hanoibot serve`` with the two calls :class:`console_bench.Page` makes of Starlette's
    test socket, so the page protocol is driven by the same code in-process and over the network."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    def send_text(self, text: str) -> None:
        self.ws.send(text)

    def receive_json(self) -> Any:
        return json.loads(self.ws.recv(timeout=STEP_S))


def carrying_third_disk(events: list[dict[str, Any]]) -> bool:
    """True while the world's gripper holds the third disk it picked."""
    return sum(e.get("event") == "pick" for e in events) >= 3 and disks_after("AAA", events) is None


def test_a_console_killed_mid_carry_is_resumed_from_a_new_consoles_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, console_factory: Any
) -> None:
    journals = tmp_path / "journals"
    journals.mkdir()
    with EmulatorProcess("--speed", "5", "--board", "AAA", "--seed", "1") as emulator:
        first = console_factory("--port", emulator.port_path, "--journal-dir", str(journals))
        with page_socket(first.url) as ws:
            page = Page(ServedSocket(ws))
            page.send("connect", state="AAA", pegs=3)
            page.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected", STEP_S)
            page.send("run", rules="classic", goal="CCC", pegs=3)
            deadline_s = time.monotonic() + STEP_S
            while not carrying_third_disk(emulator.events()):
                assert time.monotonic() < deadline_s, "the third disk was never carried"
                time.sleep(0.005)
            first.process.send_signal(signal.SIGKILL)  # with its page open, as a crash finds it
            first.process.wait(timeout=10)
        killed_at = len(emulator.events())

        with Bench(emulator.port_path, str(journals), monkeypatch) as bench:
            second = bench.page()
            second.send("connect", state="AAA", pegs=3)  # the page's board; the journal knows better
            second.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected again")
            second.send("resume")
            ended = second.wait_for(
                lambda s: s["busy"] == "" and (bool(s["error"]) or s["message"].startswith(("done:", "stopped"))),
                "Resume over",
            )
            assert ended["message"].startswith("done:"), (ended["message"], ended["error"])
            assert ended["board_text"] == "CCC"
        events = emulator.events()
    assert len(events) > killed_at and bad_events(events) == []
    assert world_moves(events) == list(make_plan(3)), "every move exactly once"
