"""The Lock view and the 3-colour towers in Chromium: a lock dealt, shown in its colours, opened by clicking the
exact search's presses; a seed deals the CLI's lock; tricolor solved on the Play board in the fewest moves."""

from __future__ import annotations

from typing import Any

import pytest
from hanoibot.planner.colours import shortest_moves
from hanoibot.planner.lock import fewest_presses, strategy
from hanoibot.puzzle.colours import start_and_goal
from hanoibot.puzzle.lock import READINGS, Lock, random_lock

# In a real browser: in `make test` and CI, not in the fast `make check` loop.
pytestmark = pytest.mark.slow


def deal(page: Any, *, colours: str = "", length: int = 7, seed: str = "") -> str:
    """Deal a lock on the page (typed colours, else a random one of ``length`` from ``seed``); its colours."""
    page.select_option("#lock-length", str(length))
    page.fill("#lock-seed", seed)
    page.fill("#lock-colours", colours)
    before = page.inner_text("#lock-message")
    page.click("#lock-new")
    page.wait_for_function("text => document.getElementById('lock-message').textContent !== text", arg=before)
    return str(page.inner_text("#lock-state"))


def shown_colours(page: Any) -> list[str]:
    return list(
        page.evaluate("() => [...document.querySelectorAll('#lock-row .lock-element')].map(b => b.dataset.colour)")
    )


def press(page: Any, button: int) -> None:
    """Click a lock button and wait for the page to count the press."""
    count = int(page.inner_text("#lock-presses"))
    page.click(f"#lock-row [data-button='{button}']")
    page.wait_for_function("n => document.getElementById('lock-presses').textContent === String(n)", arg=count + 1)


def test_a_typed_lock_is_shown_in_its_colours_and_opens_with_the_fewest_presses(page: Any) -> None:
    assert deal(page, colours="RYGGR") == "RYGGR"
    assert shown_colours(page) == ["red", "yellow", "green", "green", "red"]
    best = fewest_presses(Lock.parse("RYGGR"))
    assert page.inner_text("#lock-fewest") == str(len(best))
    page.click("#lock-suggest")
    assert page.evaluate("() => document.getElementById('lock-message').dataset.hint") == str(best[0])
    assert page.locator(f"#lock-row [data-button='{best[0]}'].suggested").count() == 1
    lock = Lock.parse("RYGGR")
    for button in best:
        press(page, button)
        lock = lock.press(button)
        assert page.inner_text("#lock-state") == lock.colours()
    assert page.locator(f"#lock-row [data-button='{best[0]}'].split").count() == 1
    assert page.inner_text("#lock-message") == f"Open after {len(best)} presses."
    assert page.inner_text("#lock-fewest") == "0"
    assert page.locator("#lock-row .lock-element:disabled").count() == 5


def test_a_press_that_changes_nothing_is_counted_and_said(page: Any) -> None:
    deal(page, colours="RYR")
    press(page, 1)  # the split: red steps to yellow, disks 2 and 3 to the right
    press(page, 2)  # disk 2 is yellow under disk 1, now yellow too: it cannot move
    assert page.inner_text("#lock-state") == "YYR"
    assert page.inner_text("#lock-message") == "Button 2: nothing changed."
    assert page.inner_text("#lock-presses") == "2"
    page.click("#lock-restart")
    page.wait_for_function("() => document.getElementById('lock-presses').textContent === '0'")
    assert page.inner_text("#lock-state") == "RYR" and page.inner_text("#lock-split").startswith("not yet")


def test_a_seed_deals_the_lock_hanoibot_lock_deals_and_bad_input_is_named(page: Any) -> None:
    assert deal(page, length=9, seed="11") == random_lock(9, 11).colours()
    assert "hanoibot lock --length 9 --seed 11" in page.inner_text("#lock-message")
    assert page.inner_text("#lock-fewest").startswith("—")  # 9 elements: beyond the exact search
    deal(page, colours="RYXG")
    assert "colour 'X' at position 3" in page.inner_text("#lock-message")
    assert page.locator("#lock-message.bad").count() == 1


def test_tricolor_is_drawn_in_three_colours_and_solved_in_the_fewest_moves(page: Any) -> None:
    page.select_option("#disks", "2")
    page.select_option("#rules", "tricolor")
    page.click("#new")
    # numbered size first: disks 1-3 are size 1 red, green, blue; 4-6 size 2; red on A, green on B, blue on C
    page.wait_for_function("() => document.getElementById('position').textContent === 'ABCABC'")
    colours = page.evaluate(
        "() => [...document.querySelectorAll('#play-board rect.disk')].map(r => [r.dataset.disk, r.dataset.colour])"
    )
    assert sorted(colours) == [[str(d), ["red", "green", "blue"][(d - 1) % 3]] for d in range(1, 7)]
    optimum = len(shortest_moves(*start_and_goal("tricolor", 2)))
    page.wait_for_function("n => document.getElementById('moves-left').textContent === String(n)", arg=optimum)
    page.click("#solve")
    # the goal: red on B, green on C, blue on A
    page.wait_for_function("() => document.getElementById('position').textContent === 'BCABCA'", timeout=60_000)
    page.wait_for_function("() => document.getElementById('moves-left').textContent === '0'")
    assert page.inner_text("#move-count") == str(optimum)


def test_suggest_press_opens_a_lock_beyond_the_exact_search(page: Any) -> None:
    dealt = deal(page, length=9, seed="4")  # 9 elements: beyond the exact search, the strategy suggests
    plan = strategy(Lock.parse(dealt))
    assert page.inner_text("#lock-strategy").startswith(f"{plan.presses} presses (first press {plan.first_button},")
    for _ in range(plan.presses):
        page.click("#lock-suggest")
        hint = int(page.evaluate("() => document.getElementById('lock-message').dataset.hint"))
        press(page, hint)
    assert page.inner_text("#lock-message") == f"Open after {plan.presses} presses."


def test_the_other_reading_can_be_chosen_and_is_kept_for_every_press(page: Any) -> None:
    page.wait_for_function("() => document.querySelectorAll('#lock-rules option').length > 0")  # the first deal
    assert page.evaluate("() => [...document.querySelectorAll('#lock-rules option')].map(o => o.value)") == [
        "pinaev-forward",
        "pinaev-backward",
    ]
    page.select_option("#lock-rules", "pinaev-backward")
    assert deal(page, colours="RYGGR") == "RYGGR"
    backwards = READINGS["pinaev-backward"]
    best = fewest_presses(Lock.parse("RYGGR", backwards))
    assert page.inner_text("#lock-fewest") == str(len(best))
    assert len(best) != len(fewest_presses(Lock.parse("RYGGR")))
    lock = Lock.parse("RYGGR", backwards)
    for button in best:
        press(page, button)
        lock = lock.press(button)
        assert page.inner_text("#lock-state") == lock.colours()
    assert page.inner_text("#lock-message") == f"Open after {len(best)} presses."
    page.click("#lock-restart")
    page.wait_for_function("() => document.getElementById('lock-presses').textContent === '0'")
    press(page, 1)  # the split steps red -> green under this reading
    assert page.inner_text("#lock-state") == "GYGGR"
