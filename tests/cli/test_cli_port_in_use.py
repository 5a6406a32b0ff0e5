"""A port held by another process: every command that talks to the board exits 2 with one line naming the holder
(``estop`` instead asks the holder, and says what to do when it does not answer). ``sim://`` is no such port:
each process has a simulated board of its own, and ``estop --port sim://`` asks every process that runs one."""

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
from hanoibot.ops.ports import offer_port_schemes
offer_port_schemes()  # this holder composes a program that opens sim:// and vpico://, as the CLI does
lock = PortLock(sys.argv[1])
lock.acquire()
print("held", flush=True)
sys.stdin.readline()
"""


def hold(port: str) -> Iterator[subprocess.Popen[str]]:
    """Another process holding ``port`` (it listens on the control socket but never answers)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_PORT, port], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    yield holder
    holder.communicate("\n", timeout=20)


@pytest.fixture
def device(tmp_path: Path) -> Path:
    """A serial device's path (a plain file: nothing gets past the port's lock)."""
    path = tmp_path / "ttyACM0"
    path.touch()
    return path


@pytest.fixture
def held_device(device: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the device."""
    yield from hold(str(device))


@pytest.fixture
def held_sim() -> Iterator[subprocess.Popen[str]]:
    """Another process running a simulated board of its own on ``sim://``."""
    yield from hold("sim://")


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
    argv: list[str],
    device: Path,
    held_device: subprocess.Popen[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main([arg.format(tmp=tmp_path) for arg in argv] + ["--port", str(device)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith(f"hanoibot: error: port {device} is in use by `python -c {device}`")
    assert f"(pid {held_device.pid}); stop it first or run `hanoibot estop --port {device}`" in err
    assert not (tmp_path / "robot.toml").exists()


def test_a_run_on_sim_runs_while_another_process_runs_a_simulated_board(
    held_sim: subprocess.Popen[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "-n", "2", "--plain", "--port", "sim://"])  # e.g. while `hanoibot serve` is connected
    out, err = capsys.readouterr()
    assert code == 0 and "done: 3 of 3 moves" in out, out + err


def test_estop_on_a_port_whose_holder_does_not_answer_says_what_to_do(
    held_sim: subprocess.Popen[str], capsys: pytest.CaptureFixture[str]
) -> None:
    began_s = time.monotonic()
    code = main(["estop", "--port", "sim://"])
    err = capsys.readouterr().err
    assert code == 1
    assert f"(pid {held_sim.pid}) did not answer within 3 s" in err and "press Ctrl-C in its terminal" in err
    assert time.monotonic() - began_s < 10.0
