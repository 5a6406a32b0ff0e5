"""The board side without a board: an autospec of mpremote's SerialTransport whose filesystem is a dict; the hash
check refuses a corrupted copy, stale sources are removed, identity and HELLO waits are bounded and one-line."""

from __future__ import annotations

import hashlib
from pathlib import Path
from unittest import mock

import pytest
from hanoibot.deploy import board as deploy_board
from hanoibot.deploy.board import BoardFiles, BoardInfo, check_version_floor, parse_identity
from hanoibot.deploy.compiler import DeployError, MpyVersion
from hanoibot.deploy.steps import FirmwareFile, check_supported, copy_and_verify, files_to_deploy, wait_for_hello
from hanoibot.errors import PortError
from hanoibot.sim.vpico.flash import firmware_dir
from mpremote.transport import TransportError
from mpremote.transport_serial import SerialTransport


def fake_transport(files: dict[str, bytes], corrupt: str | None = None) -> mock.NonCallableMagicMock:
    """A SerialTransport double keeping ``files`` by board path; writes to ``corrupt`` land with one byte flipped."""
    transport = mock.create_autospec(SerialTransport, instance=True)
    transport.in_raw_repl = True

    def write(path: str, data: bytes, chunk_size: int = 256, progress_callback: object = None) -> None:
        stored = bytearray(data)
        if path == corrupt:
            stored[len(stored) // 2] ^= 0x01
        files[path] = bytes(stored)

    transport.fs_writefile.side_effect = write
    transport.fs_exists.side_effect = lambda path: path in files
    transport.fs_rmfile.side_effect = files.pop
    transport.fs_hashfile.side_effect = lambda path, algo, chunk_size=256: hashlib.new(algo, files[path]).digest()
    return transport


def open_board(transport: mock.NonCallableMagicMock) -> BoardFiles:
    return BoardFiles("/dev/fake", transport_factory=lambda _port: transport).__enter__()


def two_files(tmp_path: Path) -> tuple[list[FirmwareFile], list[bytes]]:
    files = [
        FirmwareFile(tmp_path / "motion.py", "hanoifw/motion.mpy", True),
        FirmwareFile(tmp_path / "main.py", "main.py", False),
    ]
    return files, [b"M\x06\x00\x1f" + bytes(range(64)), b"print('hello')\n"]


def test_a_faithful_copy_passes_and_a_stale_source_is_removed(tmp_path: Path) -> None:
    board_fs = {"hanoifw/motion.py": b"old source"}
    board = open_board(fake_transport(board_fs))
    files, blobs = two_files(tmp_path)
    said: list[str] = []
    copy_and_verify(board, files, blobs, said.append)
    assert board_fs == {"hanoifw/motion.mpy": blobs[0], "main.py": blobs[1]}
    assert any("removed the old source hanoifw/motion.py" in line for line in said)


def test_a_corrupted_copy_is_refused_naming_the_file(tmp_path: Path) -> None:
    board = open_board(fake_transport({}, corrupt="hanoifw/motion.mpy"))
    files, blobs = two_files(tmp_path)
    with pytest.raises(DeployError, match=r"hanoifw/motion\.mpy on the board differs") as caught:
        copy_and_verify(board, files, blobs, lambda _line: None)
    assert "\n" not in str(caught.value)


def test_a_port_that_cannot_be_opened_is_a_port_error() -> None:
    def no_port(port: str) -> SerialTransport:
        raise TransportError(f"failed to access {port}")

    with pytest.raises(PortError, match=r"cannot open port '/dev/none'"):
        BoardFiles("/dev/none", transport_factory=no_port).__enter__()


def test_a_board_without_a_raw_repl_is_named_and_the_port_closed() -> None:
    transport = fake_transport({})
    transport.in_raw_repl = False
    transport.enter_raw_repl.side_effect = TransportError("could not enter raw repl")
    with pytest.raises(DeployError, match=r"does not answer as MicroPython: .*hanoibot home --release"):
        BoardFiles("/dev/fake", transport_factory=lambda _port: transport).__enter__()
    transport.close.assert_called_once_with()


@pytest.mark.parametrize("raw", [("cpython", "3.11.4", None, "x86_64"), b"", None, ("micropython", "1.27.0")])
def test_an_answer_that_is_not_micropython_is_refused(raw: object) -> None:
    with pytest.raises(DeployError, match="not running MicroPython"):
        parse_identity(raw, "/dev/fake")


def test_identity_of_a_micropython_board() -> None:
    info = parse_identity(("micropython", "1.27.0", 6 | 3 << 8 | 4 << 10, "Raspberry Pi Pico with RP2040"), "p")
    assert info == BoardInfo("1.27.0", MpyVersion(6, 3), "Raspberry Pi Pico with RP2040")
    assert check_supported(info, "p") == MpyVersion(6, 3)


def test_a_board_without_mpy_support_is_refused() -> None:
    with pytest.raises(DeployError, match=r"MicroPython 1\.19\.1 without \.mpy support"):
        check_supported(BoardInfo("1.19.1", None, "ESP32"), "/dev/ttyUSB0")


def test_files_to_deploy_compile_the_package_and_copy_main_last() -> None:
    files = files_to_deploy(firmware_dir())
    package = sorted(p.stem for p in (firmware_dir() / "hanoifw").glob("*.py"))
    assert [f.board_path for f in files if f.compile] == [f"hanoifw/{name}.mpy" for name in package]
    assert [(f.board_path, f.compile) for f in files[-2:]] == [("board_config.py", False), ("main.py", False)]


def test_a_folder_that_is_not_the_firmware_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DeployError, match="is not the firmware folder"):
        files_to_deploy(tmp_path)


def test_hello_wait_retries_while_the_board_reboots() -> None:
    answers = iter([PortError("gone"), PortError("still gone"), "b00710d"])

    def open_session(_port: str) -> str:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert wait_for_hello("/dev/fake", 10.0, open_session) == "b00710d"


def test_hello_wait_is_bounded() -> None:
    def never(_port: str) -> str:
        raise PortError("no such port")

    with pytest.raises(DeployError, match=r"did not answer HELLO within 0\.2 s"):
        wait_for_hello("/dev/fake", 0.2, never)


def test_a_board_that_goes_away_mid_copy_is_one_line_saying_what_to_do(tmp_path: Path) -> None:
    transport = fake_transport({})
    transport.fs_writefile.side_effect = TransportError("could not read from the port")  # e.g. a watchdog reset
    files, blobs = two_files(tmp_path)
    with pytest.raises(DeployError, match=r"stopped answering during the copy .*run hanoibot deploy again") as caught:
        copy_and_verify(open_board(transport), files, blobs, lambda _line: None)
    assert "\n" not in str(caught.value)


def test_the_board_is_reset_first_and_the_copy_runs_on_its_fresh_boot() -> None:
    # A board that has run hanoibot has its hardware watchdog running: at the REPL it resets ~2 s later, mid-copy.
    calls: list[str] = []
    transports: list[mock.NonCallableMagicMock] = []

    def factory(_port: str) -> mock.NonCallableMagicMock:
        transport = fake_transport({})
        transport.enter_raw_repl.side_effect = lambda **kwargs: calls.append(f"raw REPL on boot {len(transports)}")
        transport.exec_raw_no_follow.side_effect = lambda code: calls.append(code)
        transport.close.side_effect = lambda: calls.append("close")
        transports.append(transport)
        return transport

    board = BoardFiles("/dev/fake", transport_factory=factory, sleep=lambda _s: None).__enter__()
    assert calls == ["raw REPL on boot 1", "import machine; machine.reset()", "close", "raw REPL on boot 2"]
    assert board._transport is transports[1], "the files go to the fresh boot"


def test_a_board_that_does_not_come_back_after_the_reset_is_one_line() -> None:
    opened: list[int] = []

    def factory(_port: str) -> mock.NonCallableMagicMock:
        opened.append(1)
        if len(opened) > 1:
            raise OSError("no such device")
        return fake_transport({})

    with pytest.raises(DeployError, match=r"did not come back within 10 s of its reset"):
        BoardFiles("/dev/fake", transport_factory=factory, sleep=lambda _s: None).__enter__()


@pytest.mark.parametrize(
    ("version", "machine"), [("1.25.0", "Generic ESP32 module with ESP32"), ("1.22.2", "ESP32C3 module with ESP32C3")]
)
def test_an_esp32_micropython_before_1_26_is_refused_naming_the_version(version: str, machine: str) -> None:
    with pytest.raises(DeployError, match=rf"MicroPython {version} on esp32 .*1\.26"):
        check_version_floor(BoardInfo(version, MpyVersion(6, 3), machine), "/dev/ttyUSB0")
    check_version_floor(BoardInfo("1.26.0", MpyVersion(6, 3), machine), "/dev/ttyUSB0")
    check_version_floor(BoardInfo("1.22.2", MpyVersion(6, 2), "Raspberry Pi Pico with RP2040"), "/dev/ttyACM0")


def test_an_esp32_1_26_preview_build_without_the_pwm_fix_is_refused_naming_its_build() -> None:
    machine = "Generic ESP32 module with ESP32"
    old = BoardInfo("1.26.0", MpyVersion(6, 3), machine, "v1.26.0-preview.114.gc310301f27 on 2025-02-19")
    with pytest.raises(DeployError, match=r"1\.26\.0-preview on esp32 \(build v1\.26\.0-preview\.114\.gc310301f27\)"):
        check_version_floor(old, "/dev/ttyUSB0")
    fixed = old._replace(build="v1.26.0-preview.115.g150a5aa3a1 on 2025-02-20")
    check_version_floor(fixed, "/dev/ttyUSB0")
    info = parse_identity(("micropython", "1.26.0", 6 | 3 << 8, machine, "v1.26.0 on 2025-08-09"), "p")
    assert info.build == "v1.26.0 on 2025-08-09"
    check_version_floor(info, "/dev/ttyUSB0")


def test_the_fresh_boot_is_asked_for_its_raw_repl_again_while_it_boots() -> None:
    # A board still booting after the reset (or whose USB came up after the first keys) answers a later ask.
    transports: list[mock.NonCallableMagicMock] = []
    asks: list[int] = []

    def factory(_port: str) -> mock.NonCallableMagicMock:
        transport = fake_transport({})
        if transports:  # the fresh boot: silent for the first ask

            def enter(**_kwargs: object) -> None:
                asks.append(1)
                if len(asks) == 1:
                    raise TransportError("could not enter raw repl")

            transport.enter_raw_repl.side_effect = enter
        transports.append(transport)
        return transport

    board = BoardFiles("/dev/fake", transport_factory=factory, sleep=lambda _s: None).__enter__()
    assert len(asks) == 2 and board._transport is transports[1]


def test_a_fresh_boot_that_never_gives_its_raw_repl_is_one_line_and_the_port_closed() -> None:
    transports: list[mock.NonCallableMagicMock] = []

    def factory(_port: str) -> mock.NonCallableMagicMock:
        transport = fake_transport({})
        if transports:
            transport.enter_raw_repl.side_effect = TransportError("could not enter raw repl")
        transports.append(transport)
        return transport

    with pytest.raises(DeployError, match=r"does not answer as MicroPython") as caught:
        BoardFiles("/dev/fake", transport_factory=factory, sleep=lambda _s: None).__enter__()
    assert "\n" not in str(caught.value)
    assert transports[1].enter_raw_repl.call_count == deploy_board.BOOT_RAW_REPL_TRIES
    transports[1].close.assert_called_once_with()
