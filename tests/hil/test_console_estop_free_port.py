"""The page's E-STOP with no arm connected to the console and no program holding the port (an emulated board
behind a pty): the console opens the port, latches the e-stop, and says no arm was connected; the board confirms
the latch (``hanoibot status``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import hanoibot
from console_bench import BASE_URL, ORIGIN, Page
from hanoibot.console.app import ConsoleSettings, make_app
from hanoibot.sim.spawn import EmulatorProcess
from starlette.testclient import TestClient

pytestmark = pytest.mark.slow


def test_estop_on_a_free_port_latches_the_board_and_says_no_arm_was_connected(tmp_path: Path) -> None:
    with EmulatorProcess("--board", "AAA", "--seed", "1") as emulator:
        app = make_app(ConsoleSettings(emulator.port_path, journal_dir=str(tmp_path)))
        client = TestClient(app, base_url=BASE_URL)
        with client, client.websocket_connect("ws://127.0.0.1:8765/ws", headers=ORIGIN) as ws:
            page = Page(ws)
            page.send("estop")
            said = page.wait_for(lambda s: bool(s["message"] or s["error"]), "an answer")
        assert said["message"].startswith("No arm was connected to the console: nothing held"), said
        assert "latched the e-stop" in said["message"] and not said["connected"]
        status = hanoibot("status", "--json", "--port", emulator.port_path, timeout_s=30.0)
        assert json.loads(status.stdout)["mode"] == "ESTOP", status
