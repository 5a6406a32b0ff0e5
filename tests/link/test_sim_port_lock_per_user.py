"""How ``sim://`` is locked: per user and per process. Each user's lock folder is their own, so two people's
simulations never meet; each process runs a simulated board of its own, so the same user's second ``sim://``
command is not refused, and its lock file still tells ``hanoibot estop --port sim://`` from another terminal
where to reach the first."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hanoibot.link.port_lock import PortLock, in_process_holders

#: A process that holds a sim:// port until its stdin closes: the simulation of someone else, or another terminal.
HOLD = (
    "import sys\nfrom hanoibot.link.port_lock import PortLock\nfrom hanoibot.ops.ports import offer_port_schemes\n"
    "offer_port_schemes()\nwith PortLock(sys.argv[1]):\n"
) + ("    print('held', flush=True)\n    sys.stdin.read()\n")


@pytest.fixture
def holder_of(tmp_path: Path) -> Iterator[object]:
    started: list[subprocess.Popen[str]] = []

    def hold(port: str, runtime_dir: Path) -> None:
        runtime_dir.mkdir(mode=0o700, exist_ok=True)
        env = {
            "XDG_RUNTIME_DIR": str(runtime_dir),
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        }
        process = subprocess.Popen(
            [sys.executable, "-c", HOLD, port], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        started.append(process)
        assert process.stdout is not None and process.stdout.readline().strip() == "held"

    yield hold
    for process in started:
        process.communicate("", timeout=20)


def test_another_users_sim_is_not_ours(holder_of, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    holder_of("sim://", tmp_path / "someone-else")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "me"))
    (tmp_path / "me").mkdir(mode=0o700)
    with PortLock("sim://"):
        pass  # not refused: their lock lives in their own folder


def test_the_same_users_sim_in_another_process_is_its_own_and_estop_finds_it(  # type: ignore[no-untyped-def]
    holder_of, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "me"
    holder_of("sim://", mine)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(mine))
    with PortLock("sim://"):  # a simulated board of this process: never refused
        assert len(in_process_holders("sim://")) == 1  # the other terminal's, which hanoibot estop reaches
