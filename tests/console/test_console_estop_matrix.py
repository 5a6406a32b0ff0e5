"""The console's E-STOP in every situation the page can be in, against ``hanoibot emulate`` (the firmware core in
wall-clock time behind a real pty): a run just asked for (before its first move), a run moving, a run paused, the
arm going home, and the arm jogged on the calibration page.

The emulator's world is the judge: from the moment the page shows the board in mode ESTOP, the board executes
nothing and the world sees no pick or place while the page asks for more (a run, Home, a jog), until a Clear; then
the arm moves again. (The same from a second terminal: tests/hil/test_estop_second_terminal.py.)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hanoibot.config import default_config_path
from hanoibot.console.robot_worker import RobotWorker
from hanoibot.sim.spawn import EmulatorProcess
from worker_snapshots import WAIT_S, Snapshots
from world_events import bad_events

# A board in real time: in `make test-long` and CI, not in the fast loop.
pytestmark = pytest.mark.slow

#: What the emulator's log says when the arm finishes a command or the world sees a disk move.
MOTION_EVENTS = ("executed", "pick", "place")


def motion(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events among ``events`` that say the arm moved."""
    return [event for event in events if event.get("event") in MOTION_EVENTS]


def wait_for_motion(emulator: EmulatorProcess, since: int, what: str) -> None:
    """Wait (bounded) until the world logged motion after its ``since``-th event."""
    deadline_s = time.monotonic() + WAIT_S
    while not motion(emulator.events()[since:]):
        assert time.monotonic() < deadline_s, f"no motion from {what} within {WAIT_S} s"
        time.sleep(0.02)


class Console:
    """The console's robot worker connected to the emulated board, all three disks on A, with a robot config of its
    own at ``config_path`` (the calibration page saves there)."""

    def __init__(self, emulator: EmulatorProcess, config_path: str) -> None:
        self.emulator = emulator
        self.snapshots = Snapshots()
        self.worker = RobotWorker(emulator.port_path, config_path, self.snapshots)
        self.submit("connect", state="AAA", pegs=3)
        self.snapshots.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected")

    def submit(self, name: str, **options: Any) -> None:
        self.worker.submit(name, **options)

    def run(self) -> None:
        self.submit("run", rules="classic", goal="CCC", pegs=3)

    def estop_and_check(self) -> None:
        """E-STOP; once the page shows it latched, the arm stays still through a run, Home and a jog asked for, and
        moves again after a Clear; no collision or drop."""
        self.worker.estop()
        self.snapshots.wait_for(lambda s: s["mode"] == "ESTOP" and s["busy"] == "", "ESTOP latched, nothing busy")
        latched_at = len(self.emulator.events())
        for name, options in (("run", {"rules": "classic", "goal": "CCC", "pegs": 3}), ("home", {})):
            asked = len(self.snapshots.seen)
            self.submit(name, **options)
            refused = self.snapshots.wait_for(lambda s: bool(s["error"]), f"{name} refused", since=asked)
            assert "ESTOP" in refused["error"], refused["error"]
        time.sleep(0.5)  # anything the board would still do has happened by now
        assert motion(self.emulator.events()[latched_at:]) == [], "the arm moved after the e-stop"
        self.submit("clear")
        self.snapshots.wait_for(lambda s: s["mode"] != "ESTOP" and "cleared" in s["message"], "cleared")
        cleared_at = len(self.emulator.events())
        self.submit("home")
        self.snapshots.wait_for(lambda s: s["message"].startswith("the arm is home"), "home after the Clear")
        assert motion(self.emulator.events()[cleared_at:]), "Home after the Clear moved nothing"
        assert bad_events(self.emulator.events()) == []


@pytest.fixture
def console(tmp_path: Path) -> Iterator[Console]:
    config = tmp_path / "mine.toml"
    config.write_text(default_config_path().read_text())
    with EmulatorProcess("--speed", "2", "--board", "AAA", "--seed", "1") as emulator:
        page = Console(emulator, str(config))
        try:
            yield page
        finally:
            page.worker.close()


def test_an_estop_as_a_run_is_asked_for_keeps_the_arm_still(console: Console) -> None:
    console.run()
    console.estop_and_check()


def test_an_estop_while_a_run_moves(console: Console) -> None:
    before = len(console.emulator.events())
    console.run()
    wait_for_motion(console.emulator, before, "the run")
    console.estop_and_check()


def test_an_estop_while_a_run_is_paused(console: Console) -> None:
    before = len(console.emulator.events())
    console.run()
    wait_for_motion(console.emulator, before, "the run")
    console.submit("pause")
    console.snapshots.wait_for(lambda s: s["phase"] == "paused", "paused")
    console.estop_and_check()


def test_an_estop_while_the_arm_goes_home(console: Console) -> None:
    before = len(console.emulator.events())
    console.run()
    wait_for_motion(console.emulator, before, "the run")
    console.submit("pause")
    console.snapshots.wait_for(lambda s: s["phase"] == "paused", "paused")
    console.submit("stop")
    console.snapshots.wait_for(lambda s: s["message"].startswith("stopped after"), "stopped")
    before = len(console.emulator.events())
    console.submit("home")
    wait_for_motion(console.emulator, before, "home")
    console.estop_and_check()


def test_an_estop_while_the_calibration_page_jogs(console: Console) -> None:
    console.submit("calibrate", action="begin")
    console.snapshots.wait_for(lambda s: s["busy"] == "" and s.get("calibration") is not None, "calibrating")
    before = len(console.emulator.events())
    console.submit("calibrate", action="peg", peg=0)
    wait_for_motion(console.emulator, before, "going to peg A")
    console.estop_and_check()
