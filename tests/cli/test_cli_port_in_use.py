"""A port held by another process: every command that talks to the board exits 2 with one line naming the holder
(``estop`` instead asks the holder, and says what to do when it does not answer)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hanoibot.cli import main

HOLD_PORT = """
import sys
from hanoibot.link.port_lock import PortLock
lock = PortLock(sys.argv[1])
lock.acquire()
print("held", flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def held_sim() -> Iterator[subprocess.Popen[str]]:
    """Another process holding ``sim://`` (it listens on the control socket but never answers)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_PORT, "sim://"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    yield holder
    holder.communicate("\n", timeout=20)


@pytest.mark.parametrize(
    "argv",
    [
        ["status"],
        ["home"],
        ["home", "--clear"],
        ["jog"],
        ["calibrate", "--output", "{tmp}/robot.toml"],
        ["run", "-n", "3", "--plain"],
        ["deploy"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_command_on_a_held_port_is_refused_naming_the_holder(
    argv: list[str], held_sim: subprocess.Popen[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([arg.format(tmp=tmp_path) for arg in argv] + ["--port", "sim://"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("hanoibot: error: port sim:// is in use by `python -c sim://`")
    assert f"(pid {held_sim.pid}); stop it first or run `hanoibot estop --port sim://`" in err
    assert not (tmp_path / "robot.toml").exists()


def test_estop_on_a_port_whose_holder_does_not_answer_says_what_to_do(
    held_sim: subprocess.Popen[str], capsys: pytest.CaptureFixture[str]
) -> None:
    began_s = time.monotonic()
    code = main(["estop", "--port", "sim://"])
    err = capsys.readouterr().err
    assert code == 1
    assert f"(pid {held_sim.pid}) did not answer within 3 s" in err and "press Ctrl-C in its terminal" in err
    assert time.monotonic() - began_s < 10.0
