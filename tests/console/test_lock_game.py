"""The page's lock (/api/lock): presses made by the lock's one set of rules, the same random lock as the CLI's
for a seed, the exact search's count of presses left, and bad requests answered with one message."""

from __future__ import annotations

import io
import itertools
import sys
from collections.abc import Iterator

import pytest
from hanoibot.cli import main
from hanoibot.console.app import ConsoleSettings, make_app
from hanoibot.console.lock_game import lock_answer
from hanoibot.planner.lock import fewest_presses, strategy
from hanoibot.puzzle.lock import READINGS, Lock, random_lock
from starlette.testclient import TestClient


@pytest.fixture
def client() -> Iterator[TestClient]:
    base, page_header = "http://127.0.0.1:8765", {"x-hanoibot-request": "1"}  # the page's Host and header
    with TestClient(make_app(ConsoleSettings()), base_url=base, headers=page_header) as test_client:
        yield test_client


def test_every_press_on_the_page_is_the_locks_own_press() -> None:
    for pegs in itertools.product(range(3), repeat=4):
        lock = Lock(pegs)
        text = lock.colours()
        for first, second in itertools.product(range(1, 5), repeat=2):
            pressed = lock.press(first)
            after = lock_answer({"lock": text, "split": None, "press": first})
            assert (after["lock"], after["split"]) == (pressed.colours(), pressed.split + 1)  # type: ignore[operator]
            again = lock_answer({"lock": after["lock"], "split": after["split"], "press": second})
            assert again["lock"] == pressed.press(second).colours() and again["split"] == first
            assert again["open"] == pressed.press(second).is_open


def test_a_seed_deals_the_same_lock_as_the_command_line() -> None:
    out = io.StringIO()
    saved = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.StringIO("q\n"), out
    try:
        main(["lock", "--length", "6", "--seed", "11"])
    finally:
        sys.stdin, sys.stdout = saved
    colour_line = next(line for line in out.getvalue().splitlines() if line.startswith("colour"))
    dealt = lock_answer({"length": 6, "seed": 11})
    assert colour_line.split()[1:-2] == list(dealt["lock"]) and dealt["seed"] == 11
    assert dealt["split"] is None and not dealt["open"]


def test_the_answer_counts_the_fewest_presses_left_and_suggests_their_first() -> None:
    lock = Lock.parse("RYGGR")
    best = fewest_presses(lock)
    answer = lock_answer({"lock": "RYGGR", "split": None})
    assert answer["fewest_left"] == len(best) and answer["hint"] == best[0]
    plan = strategy(lock)
    assert answer["strategy"] == {"presses": plan.presses, "first": plan.first_button, "colour": "red"}
    # follow the hints: every press takes one press off the exact count, and the lock opens
    state = {"lock": "RYGGR", "split": None}
    for left in range(len(best), 0, -1):
        answer = lock_answer(state)
        assert answer["fewest_left"] == left
        answer = lock_answer({**state, "press": answer["hint"]})
        state = {"lock": answer["lock"], "split": answer["split"]}
    assert answer["open"] and answer["fewest_left"] == 0 and answer["strategy"] is None


def test_a_long_lock_has_no_exact_count_and_suggests_the_strategys_first_press() -> None:
    answer = lock_answer({"length": 12, "seed": 5})
    plan = strategy(Lock.parse(answer["lock"]))
    assert answer["fewest_left"] is None and answer["hint"] == plan.first_button
    pressed = lock_answer({"lock": answer["lock"], "split": None, "press": 3})
    assert pressed["said"].startswith("button 3") and pressed["fewest_left"] is None
    # after the first press: the strategy from the split lock, its next press suggested
    after = strategy(Lock(tuple("RYG".index(c) for c in pressed["lock"]), 2))
    assert pressed["strategy"]["presses"] == after.presses and pressed["hint"] == next(after.buttons())


def test_a_press_that_changes_nothing_says_so() -> None:
    # split at 1: element 3 (disk 3) cannot move while disk 2 is on its own peg
    answer = lock_answer({"lock": "RYR", "split": 1, "press": 3})
    assert answer["lock"] == "RYR" and answer["said"] == "button 3: nothing changed"


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"lock": "RYXG", "split": None}, "colour 'X' at position 3"),
        ({"lock": "R", "split": None}, "lock 'R' has 1 elements"),
        ({"lock": 7}, "lock = 7 is invalid"),
        ({"lock": "RYG", "split": 4}, "split = 4 is invalid"),
        ({"lock": "RYG", "split": None, "press": 0}, "press = 0 is invalid"),
        ({"length": 1}, "length = 1 is invalid"),
        ({"length": 5, "seed": "abc"}, "seed = 'abc' is invalid"),
    ],
)
def test_bad_requests_are_refused_with_one_message_naming_the_value(
    client: TestClient, body: dict[str, object], named: str
) -> None:
    reply = client.post("/api/lock", json=body)
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert named in error and "\n" not in error


def test_the_chosen_reading_presses_and_searches_by_its_own_rules() -> None:
    backwards = READINGS["pinaev-backward"]
    answer = lock_answer({"lock": "RYGGR", "split": None, "rules": "pinaev-backward"})
    assert answer["rules"] == "pinaev-backward" and answer["readings"] == ["pinaev-forward", "pinaev-backward"]
    assert answer["fewest_left"] == len(fewest_presses(Lock.parse("RYGGR", backwards)))
    assert answer["fewest_left"] != lock_answer({"lock": "RYGGR", "split": None})["fewest_left"]
    # the split element steps red -> green under this reading (red -> yellow under the default)
    pressed = lock_answer({"lock": "RYG", "split": None, "press": 1, "rules": "pinaev-backward"})
    assert pressed["lock"] == "GYG" and pressed["rules"] == "pinaev-backward"
    assert lock_answer({"lock": "RYG", "split": None, "press": 1})["lock"] == "YYG"
    dealt = lock_answer({"length": 6, "seed": 11, "rules": "pinaev-backward"})
    assert dealt["lock"] == random_lock(6, 11, backwards).colours() and dealt["rules"] == "pinaev-backward"


def test_unknown_rules_are_refused_naming_them(client: TestClient) -> None:
    reply = client.post("/api/lock", json={"lock": "RYG", "split": None, "rules": "sideways"})
    assert reply.status_code == 400 and "rules = 'sideways' is invalid" in reply.json()["error"]
