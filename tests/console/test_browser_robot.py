"""The Robot view in Chromium on the simulated arm: a run with live progress, E-stop, a read-only second tab."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# In a real browser (or a running arm) each: in `make test` and CI, not in the fast `make check` loop.
pytestmark = pytest.mark.slow

#: Longest wait for the simulated arm, in ms of wall time.
ARM_WAIT_MS = 90_000


def connect(page: Any) -> None:
    page.click("#r-connect")
    page.wait_for_selector("body[data-robot-phase=idle]", timeout=ARM_WAIT_MS)


def test_run_on_sim_completes_with_live_progress_reaching_n_of_n(
    page: Any, screenshot_path: Callable[[str], Path]
) -> None:
    page.select_option("#disks", "3")
    page.click("#new")
    page.wait_for_function("() => document.getElementById('position').textContent === 'AAA'")
    connect(page)
    page.evaluate(
        """() => { window.__progressSeen = new Set();
            new MutationObserver(() => window.__progressSeen.add(
                document.getElementById('robot-progress-text').textContent.split(' moves')[0]))
            .observe(document.getElementById('robot-progress-text'), {childList: true, subtree: true,
                                                                      characterData: true}); }"""
    )
    page.click("#r-run")
    page.wait_for_function(
        "() => document.getElementById('robot-progress-text').textContent.startsWith('3 of 7')", timeout=ARM_WAIT_MS
    )
    page.wait_for_function("() => /ETA/.test(document.getElementById('robot-progress-text').textContent)")
    page.locator("#robot").screenshot(path=str(screenshot_path("console-robot.png")))
    page.wait_for_function(
        "() => document.getElementById('robot-progress-text').textContent.startsWith('7 of 7')", timeout=ARM_WAIT_MS
    )
    seen = set(page.evaluate("() => [...window.__progressSeen]"))
    assert {"1 of 7", "2 of 7", "4 of 7", "5 of 7", "6 of 7", "7 of 7"} <= seen, seen
    page.wait_for_function("() => document.getElementById('robot-message').textContent.startsWith('done')")
    assert page.inner_text("#robot-board-text") == "CCC"
    assert page.locator("#robot-board polyline.arm").count() == 1


def test_estop_during_a_run_leaves_the_board_in_estop(page: Any, screenshot_path: Callable[[str], Path]) -> None:
    connect(page)
    page.click("#r-run")
    page.wait_for_function(
        "() => /^[1-9]\\d* of /.test(document.getElementById('robot-progress-text').textContent)",
        timeout=ARM_WAIT_MS,
    )
    page.keyboard.press("Escape")
    page.wait_for_function("() => document.getElementById('robot-mode').textContent === 'ESTOP'", timeout=10_000)
    assert "E-stop latched" in page.inner_text("#robot-faults")
    done = re.match(r"(\d+) of (\d+)", page.inner_text("#robot-progress-text"))
    assert done is not None and int(done.group(1)) < int(done.group(2))
    assert page.is_enabled("#r-clear")  # the way back: Clear, then Home
    page.wait_for_function("() => document.getElementById('robot-phase').textContent === 'e-stopped'")
    for button in ("#r-run", "#r-play-move", "#r-resume", "#r-home"):  # nothing moves until a Clear
        assert not page.is_enabled(button), button
    assert "hanoibot " not in page.inner_text("#robot-message")
    page.mouse.move(0, 0)
    page.screenshot(path=str(screenshot_path("console-estop.png")))  # the README's picture of a latched e-stop


def test_a_second_tab_is_read_only(page: Any) -> None:
    second = page.context.new_page()
    second.goto(page.url)
    second.wait_for_selector("body[data-ready=true]", timeout=15_000)
    second.wait_for_selector("body[data-role=watch]")
    assert "Read-only: tab 1" in second.inner_text("#role")
    for button in ("#r-connect", "#r-run", "#r-home", "#r-clear", "#r-stop"):
        assert not second.is_enabled(button), button
    assert second.is_enabled("#estop")
    reply = second.evaluate(
        """() => new Promise((resolve) => {
            const ws = new WebSocket(`ws://${location.host}/ws`);
            ws.onmessage = (ev) => { const m = JSON.parse(ev.data);
                if (m.type === 'role') ws.send(JSON.stringify({type: 'command', name: 'home'}));
                if (m.type === 'error') { resolve(m.message); ws.close(); } };
        })"""
    )
    assert "read-only" in reply
    page.wait_for_function(
        "() => /1 other tab watching|2 other tabs watching/.test(document.getElementById('role').textContent)"
    )
    assert page.inner_text("#role").startswith("You control the arm")
