"""The lock's text picture: buttons over colours, the towers once split, and what a press did."""

from __future__ import annotations

from hanoibot.puzzle.lock import Lock
from hanoibot.render.lock_view import describe_press, lock_lines


def test_lines_show_buttons_colours_and_towers() -> None:
    lock = Lock.parse("RYGGR").press(3)
    button, colour, tower = lock_lines(lock, 1)
    assert button.split()[1:] == ["1", "2", "3", "4", "5"]
    assert colour.split()[1:6] == list("RYRGR") and colour.endswith("presses 1")
    assert tower.split()[1:6] == ["3", "2", "(1)", "2", "3"] and tower.endswith("split at 3")


def test_colour_lines_are_rich_markup_per_element() -> None:
    _, colour = lock_lines(Lock.parse("RG"), 0, colour=True)
    assert "[bold white on red] R[/]" in colour and "[bold white on green] G[/]" in colour


def test_describe_press() -> None:
    lock = Lock.parse("RYG")
    after = lock.press(1)
    assert describe_press(lock, after, 1) == "button 1 (split: towers 1..1 and 1..3): red -> yellow"
    assert describe_press(after, after.press(2), 2) == "button 2: nothing changed"  # disk 1 sits on it
    assert describe_press(after, after.press(3), 3) == "button 3: green -> red"
