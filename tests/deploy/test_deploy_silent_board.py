"""A board that falls silent in the middle of a copy ends ``deploy`` with one line, within a bound.

mpremote's own transport opens its port without a read timeout, so a board that stops answering halfway through
a raw-paste command (the next window never granted) would block the deployment for ever. Here the board is a
real pseudo-terminal whose far end answers the raw REPL and grants one small raw-paste window, then says nothing
more; the port is opened both by its /dev/pts path (mpremote reads such a port byte by byte, blocking) and by a
symlink to it (as ``hanoibot emulate --link`` serves one).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
import threading
import time
from pathlib import Path
from unittest import mock

import pytest
from hanoibot.deploy import board as deploy_board
from hanoibot.deploy.board import BoardFiles
from hanoibot.deploy.compiler import DeployError
from mpremote.transport_serial import SerialTransport as REAL_TRANSPORT

#: The raw-paste window the silent board grants once (bytes): smaller than any command mpremote sends to write.
WINDOW_BYTES = 16
#: The read bound under test (s), instead of deploy's 20 s.
READ_BOUND_S = 0.5


class SilentAfterOneWindow:
    """The far end of a pty: enters the raw REPL when asked, grants one raw-paste window, then answers nothing."""

    def __init__(self, master_fd: int) -> None:
        self.master_fd = master_fd
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        seen = b""
        granted = False
        while not self.stop.is_set():
            try:
                chunk = os.read(self.master_fd, 256)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            except OSError:
                return
            seen += chunk
            if b"\r\x01" in seen and not granted and b"\x05A\x01" not in seen:
                os.write(self.master_fd, b"raw REPL; CTRL-B to exit\r\n>")
                seen = b""
            elif b"\x05A\x01" in seen and not granted:
                os.write(self.master_fd, b"R\x01" + struct.pack("<H", WINDOW_BYTES))
                granted = True


@pytest.mark.parametrize("by_symlink", [False, True], ids=["pts-path", "symlink"])
def test_a_board_silent_mid_command_ends_the_copy_with_one_line_within_the_bound(
    by_symlink: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deploy_board, "READ_TIMEOUT_S", READ_BOUND_S)
    master_fd, slave_fd = os.openpty()
    os.set_blocking(master_fd, False)
    port = os.ttyname(slave_fd)
    if by_symlink:
        (tmp_path / "pico").symlink_to(port)
        port = str(tmp_path / "pico")
    board = SilentAfterOneWindow(master_fd)
    outcome: list[BaseException | None] = []

    def copy() -> None:
        try:
            with BoardFiles(port, fresh_boot=False) as files, files.answering():
                files.write("hanoifw/motion.mpy", b"M\x06\x00\x1f" + bytes(200))
            outcome.append(None)
        except BaseException as err:  # the test reports whatever ended the copy
            outcome.append(err)

    worker = threading.Thread(target=copy, daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(timeout=30 * READ_BOUND_S)
    took_s = time.monotonic() - started
    board.stop.set()
    for fd in (slave_fd, master_fd):
        with contextlib.suppress(OSError):
            os.close(fd)
    assert not worker.is_alive(), "the copy still waits on a silent board"
    (err,) = outcome
    assert isinstance(err, DeployError), repr(err)
    assert "stopped answering during the copy" in str(err) and "\n" not in str(err)
    assert took_s < 20 * READ_BOUND_S


def test_deploy_starts_again_from_the_reset_once_when_the_board_stops_answering_mid_copy(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from hanoibot.cli import main
    from hanoibot.ops import deploy_check
    from mpremote import transport_serial
    from mpremote.transport import TransportError

    sessions: list[dict[str, bytes]] = []

    def transport(_port: str, **_options: object) -> mock.NonCallableMagicMock:
        files: dict[str, bytes] = {}
        sessions.append(files)
        fake = mock.create_autospec(REAL_TRANSPORT, instance=True)
        fake.in_raw_repl = True
        fake.eval.return_value = ("micropython", "1.27.0", 6 | 3 << 8, "Raspberry Pi Pico with RP2040", "v1.27.0")
        silent = len(sessions) == 2  # the first copy (on the fresh boot after the first reset) goes silent

        def write(path: str, data: bytes, chunk_size: int = 256, progress_callback: object = None) -> None:
            if silent and path.endswith("main.py"):
                raise TransportError("unexpected read during raw paste: b''")
            files[path] = data

        fake.fs_writefile.side_effect = write
        fake.fs_exists.side_effect = lambda path: path in files
        fake.fs_hashfile.side_effect = lambda path, algo, chunk_size=256: hashlib.new(algo, files[path]).digest()
        return fake

    monkeypatch.setattr(transport_serial, "SerialTransport", transport)
    monkeypatch.setattr(deploy_check, "hello_boot_id", lambda _port: "b00710d5")
    monkeypatch.setattr(deploy_board.time, "sleep", lambda _s: None)
    assert main(["deploy", "--port", "/dev/fake-pico"]) == 0
    out = capsys.readouterr().out
    assert "the board stopped answering during the copy; starting again from its reset (2 of 2)" in out
    assert "main.py" in sessions[-1] and "done: the firmware is running (boot id b00710d5)" in out


def test_deploy_gives_up_with_one_line_when_the_board_stops_answering_twice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from hanoibot.cli import main
    from mpremote import transport_serial
    from mpremote.transport import TransportError

    def transport(_port: str, **_options: object) -> mock.NonCallableMagicMock:
        fake = mock.create_autospec(REAL_TRANSPORT, instance=True)
        fake.in_raw_repl = True
        fake.eval.return_value = ("micropython", "1.27.0", 6 | 3 << 8, "Raspberry Pi Pico with RP2040", "v1.27.0")
        fake.fs_exists.return_value = False
        fake.fs_writefile.side_effect = TransportError("unexpected read during raw paste: b''")
        return fake

    monkeypatch.setattr(transport_serial, "SerialTransport", transport)
    monkeypatch.setattr(deploy_board.time, "sleep", lambda _s: None)
    assert main(["deploy", "--port", "/dev/fake-pico"]) == 2
    captured = capsys.readouterr()
    assert captured.out.count("starting again from its reset") == 1
    assert captured.err.count("\n") == 1 and "stopped answering during the copy" in captured.err
