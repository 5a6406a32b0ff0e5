"""axe-core (node_modules/axe-core, injected into the page) finds no serious or critical accessibility violation in
any state of the console: at start, with a suggestion, during a solve, with the arm connected, in the lock panel,
on a phone with a large board, with E-STOP hovered and with E-STOP focused from the keyboard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_browser_play import new_puzzle

# In a real browser each: in `make test` and CI, not in the fast `make check` loop.
pytestmark = pytest.mark.slow

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
#: The impacts that fail the test (axe's scale: minor, moderate, serious, critical).
FAILING_IMPACTS = ("serious", "critical")


def serious_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations of impact serious or critical on the page as it is now (id, impact, first nodes)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations.map(v => ({
            id: v.id, impact: v.impact,
            nodes: v.nodes.slice(0, 4).map(n => n.target.join(' ') + ': ' + n.failureSummary)}))"""
    )
    return [v for v in found if v["impact"] in FAILING_IMPACTS]


def at_start(page: Any) -> None:
    new_puzzle(page, disks=4)


def with_a_suggestion(page: Any) -> None:
    new_puzzle(page, disks=4)
    page.click("#suggest")
    page.wait_for_selector("#suggestion[data-disk]")


def during_a_solve(page: Any) -> None:
    new_puzzle(page, disks=4)
    page.select_option("#solve-speed", "750")
    page.click("#solve")
    page.wait_for_function("() => document.getElementById('move-count').textContent === '1'")
    page.wait_for_selector("#play-board [data-peg=moving]")


def with_the_arm_connected(page: Any) -> None:
    page.click("#r-connect")
    page.wait_for_selector("body[data-robot-phase=idle]", timeout=90_000)
    page.locator("#robot").scroll_into_view_if_needed()


def in_the_lock_panel(page: Any) -> None:
    page.locator("#lock").scroll_into_view_if_needed()
    page.click("#lock-suggest")
    page.wait_for_selector("#lock-row .lock-element.suggested")
    page.click("#lock-row .lock-element.suggested")
    page.wait_for_function("() => document.getElementById('lock-presses').textContent === '1'")


def on_a_phone_with_a_large_board(page: Any) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    new_puzzle(page, disks=12, pegs=8)


def estop_hovered(page: Any) -> None:
    page.hover("#estop")


def estop_focused(page: Any) -> None:
    page.locator("#estop").focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("() => document.activeElement.matches('#estop:focus-visible')")


@pytest.mark.parametrize(
    "state",
    [at_start, with_a_suggestion, during_a_solve, with_the_arm_connected, in_the_lock_panel,
     on_a_phone_with_a_large_board, estop_hovered, estop_focused],
    ids=lambda state: state.__name__,
)  # fmt: skip
def test_no_serious_accessibility_violation(page: Any, state: Any) -> None:
    assert AXE.is_file(), f"{AXE} is missing: the shared node_modules should hold axe-core"
    state(page)
    assert serious_violations(page) == []
