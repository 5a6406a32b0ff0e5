"""The deployment itself: which files go where, compile, copy, verify, reset, wait for HELLO.

Layout on the board (what ``main.py`` imports): ``/main.py`` and ``/board_config.py`` stay source (the user edits
them; MicroPython runs only ``main.py`` at boot), every ``hanoifw/*.py`` becomes ``/hanoifw/<name>.mpy``. A
``hanoifw/<name>.py`` left from a source copy is removed, because MicroPython imports ``.py`` before ``.mpy``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from ..errors import ConfigError, HanoiError
from ..firmware_source import FirmwareSource
from .board import BoardFiles, BoardInfo
from .compiler import SUPPORTED, DeployError, MpyVersion, compile_to_mpy

#: Firmware files copied as source, at the board's root.
SOURCE_FILES = ("board_config.py", "main.py")
PACKAGE = "hanoifw"


class FirmwareFile(NamedTuple):
    """One file to put on the board: ``source`` on this machine, ``board_path`` there, ``compile`` to .mpy."""

    source: Path
    board_path: str
    compile: bool


def firmware_files(firmware: Path | FirmwareSource) -> list[FirmwareFile]:
    """The files of the firmware ``firmware`` (a folder holding main.py, board_config.py and hanoifw/, or a
    :class:`~hanoibot.firmware_source.FirmwareSource`), in copy order: the package first, main.py last (so a
    half-finished copy never boots a new main.py on an old package)."""
    if isinstance(firmware, Path):
        try:
            firmware = FirmwareSource.from_folder(firmware)
        except ConfigError as err:
            raise DeployError(str(err)) from None
    files = [FirmwareFile(path, f"{PACKAGE}/{path.stem}.mpy", True) for path in firmware.modules()]
    sources = {"board_config.py": firmware.board_config_py, "main.py": firmware.main_py}
    return files + [FirmwareFile(sources[name], name, False) for name in SOURCE_FILES]


def check_supported(info: BoardInfo, port: str) -> MpyVersion:
    """The board's .mpy version; DeployError when it reports none (MicroPython 1.20+ always does)."""
    if info.mpy is None:
        raise DeployError(
            f"the board on {port} runs MicroPython {info.micropython} without .mpy support: "
            f"hanoibot deploy supports {SUPPORTED}"
        )
    return info.mpy


def build(files: list[FirmwareFile], compiler: Path, out_dir: Path) -> list[bytes]:
    """The bytes to write for each file: .mpy from ``compiler`` (written under ``out_dir``) or the source as is."""
    blobs = []
    for item in files:
        if item.compile:
            blobs.append(compile_to_mpy(compiler, item.source, out_dir / Path(item.board_path).name, item.board_path))
        else:
            blobs.append(item.source.read_bytes())
    return blobs


def copy_and_verify(
    board: BoardFiles, files: list[FirmwareFile], blobs: list[bytes], say: Callable[[str], None]
) -> None:
    """Write every file, then check each by its SHA-256 on the board; remove stale ``hanoifw/*.py`` sources."""
    with board.answering():
        board.make_dir(PACKAGE)
        for number, (item, data) in enumerate(zip(files, blobs, strict=True), start=1):
            say(f"copying {number}/{len(files)}: {item.board_path} ({len(data)} bytes)")
            board.write(item.board_path, data)
            if item.compile and board.remove_if_present(f"{PACKAGE}/{Path(item.board_path).stem}.py"):
                say(f"  removed the old source {PACKAGE}/{Path(item.board_path).stem}.py (it would shadow the .mpy)")
        say("checking every file on the board by its SHA-256")
        for item, data in zip(files, blobs, strict=True):
            board.verify(item.board_path, data)


def wait_for_hello(port: str, timeout_s: float, open_session: Callable[[str], str]) -> str:
    """Open ``port`` until the board answers HELLO (``open_session`` returns its boot id) or ``timeout_s`` passes."""
    deadline = time.monotonic() + timeout_s
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            return open_session(port)
        except HanoiError as err:  # rebooting: the port may be gone, or the board still importing
            last = err
            time.sleep(0.5)
    raise DeployError(
        f"the board on {port} did not answer HELLO within {timeout_s:g} s after the reset ({last}): "
        f"see its traceback with `mpremote connect {port} repl` and press Ctrl-D"
    )
