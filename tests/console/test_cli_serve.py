"""``hanoibot serve`` on the command line: bad input is one line and exit code 2, nothing listens."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest


def serve(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hanoibot", "serve", *options], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--http-port", "http"], "--http-port 'http'"),
        (["--http-port", "70000"], "--http-port 70000"),
        (["--config", "/nonexistent/robot.toml"], "/nonexistent/robot.toml"),
        (["--journal-dir", "/nonexistent/runs"], "--journal-dir '/nonexistent/runs'"),
    ],
)
def test_bad_option_is_one_line_and_exit_2(options: list[str], named: str) -> None:
    result = serve(*options)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], result.stderr


def test_a_taken_http_port_is_one_line_and_exit_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = serve("--http-port", str(port))
    assert result.returncode == 2
    assert f"127.0.0.1:{port}" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_help_shows_examples() -> None:
    result = serve("--help")
    assert result.returncode == 0 and "hanoibot serve --open" in result.stdout and "--bind" in result.stdout
