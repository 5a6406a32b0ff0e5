"""``hanoibot serve`` on the command line: bad input is one line and exit code 2, nothing listens."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from typing import Any
from urllib.parse import urlsplit

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


def interface_ipv4_addresses() -> set[str]:
    """Every IPv4 address of this machine as ``ip`` lists it (an oracle independent of hanoibot's own listing)."""
    listed = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True, check=True).stdout
    return {line.split()[3].split("/")[0] for line in listed.splitlines()}


def opens(url: str) -> bool:
    """True when the console page opens at ``url`` as a browser would (following the redirect, keeping cookies)."""
    import http.cookiejar
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with opener.open(url, timeout=10) as response:
        return response.status == 200 and "hanoibot console" in response.read().decode()


def test_bind_any_prints_one_url_per_interface_address(console_factory: Any) -> None:
    console = console_factory("--bind", "0.0.0.0")
    lines = [console.first_line]
    while len(lines) < 20:
        line = console.process.stdout.readline()
        if not line or line.startswith("bound off localhost"):
            break
        lines.append(line)
    urls = [re.search(r"http://\S+", line).group(0) for line in lines]  # type: ignore[union-attr]
    hosts = [urlsplit(url).hostname for url in urls]
    assert "0.0.0.0" not in hosts and len(hosts) == len(set(hosts))
    assert set(hosts) == interface_ipv4_addresses()
    assert all("?token=" in url for url in urls)
    for url in urls:
        assert opens(url), url


def raw_answer(port: int, request: bytes, *, then_send: bytes = b"", repeat: int = 0) -> tuple[bytes, int]:
    """The status line and headers the console at ``port`` answers to the raw HTTP ``request``, after sending
    ``then_send`` up to ``repeat`` times more unless the server answers (or closes) first; and how many times
    ``then_send`` went out."""
    import select

    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        sent = 0
        for _ in range(repeat):
            if select.select([conn], [], [], 0.0)[0]:
                break
            try:
                conn.sendall(then_send)
            except OSError:  # the server closed while we were still sending
                break
            sent += 1
        conn.settimeout(10)
        while b"\r\n\r\n" not in answer:
            chunk = conn.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer, sent


def test_the_running_server_refuses_foreign_hosts_and_large_bodies(console: Any) -> None:
    port = urlsplit(console.url).port
    upgrade = (
        b"GET /ws HTTP/1.1\r\nHost: %s\r\nOrigin: http://%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    foreign = b"attacker.example:%d" % port
    assert raw_answer(port, upgrade % (foreign, foreign))[0].startswith(b"HTTP/1.1 400")
    own = b"127.0.0.1:%d" % port
    assert raw_answer(port, upgrade % (own, own))[0].startswith(b"HTTP/1.1 101")
    assert raw_answer(port, b"GET / HTTP/1.1\r\nHost: %s\r\n\r\n" % foreign)[0].startswith(b"HTTP/1.1 400")
    post = b"POST /api/plan HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nX-Hanoibot-Request: 1\r\n" % own
    declared, _ = raw_answer(port, post + b"Content-Length: 200000000\r\n\r\n{")
    assert declared.startswith(b"HTTP/1.1 413")
    # 200 MB streamed in 64 KiB chunks: the answer comes (and the stream is cut) long before the end
    chunk = b"10000\r\n" + b" " * 0x10000 + b"\r\n"
    streamed, sent = raw_answer(port, post + b"Transfer-Encoding: chunked\r\n\r\n", then_send=chunk, repeat=3200)
    assert streamed.startswith(b"HTTP/1.1 413") and sent < 3200, sent


def test_the_readme_console_section_shows_estop_and_the_way_back_with_its_pictures() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    section = readme.split("## The browser console")[1].split("\n## ")[0]
    pictures = re.findall(r"!\[[^\]]*\]\((docs/[^)]+\.png)\)", section)
    assert "docs/console-estop.png" in pictures
    for picture in pictures:
        assert (root / picture).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", picture
    for words in ("**E-STOP**", "Escape", "**Clear** releases the latch", "**Home**", "**Resume**"):
        assert words in section, words


def test_the_running_server_bounds_websocket_messages_and_keeps_serving(console: Any) -> None:
    """A 100 kB message closes that socket (1009, message too big) before it is read whole; a 5000-character one
    and a nested one get error replies; the console keeps serving new connections."""
    import json

    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    host = urlsplit(console.url).netloc
    with connect(f"ws://{host}/ws", origin=f"http://{host}", compression=None, proxy=None) as ws:  # type: ignore[arg-type]
        ws.send("[" * 50_000 + "]" * 50_000)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    with connect(f"ws://{host}/ws", origin=f"http://{host}", compression=None, proxy=None) as ws:  # type: ignore[arg-type]
        replies = []
        for text in ("x" * 5000, "[" * 2000 + "]" * 2000):
            ws.send(text)
            while not (replies and replies[-1]["type"] == "error"):
                replies.append(json.loads(ws.recv(timeout=10)))
            replies.append({"type": "next"})
        errors = [r["message"] for r in replies if r["type"] == "error"]
        assert "expected at most 4096" in errors[0] and "nested 2000 levels" in errors[1], errors
