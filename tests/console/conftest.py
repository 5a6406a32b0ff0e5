"""Fixtures of the browser tests: a ``hanoibot serve`` process and Debian's Chromium driven by Playwright.

Playwright's own browser download cannot work on the project's machines: the tests drive the system Chromium
(``tools/ensure_chromium.sh`` installs it; ``HANOIBOT_CHROMIUM`` may name another executable). When it is missing
the tests fail (never skip) so CI cannot pass without them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Longest wait for the server to print its URL, in s.
SERVER_START_S = 20.0


def chromium_path() -> str:
    """The system Chromium executable; fails the test with the command that installs it when there is none."""
    named = os.environ.get("HANOIBOT_CHROMIUM")
    found = named or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.fail("Chromium is not installed: run `sh tools/ensure_chromium.sh` (or `make setup`)")
    return found


class Console:
    """A running ``hanoibot serve`` process and the URL it printed."""

    def __init__(self, *options: str) -> None:
        command = [sys.executable, "-m", "hanoibot", "serve", "--http-port", "0", *options]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.first_line = line = self._first_line()
        match = re.search(r"(http://\S+)", line)
        if match is None:
            self.close()
            pytest.fail(f"hanoibot serve printed {line!r} instead of its URL")
        self.url = match.group(1)

    def _first_line(self) -> str:
        import selectors

        assert self.process.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=SERVER_START_S):
            self.close()
            pytest.fail(f"hanoibot serve printed no URL within {SERVER_START_S} s")
        return self.process.stdout.readline()

    def close(self) -> None:
        """Stop the server (Ctrl-C, then kill after a bound)."""
        if self.process.poll() is None:
            self.process.send_signal(2)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture
def console_factory() -> Iterator[type[Console]]:
    """Start consoles with options; every one is stopped after the test."""
    started: list[Console] = []

    def start(*options: str) -> Console:
        console = Console(*options)
        started.append(console)
        return console

    yield start  # type: ignore[misc]
    for console in started:
        console.close()


@pytest.fixture
def console(console_factory: type[Console]) -> Console:
    """A console on 127.0.0.1 with the simulated arm, servos 4x faster than real."""
    return console_factory("--port", "sim://?speed=4")


@pytest.fixture
def screenshot_path(tmp_path: Path) -> Callable[[str], Path]:
    """Where a test saves a screenshot: docs/ with HANOIBOT_UPDATE_SCREENSHOTS=1 (the README's pictures), else a
    temporary folder, so an ordinary test run leaves the work tree as it was."""
    folder = DOCS if os.environ.get("HANOIBOT_UPDATE_SCREENSHOTS") == "1" else tmp_path
    return lambda name: folder / name


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's Chromium, headless, through Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object, console: Console) -> Iterator[object]:
    """A browser tab on the console, once the page says it is ready."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
    tab = context.new_page()
    tab.goto(console.url)
    tab.wait_for_selector("body[data-ready=true]", timeout=15_000)
    yield tab
    context.close()
