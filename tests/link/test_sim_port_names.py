"""How ``sim://`` is locked: per user (each user's lock folder is their own) and per name (``sim://NAME`` is a
simulated board of its own), so simulations never refuse each other unless they are the same user's same board."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hanoibot.errors import ConfigError, PortBusy
from hanoibot.link.port_lock import PortLock
from hanoibot.link.urlhandler.protocol_sim import parse_sim_url
from hanoibot.run.robot import Robot

#: A process that holds a sim:// port until its stdin closes: the simulation of someone else, or another terminal.
HOLD = "import sys\nfrom hanoibot.link.port_lock import PortLock\nwith PortLock(sys.argv[1]):\n" + (
    "    print('held', flush=True)\n    sys.stdin.read()\n"
)


@pytest.fixture
def holder_of(tmp_path: Path) -> Iterator[object]:
    started: list[subprocess.Popen[str]] = []

    def hold(port: str, runtime_dir: Path) -> None:
        runtime_dir.mkdir(mode=0o700, exist_ok=True)
        env = {"XDG_RUNTIME_DIR": str(runtime_dir), "PATH": "/usr/bin:/bin"}
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


def test_a_named_sim_is_a_board_of_its_own(holder_of, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    mine = tmp_path / "me"
    holder_of("sim://", mine)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(mine))
    with pytest.raises(PortBusy, match=r"port sim:// is in use"):
        PortLock("sim://").acquire()  # the same user's same board: refused, naming the holder
    with Robot("sim://second?seed=3") as robot:
        robot.open()
        assert robot.session.status().mode in ("UNCONFIGURED", "IDLE")


def test_a_sim_name_is_checked() -> None:
    assert parse_sim_url("sim://second?seed=3") == {"seed": "3"}
    with pytest.raises(ConfigError, match=r"sim://\[NAME\]"):
        parse_sim_url("sim://two/words")
