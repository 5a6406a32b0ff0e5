"""The recovery matrix: however a run ends, the next command finishes within a bound and nothing collides.

Rows are the ways a run ends on an emulated board (``hanoibot emulate`` behind a pty, in another process): done,
fault (the board's disks are not where the run was told: the first pick misses), stopped at the pause prompt
(Ctrl-C with nobody to answer), Ctrl-C twice in a row, e-stopped mid-move by ``hanoibot estop`` from a second
process (the run holds the port and latches the e-stop itself), and the host killed mid-move (SIGKILL). Columns
are the command run next. Each command must exit within :data:`BOUND_S` with an expected code (0, except
``home`` or ``resume`` without ``--clear`` after an e-stop: exit 2 with the line that names ``--clear``, nothing
moving; ``resume --clear`` then goes on), and the emulator's log must show no COLLISION or DROP after the row's
run ended. ``run`` and ``resume`` are checked
where the disks are known (done, fault) or the journal knows them (resume after a stop, an e-stop or a kill).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hanoibot.sim.spawn import EmulatorProcess

#: Longest any next command may take, in seconds (servos at 20x speed; a real arm needs a few times more).
BOUND_S = 40.0
#: Servo speed factor of the emulated board.
SPEED = "20"
ROWS = ("done", "fault", "stopped", "ctrl-c twice", "estopped", "killed")
COLUMNS = ("status", "home", "home --clear", "estop", "run", "resume")
#: Where the disks are after each row, for ``run``; after a stop or a kill only the journal knows (``resume``).
KNOWN_BOARD = {"done": "CCC", "fault": "CAA"}
CELLS = [(row, column) for row in ROWS for column in COLUMNS if column != "run" or row in KNOWN_BOARD]


def hanoibot(*argv: str, timeout_s: float = BOUND_S) -> subprocess.CompletedProcess[str]:
    """Run ``hanoibot`` in a new process; fails the test (TimeoutExpired) past ``timeout_s``."""
    return subprocess.run(
        [sys.executable, "-m", "hanoibot", *argv],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        stdin=subprocess.DEVNULL,
    )


def end_run(row: str, port: str, journal: Path) -> None:
    """Play a 3-disk run on ``port`` with ``journal`` and end it the way ``row`` says."""
    argv = [sys.executable, "-m", "hanoibot", "run", "-n", "3", "--plain", "--port", port, "--journal", str(journal)]
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    if row in ("stopped", "ctrl-c twice", "estopped", "killed"):
        wait_for_moves_sent(journal, 2)
        time.sleep(0.3)  # mid-move
    if row == "ctrl-c twice":
        process.send_signal(signal.SIGINT)
        time.sleep(0.1)
        process.send_signal(signal.SIGINT)
    elif row == "estopped":
        estop = hanoibot("estop", "--port", port)
        assert estop.returncode == 0 and f"(pid {process.pid}) stopped the arm" in estop.stdout, estop
    elif row in ("stopped", "killed"):
        process.send_signal(signal.SIGINT if row == "stopped" else signal.SIGKILL)
    process.communicate(timeout=BOUND_S)
    expected = {"done": 0, "fault": 1, "stopped": 130, "ctrl-c twice": 130, "estopped": 1, "killed": -signal.SIGKILL}
    assert process.returncode == expected[row], row


def wait_for_moves_sent(journal: Path, count: int) -> None:
    """Wait (at most :data:`BOUND_S`) until the journal records ``count`` moves sent to the board."""
    deadline_s = time.monotonic() + BOUND_S
    while time.monotonic() < deadline_s:
        if journal.exists() and journal.read_text().count('"type":"send"') >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"the run did not send {count} moves within {BOUND_S} s")


def executed(emulator: EmulatorProcess, after: int) -> list[int]:
    """Command ids the board executed after its first ``after`` log events."""
    return [int(str(event["cmd_id"])) for event in emulator.events()[after:] if event.get("event") == "executed"]


def bad_events(emulator: EmulatorProcess, after: int) -> list[dict[str, object]]:
    """COLLISION and DROP faults the board latched after its first ``after`` log events."""
    return [
        event
        for event in emulator.events()[after:]
        if event.get("event") == "fault" and event.get("fault") in ("COLLISION", "DROP")
    ]


@pytest.mark.slow
@pytest.mark.parametrize(("row", "column"), CELLS)
def test_every_way_a_run_ends_leaves_a_board_the_next_command_can_use(row: str, column: str, tmp_path: Path) -> None:
    board = "CAA" if row == "fault" else "AAA"
    journal = tmp_path / "run.journal"
    with EmulatorProcess("--speed", SPEED, "--board", board, "--seed", "1") as emulator:
        end_run(row, emulator.port_path, journal)
        seen = len(emulator.events())
        port = ["--port", emulator.port_path]
        if column == "run":
            result = hanoibot("run", "--plain", "--from", KNOWN_BOARD[row], "--to", "A", *port)
            assert result.returncode == 0, result.stderr
        elif (row, column) == ("estopped", "resume"):
            # An e-stop is released only when asked to: resume refuses (nothing moves), resume --clear goes on.
            result = hanoibot("resume", "--journal", str(journal), "--plain", *port)
            assert result.returncode == 2 and "--clear" in result.stderr, result.stderr
            assert executed(emulator, seen) == [], "resume moved the arm before the e-stop was released"
            result = hanoibot("resume", "--journal", str(journal), "--plain", "--clear", *port)
            assert result.returncode == 0, result.stderr
        elif column == "resume":
            result = hanoibot("resume", "--journal", str(journal), "--plain", *port)
            if row == "fault":
                assert result.returncode in (0, 1), result.stderr  # the disks still are not where the plan says
            else:
                assert result.returncode == 0, result.stderr
        elif (row, column) == ("estopped", "home"):
            result = hanoibot(*column.split(), "--journal", str(journal), *port)
            assert result.returncode == 2 and "hanoibot home --clear" in result.stderr, result.stderr
        elif column.startswith("home"):
            # The journal tells home which disk a stopped run left in the gripper, so it can put it down first.
            result = hanoibot(*column.split(), "--journal", str(journal), *port)
            assert result.returncode == 0, result.stderr
        else:
            result = hanoibot(*column.split(), *port)
            assert result.returncode == 0, result.stderr
        assert bad_events(emulator, seen) == [], json.dumps(bad_events(emulator, seen))
