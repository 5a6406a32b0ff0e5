"""One process owns a port: the lock file (who holds it, stale locks, where it lives) and the control socket."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hanoibot.errors import PortBusy
from hanoibot.link.control import CLOSED, ESTOPPED, ControlServer, ask_estop
from hanoibot.link.port_lock import PortLock, in_process_holders, lock_path, port_key, read_holder, runtime_dir

HOLD_PORT = """
import sys
from hanoibot.link.port_lock import PortLock
from hanoibot.ops.ports import offer_port_schemes
offer_port_schemes()  # this holder composes a program that opens sim:// and vpico://, as the CLI does
lock = PortLock(sys.argv[1])
lock.acquire()
print("held", flush=True)
sys.stdin.readline()
lock.release()
"""


def hold_in_other_process(url: str) -> subprocess.Popen[str]:
    """A process that holds ``url``'s lock until its stdin closes (or it is killed)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_PORT, url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_second_process_is_refused_with_the_holder_named() -> None:
    holder = hold_in_other_process("vpico://?attach=/tmp/pico.sock")
    try:
        with pytest.raises(PortBusy) as refused:
            PortLock("vpico://?attach=/tmp/pico.sock&seed=3").acquire()  # the same port with other options
        message = str(refused.value)
        assert f"pid {holder.pid}" in message
        assert "`python -c 'vpico://?attach=/tmp/pico.sock'` (pid" in message  # its command line
        assert message.startswith("port vpico:// is in use by `python -c")
        assert "hanoibot estop --port vpico://`" in message
        assert "\n" not in message
    finally:
        holder.communicate("\n", timeout=20)
    with PortLock("vpico://?attach=/tmp/pico.sock") as lock:  # let go when the holder ended
        assert lock.is_held


def test_a_lock_left_by_a_killed_process_is_taken_over_silently(tmp_path: Path) -> None:
    device = tmp_path / "ttyACM0"
    device.touch()
    holder = hold_in_other_process(str(device))
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=20)
    left = read_holder(lock_path(str(device)))
    assert left is not None and left.pid == holder.pid  # the dead holder's record is still there
    with PortLock(str(device)):
        now = read_holder(lock_path(str(device)))
        assert now is not None and now.pid == os.getpid()


def test_a_simulated_board_in_another_process_is_its_own_never_refused_and_estop_finds_it() -> None:
    holder = hold_in_other_process("sim://")  # e.g. `hanoibot serve` after Connect
    try:
        with PortLock("sim://?seed=3") as lock:  # this process's own simulated board
            assert lock.is_held
            found = in_process_holders("sim://")
            assert [h.pid for h in found] == [holder.pid] and found[0].control, found  # not this process itself
    finally:
        holder.communicate("\n", timeout=20)
    assert in_process_holders("sim://") == []  # it let go
    assert not list(lock_path("sim://").parent.glob("*-pid*.lock")), "each process's file goes with it"


def test_sessions_of_one_process_share_the_claim_and_the_last_one_lets_go() -> None:
    first, second = PortLock("sim://"), PortLock("sim://?flip=1e-2")
    first.acquire()
    second.acquire()
    first.release()
    assert read_holder(first.path) is not None
    second.release()
    assert read_holder(first.path) is None
    assert not first.control_path.exists()


def test_port_names_are_normalised(tmp_path: Path) -> None:
    device = tmp_path / "ttyACM0"
    device.touch()
    alias = tmp_path / "by-id"
    alias.symlink_to(device)
    assert lock_path(str(alias)) == lock_path(str(device))
    assert port_key("SIM://?seed=1") == port_key("sim://") == "sim://"
    assert lock_path("sim://") != lock_path("vpico://")


def test_locks_live_in_a_private_runtime_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert runtime_dir() == tmp_path / "hanoibot"
    assert lock_path("sim://").parent == tmp_path / "hanoibot"
    assert stat.S_IMODE((tmp_path / "hanoibot").stat().st_mode) == 0o700
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    assert runtime_dir() == tmp_path / "tmp" / f"hanoibot-{os.getuid()}"


def test_the_control_socket_answers_an_estop_request_once_confirmed(tmp_path: Path) -> None:
    answers: list[str | None] = []
    with ControlServer(tmp_path / "c.sock") as server:
        client = threading.Thread(target=lambda: answers.append(ask_estop(str(server.path), 5.0)))
        client.start()
        deadline_s = time.monotonic() + 5.0
        while not server.take_estop_requests() and time.monotonic() < deadline_s:
            time.sleep(0.01)
        assert server.is_waiting
        server.answer(ESTOPPED)
        client.join(timeout=10)
    assert answers == [ESTOPPED]


def test_a_holder_that_lets_go_answers_closed(tmp_path: Path) -> None:
    answers: list[str | None] = []
    server = ControlServer(tmp_path / "c.sock")
    client = threading.Thread(target=lambda: answers.append(ask_estop(str(server.path), 5.0)))
    client.start()
    deadline_s = time.monotonic() + 5.0
    while not server.take_estop_requests() and time.monotonic() < deadline_s:
        time.sleep(0.01)
    server.close()
    client.join(timeout=10)
    assert answers == [CLOSED]
    assert not server.path.exists()


def test_asking_a_holder_that_never_answers_gives_up_in_time(tmp_path: Path) -> None:
    with ControlServer(tmp_path / "c.sock") as server:
        began_s = time.monotonic()
        assert ask_estop(str(server.path), 0.5) is None  # nobody polls the socket
        assert time.monotonic() - began_s < 3.0
    assert ask_estop(str(tmp_path / "nobody.sock"), 0.5) is None
