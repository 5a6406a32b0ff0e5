"""A run waiting at its pause prompt keeps its link and its control socket served, against ``hanoibot emulate``.

The run's stdin is a real pty (so it asks, as at a terminal); Ctrl-C once (SIGINT) pauses it. While it waits for
the operator's answer, ``hanoibot estop`` from a second process must reach it over the control socket (not time
out and write to the device around it), the run must end e-stopped, and ``home --clear`` must recover; and an
answer given after longer than the link's silence bound must still let the run go on and finish. The emulator's
world is the judge (the board's mode, its executed commands, no collision or drop), and the run's report (no
host-silence fault recovered on the way).
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import HANOIBOT, hanoibot
from hanoibot.commands.run import PAUSE_QUESTION
from hanoibot.sim.spawn import EmulatorProcess

#: Longest any one command may take, in s (servos at 5x speed: a 3-disk run lasts ~20 s).
BOUND_S = 40.0
#: Longest ``hanoibot estop`` may take to be confirmed by the paused run, in s (it waits 3 s for an answer).
ESTOP_BOUND_S = 2.5
#: How long the operator thinks at the prompt before answering, in s: longer than the link's silence bound (1 s)
#: and many times the board's host watchdog (0.3 s).
THINK_S = 2.5
#: What the emulator's world logs when the arm finishes a command or moves a disk.
MOTION_EVENTS = ("executed", "pick", "place", "drop")


class PausedRun:
    """A 3-disk journaled ``hanoibot run`` on ``port`` whose stdin is a pty, paused by one Ctrl-C."""

    def __init__(self, port: str, journal: Path) -> None:
        self.terminal, child_end = pty.openpty()
        argv = [*HANOIBOT, "run", "-n", "3", "--plain", "--port", port, "--journal", str(journal)]
        self.report = journal.with_suffix(".report.json")
        self.process = subprocess.Popen(
            [*argv, "--report", str(self.report)], stdin=child_end, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        os.close(child_end)
        self.out = b""
        deadline_s = time.monotonic() + BOUND_S
        while not (journal.exists() and '"type":"send"' in journal.read_text()):
            assert self.process.poll() is None, self.process.communicate()
            assert time.monotonic() < deadline_s, "the run sent no move in time"
            time.sleep(0.05)
        self.process.send_signal(signal.SIGINT)
        self.read_until(PAUSE_QUESTION.encode())

    def read_until(self, text: bytes) -> None:
        """Read the run's stdout until ``text`` appears (fails the test past :data:`BOUND_S`)."""
        stdout = self.process.stdout
        assert stdout is not None
        deadline_s = time.monotonic() + BOUND_S
        while text not in self.out:
            left_s = deadline_s - time.monotonic()
            assert left_s > 0, f"no {text!r} from the run: {self.out!r}"
            ready, _, _ = select.select([stdout], [], [], left_s)
            chunk = os.read(stdout.fileno(), 4096) if ready else b""
            assert chunk or self.process.poll() is None, f"the run ended: {self.out!r}"
            self.out += chunk

    def answer(self, line: str) -> None:
        """Type ``line`` and Enter at the prompt."""
        os.write(self.terminal, line.encode() + b"\n")

    def finish(self) -> tuple[int, str]:
        """Wait for the run to end (the rest of its stdout goes to ``out``); its exit code and stderr."""
        out, err = self.process.communicate(timeout=BOUND_S)
        self.out += out
        return self.process.returncode, err.decode()

    def close(self) -> None:
        """Kill the run if it is still going, and close the pty."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate(timeout=BOUND_S)
        os.close(self.terminal)


@pytest.fixture
def emulator() -> Iterator[EmulatorProcess]:
    """``hanoibot emulate`` with servos at 5x speed and all three disks on A."""
    with EmulatorProcess("--speed", "5", "--board", "AAA", "--seed", "1") as process:
        yield process


def faults(events: list[dict[str, object]]) -> list[object]:
    """The faults the simulated world saw among ``events`` (a collision, a drop, ...)."""
    return [event.get("fault") for event in events if event.get("event") == "fault"]


@pytest.mark.slow
def test_estop_reaches_a_run_waiting_at_its_pause_prompt(emulator: EmulatorProcess, tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    port = emulator.port_path
    run = PausedRun(port, journal)
    try:
        time.sleep(THINK_S)  # the operator has not answered yet
        began_s = time.monotonic()
        stopped = hanoibot("estop", "--port", port, timeout_s=BOUND_S)
        took_s = time.monotonic() - began_s
        latched_at = len(emulator.events())
        code, err = run.finish()
    finally:
        run.close()
    assert stopped.returncode == 0, stopped.stderr
    assert f"(pid {run.process.pid}) stopped the arm" in stopped.stdout
    assert took_s < ESTOP_BOUND_S
    assert code == 1 and "run e-stopped after" in err, err
    assert "`hanoibot estop` from another process stopped the arm" in err
    assert json.loads(hanoibot("status", "--json", "--port", port, timeout_s=BOUND_S).stdout)["mode"] == "ESTOP"
    seen = len(emulator.events())
    assert [e for e in emulator.events()[latched_at:seen] if e.get("event") in MOTION_EVENTS] == []  # until Clear
    home = hanoibot("home", "--clear", "--journal", str(journal), "--port", port, timeout_s=BOUND_S)
    assert home.returncode == 0, home.stderr
    assert any(e.get("event") == "executed" for e in emulator.events()[seen:]), "home moved nothing"
    assert faults(emulator.events()) == []  # no collision or drop, before or after


@pytest.mark.slow
def test_a_run_answered_after_a_long_pause_goes_on_to_the_end(emulator: EmulatorProcess, tmp_path: Path) -> None:
    run = PausedRun(emulator.port_path, tmp_path / "run.journal")
    try:
        paused_at = len(emulator.events())
        time.sleep(THINK_S)
        run.answer("c")
        code, err = run.finish()
    finally:
        run.close()
    assert [e for e in emulator.events()[:paused_at] if e.get("event") in MOTION_EVENTS]  # it had moved
    assert code == 0, err
    assert b"done: 7 of 7 moves, board CCC" in run.out
    assert json.loads(run.report.read_text())["faults"] == []  # no HOST_LOST recovered: the watchdog never fired
    assert faults(emulator.events()) == []
