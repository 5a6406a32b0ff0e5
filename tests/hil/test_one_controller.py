"""One controller per port, against ``hanoibot emulate`` on a real pty with every command in its own process.

While a run holds the port, a second command is refused with one line naming the run; ``hanoibot estop`` from a
second terminal makes the run itself latch the e-stop and stop (judged by the emulator's world: nothing moves after
the e-stop is confirmed, nothing collides or drops), and ``resume`` / ``home --clear`` recover; a program that
takes the board over without asking (a SYNC of its own on the pty) makes the run stop in fault within a bound.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from cli_runner import HANOIBOT, hanoibot
from hanoibot.sim.spawn import EmulatorProcess
from hanoifw import protocol
from world_events import bad_events

#: Longest any one command may take, in s (servos at 5x speed so that a 3-disk run lasts ~20 s).
BOUND_S = 40.0
#: Longest the run may take to stop once it was e-stopped or taken over, in s.
STOP_BOUND_S = 10.0
#: What the emulator's world logs when the arm moves a disk or finishes a command.
MOTION_EVENTS = ("executed", "pick", "place", "drop")


def start_run(port: str, journal: Path) -> subprocess.Popen[str]:
    """A 3-disk journaled run on ``port``, started once it has sent its first move."""
    argv = [*HANOIBOT, "run", "-n", "3", "--plain", "--port", port, "--journal", str(journal)]
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline_s = time.monotonic() + BOUND_S
    while not (journal.exists() and '"type":"send"' in journal.read_text()):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline_s, "the run sent no move in time"
        time.sleep(0.05)
    return process


@pytest.mark.slow
def test_estop_from_a_second_terminal_stops_the_run_and_resume_and_home_clear_recover(tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    with EmulatorProcess("--speed", "5", "--board", "AAA", "--seed", "1") as emulator:
        port = emulator.port_path
        run = start_run(port, journal)
        try:
            for second in (("status",), ("home", "--clear"), ("resume", "--journal", str(journal), "--plain")):
                refused = hanoibot(*second, "--port", port, timeout_s=BOUND_S)
                assert refused.returncode == 2, refused
                assert refused.stderr.count("\n") == 1, refused.stderr
                assert f"is in use by `hanoibot run -n 3 --plain --port {port}" in refused.stderr
                assert f"(pid {run.pid})" in refused.stderr
            began_s = time.monotonic()
            stopped = hanoibot("estop", "--port", port, timeout_s=BOUND_S)
            assert stopped.returncode == 0, stopped.stderr
            assert f"(pid {run.pid}) stopped the arm" in stopped.stdout
            assert time.monotonic() - began_s < STOP_BOUND_S
            after_estop = len(emulator.events())
            _, err = run.communicate(timeout=STOP_BOUND_S)
        finally:
            run.kill()
            run.wait(timeout=BOUND_S)
        assert run.returncode == 1 and "run e-stopped after" in err, err
        assert "`hanoibot estop` from another process stopped the arm" in err
        time.sleep(0.5)
        moved = [e for e in emulator.events()[after_estop:] if e.get("event") in MOTION_EVENTS]
        assert moved == []  # the arm stood still from the moment the e-stop was confirmed
        status = hanoibot("status", "--json", "--port", port, timeout_s=BOUND_S)
        assert json.loads(status.stdout)["mode"] == "ESTOP"
        resume = hanoibot("resume", "--journal", str(journal), "--plain", "--port", port, timeout_s=BOUND_S)
        assert resume.returncode == 2 and "--clear" in resume.stderr, resume.stderr  # the e-stop needs a clear
        resume = hanoibot("resume", "--journal", str(journal), "--plain", "--clear", "--port", port, timeout_s=BOUND_S)
        assert resume.returncode == 0, resume.stderr
        assert "board CCC" in resume.stdout
        home = hanoibot("home", "--clear", "--port", port, timeout_s=BOUND_S)
        assert home.returncode == 0, home.stderr
        assert bad_events(emulator.events()) == []


@pytest.mark.slow
def test_a_run_whose_board_is_taken_over_stops_in_fault_within_a_bound(tmp_path: Path) -> None:
    with EmulatorProcess("--speed", "5", "--board", "AAA", "--seed", "2") as emulator:
        run = start_run(emulator.port_path, tmp_path / "run.journal")
        other = os.open(emulator.port_path, os.O_RDWR | os.O_NOCTTY)  # a program that ignores the lock
        try:
            os.write(other, protocol.encode(protocol.SYNC, 12345, 0, ["intruder"]))
            _, err = run.communicate(timeout=STOP_BOUND_S)
        finally:
            os.close(other)
            run.kill()
            run.wait(timeout=BOUND_S)
        assert run.returncode == 1, err
        assert "run stopped by a fault after" in err and "another program started its own session" in err, err
        assert bad_events(emulator.events()) == []
