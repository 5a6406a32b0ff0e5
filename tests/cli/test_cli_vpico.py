"""Bad input for the virtual Pico ends in one line and exit code 2 before anything is emulated."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def hanoibot(*args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a child process (PATH replaced when ``path`` is given); bounded by a timeout."""
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", "hanoibot", *args], capture_output=True, text=True, timeout=60, env=env
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0]


def test_node_missing_is_one_line(tmp_path: Path) -> None:
    result = hanoibot("status", "--port", "vpico://", path=str(tmp_path))
    assert_one_line_error(result, "Node.js not found", "install Node")


@pytest.mark.parametrize(
    ("content", "words"),
    [(b"<html>not a firmware</html>", "is not a UF2 image"), (b"\0" * 1024, "block 0 has a bad magic number")],
    ids=["not-uf2", "bad-magic"],
)
def test_a_bad_uf2_is_one_line(tmp_path: Path, content: bytes, words: str) -> None:
    uf2 = tmp_path / "firmware.uf2"
    uf2.write_bytes(content)
    result = hanoibot("emulate", "--pico", "--uf2", str(uf2))
    assert_one_line_error(result, str(uf2), words)


def test_an_unknown_vpico_option_is_one_line() -> None:
    result = hanoibot("status", "--port", "vpico://?servo=servo2040")
    assert_one_line_error(result, "servo='servo2040'", "pwm, pca9685 or sts")


def test_wire_faults_are_refused_with_emulate_pico() -> None:
    result = hanoibot("emulate", "--pico", "--flip", "0.001")
    assert_one_line_error(result, "--flip", "vpico://")


def test_slow_is_refused_without_pico() -> None:
    result = hanoibot("emulate", "--slow", "6")
    assert_one_line_error(result, "--slow 6", "--pico")


def test_a_bad_slow_factor_is_one_line() -> None:
    result = hanoibot("emulate", "--pico", "--slow", "0.5")
    assert_one_line_error(result, "slow='0.5'", "at least 1")
