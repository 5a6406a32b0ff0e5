"""Every row of README's "When something goes wrong" table rehearsed on ``sim://``, each command run as printed.

A run is ended the row's way on the simulated arm (a missed pick, the board's e-stop button, Ctrl-C at the pause
prompt with nobody to answer, the host killed, the board reset), journaled by default into the test's state
folder; then each sequence of the row's "run next" commands is run exactly as the README prints it (``STATE``
replaced by where the journal last saw the disks) and must succeed: ``home`` homes, ``resume`` finishes the run
(its journal ends ``done``). The simulated board of the stopped run died with it, so each command starts a new one
(``resume`` and ``home --clear`` with the disks where the journal last saw them). The latched COLLISION/DROP and
POWER_LOST rows are not rehearsed here: the simulator cannot be made to latch those on cue.
"""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_runner import HANOIBOT, ctrl_c_after_move
from hanoibot.cli import main
from hanoibot.ops.journals import list_runs
from hanoibot.ops.resume import last_known_state
from hanoibot.run.journal import load_journal
from hanoibot.run.runner import plan_from_spec

README = Path(__file__).resolve().parents[2] / "README.md"
#: Each rehearsed row (its first words in the README), and the command sequences its "run next" cell offers.
ROWS: dict[str, list[list[str]]] = {
    "fault (exit 1): missed pick": [["hanoibot home", "hanoibot run --from STATE"], ["hanoibot resume"]],
    "e-stop (exit 1;": [["hanoibot resume --clear"], ["hanoibot home --clear", "hanoibot resume"]],
    "stopped at the pause prompt": [["hanoibot resume"], ["hanoibot home"]],
    "host killed or cable pulled": [["hanoibot resume"], ["hanoibot home"]],
    "board reset (power glitch": [["hanoibot resume --board STATE"]],
}
#: Longest the killed row's run may take to journal its first move, in s (wall clock: the run is paced).
KILL_WAIT_S = 30.0


def readme_row(start: str) -> str:
    """The "run next" cell of the README table row that starts with ``start``."""
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"| {start}"):
            return line.rstrip(" |").rsplit(" | ", 1)[1]
    raise AssertionError(f"README has no recovery table row starting {start!r}")


def end_by_fault(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The run is told the disks are on A, but disk 1 is on C: its first pick misses (exit 1)."""
    assert main(["run", "--from", "AAA", "--to", "C", "--port", "sim://?board=CAA", "--plain"]) == 1


def end_by_estop(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's e-stop latches after the second move (as its button would)."""
    from hanoibot.cli_support import run_view
    from hanoibot.sim.board import SimBoard

    boards: list[Any] = []
    made = SimBoard.__init__

    def remember(self: Any, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        boards.append(self)

    original = run_view.RunView.move_done

    def estop_after_two(self: Any, k: int, move: Any, state: Any) -> None:
        original(self, k, move, state)
        if k == 2:
            boards[-1].controller.estop()

    with monkeypatch.context() as patch:
        patch.setattr(SimBoard, "__init__", remember)
        patch.setattr(run_view.RunView, "move_done", estop_after_two)
        assert main(["run", "-n", "3", "--plain"]) == 1


def end_by_ctrl_c(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C after the second move; nobody answers the pause prompt (exit 130)."""
    with monkeypatch.context() as patch:
        ctrl_c_after_move(patch, 2)
        assert main(["run", "-n", "3", "--plain"]) == 130


def end_by_kill(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A paced run in its own process, killed (SIGKILL) once its journal has a move done."""
    run = subprocess.Popen(
        [*HANOIBOT, "run", "-n", "3", "--plain", "--port", "sim://?realtime=1"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline_s = time.monotonic() + KILL_WAIT_S
    try:
        while not (list_runs() and list_runs()[0].moves_done >= 1):
            assert run.poll() is None, run.communicate()[1]
            assert time.monotonic() < deadline_s, "the run journaled no move in time"
            time.sleep(0.05)
    finally:
        run.send_signal(signal.SIGKILL)
        run.communicate()
    assert run.returncode == -signal.SIGKILL


def end_by_reset(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulated board resets itself mid-run (exit 1)."""
    assert main(["run", "-n", "3", "--plain", "--port", "sim://?reset_after=150"]) == 1


ENDINGS: dict[str, Callable[[pytest.CaptureFixture[str], pytest.MonkeyPatch], None]] = {
    "fault (exit 1): missed pick": end_by_fault,
    "e-stop (exit 1;": end_by_estop,
    "stopped at the pause prompt": end_by_ctrl_c,
    "host killed or cable pulled": end_by_kill,
    "board reset (power glitch": end_by_reset,
}
CASES = [(row, n) for row, sequences in ROWS.items() for n in range(len(sequences))]


@pytest.mark.parametrize(("row", "n"), CASES)
def test_a_row_of_the_recovery_table_works_on_sim_as_printed(
    row: str, n: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cell = readme_row(row)
    sequence = ROWS[row][n]
    for command in sequence:
        assert f"`{command}`" in cell, f"README's row {row!r} no longer says `{command}`: {cell}"
    ENDINGS[row](capsys, monkeypatch)
    capsys.readouterr()
    (stopped,) = list_runs()
    assert stopped.is_stopped, stopped
    log = load_journal(stopped.path)
    state = last_known_state(log, plan_from_spec(log.plan_spec)).to_string()
    for command in sequence:
        argv = [state if word == "STATE" else word for word in shlex.split(command)[1:]]
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, f"{command}: exit {code}: {err}"
        if argv[0] == "home":
            assert "the arm is at its start pose" in out, out
        if argv[0] in ("resume", "run"):
            assert re.search(r"^done: (\d+) of \1 moves, board CCC$", out, re.MULTILINE), out
    if sequence[-1].startswith("hanoibot resume"):
        assert load_journal(stopped.path).end_status == "done"
