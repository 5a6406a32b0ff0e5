"""The page's recovery on the virtual Pico (``hanoibot emulate --pico``, the stock MicroPython image moving the
simulated arm): a covering cell of tests/console/test_console_recovery.py. A one-disk run from the page is
e-stopped by a watching page while the disk is carried; Home is refused until a Clear sent after the e-stop, then
Home puts the disk back on a peg before the arm travels home, and a new run from the page finishes. Judged by the
emulator's world log: no collision, no drop, the disk on a peg and then on the goal."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from console_bench import BASE_URL, ORIGIN, Page
from hanoibot.console.app import ConsoleSettings, make_app
from hanoibot.sim.spawn import EmulatorProcess
from starlette.testclient import TestClient
from vpico_checks import require_machine_sustains_the_cap
from world_events import bad_events, disks_after

pytestmark = [pytest.mark.slow, pytest.mark.vpico, pytest.mark.vpico_realtime]

#: The chip runs at most 1/SLOW of a real RP2040's speed; the busy share as in test_recovery_matrix_vpico.
SLOW = 3
RUN_BUSY_SHARE = 0.35
#: Longest the virtual Pico may take to boot to the firmware's HELLO, and to do one command, in s of wall time.
BOOT_S = 120.0
STEP_S = 90.0


def test_an_estop_mid_carry_from_the_page_then_clear_and_home_put_the_disk_down(tmp_path: Path) -> None:
    require_machine_sustains_the_cap(RUN_BUSY_SHARE / SLOW)
    emulator = EmulatorProcess("--pico", "--slow", str(SLOW), "--board", "A", "--seed", "1", startup_s=BOOT_S)
    with emulator:
        app = make_app(ConsoleSettings(emulator.port_path, journal_dir=str(tmp_path)))
        with TestClient(app, base_url=BASE_URL) as client:
            url = "ws://127.0.0.1:8765/ws"
            with (
                client.websocket_connect(url, headers=ORIGIN) as ws1,
                client.websocket_connect(url, headers=ORIGIN) as ws2,
            ):
                controller, watcher = Page(ws1), Page(ws2)
                controller.send("connect", state="A", pegs=3)
                controller.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected", STEP_S)
                controller.send("run", rules="classic", goal="C", pegs=3)
                deadline_s = time.monotonic() + STEP_S
                while not any(e.get("event") == "pick" for e in emulator.events()):
                    assert time.monotonic() < deadline_s, f"no pick in time: {controller.state}"
                    controller.wait_for(lambda s: True, "a state", STEP_S)
                watcher.send("estop")
                controller.wait_for(lambda s: s["mode"] == "ESTOP" and s["busy"] == "", "e-stopped", STEP_S)
                assert disks_after("A", emulator.events()) is None, "the e-stop came after the disk was put down"
                controller.send("home")
                refused = controller.wait_for(lambda s: bool(s["error"]) and s["busy"] == "", "a refusal", STEP_S)
                assert "latched ESTOP" in refused["error"]
                controller.send("clear")
                controller.wait_for(lambda s: "Home or Resume" in s["message"], "cleared", STEP_S)
                controller.send("home")
                home = controller.wait_for(lambda s: s["busy"] == "" and s["phase"] == "idle", "Home", STEP_S)
                assert home["message"].startswith("the arm is home; put disk 1"), home
                assert disks_after("A", emulator.events()) in ("A", "B", "C")
                controller.send("resume")
                done = controller.wait_for(lambda s: s["busy"] == "" and s["phase"] == "idle", "Resume", STEP_S)
                assert done["message"].startswith("done:"), (done["message"], done["error"])
        assert disks_after("A", emulator.events()) == "C"
        assert bad_events(emulator.events()) == []
