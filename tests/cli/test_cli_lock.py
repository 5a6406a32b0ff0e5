"""``hanoibot lock``: a game played from stdin, --solve, and bad input (exit 2, one line)."""

from __future__ import annotations

import io
import sys

import pytest
from hanoibot.cli import main
from hanoibot.planner.lock import fewest_presses
from hanoibot.puzzle.lock import Lock


def run_cli(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
    try:
        code = main(list(argv))
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return code, out.getvalue(), err.getvalue()


def test_playing_the_fewest_presses_opens_the_lock() -> None:
    best = fewest_presses(Lock.parse("RYGGR"))
    code, out, _ = run_cli("lock", "--lock", "RYGGR", stdin="".join(f"{b}\n" for b in best))
    assert code == 0
    assert f"open after {len(best)} presses (fewest possible: {len(best)})" in out


def test_giving_up_exits_1_and_bad_buttons_are_asked_again() -> None:
    code, out, _ = run_cli("lock", "--lock", "RYG", stdin="7\nseven\n2\nq\n")
    assert code == 1
    assert "no button '7'" in out and "no button 'seven'" in out
    assert "still locked after 1 presses" in out


def test_random_lock_from_a_seed_is_the_same_each_time() -> None:
    first = run_cli("lock", "--length", "6", "--seed", "11", stdin="q\n")[1]
    assert first == run_cli("lock", "--length", "6", "--seed", "11", stdin="q\n")[1]
    assert "lock seed 11" in first


def test_solve_prints_exact_and_strategy_counts() -> None:
    code, out, _ = run_cli("lock", "--lock", "RYGGR", "--solve")
    assert code == 0
    best = fewest_presses(Lock.parse("RYGGR"))
    assert f"fewest presses: {len(best)} (exact search), first press {best[0]}" in out
    assert "strategy: " in out


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--lock", "RYXG"], "colour 'X'"),
        (["--lock", "RYGB"], "colour 'B' at position 4"),
        (["--lock", "R"], "lock 'R' has 1 elements"),
        (["--length", "1"], "--length 1"),
        (["--length", "99"], "--length 99"),
        (["--lock", "RYG", "--seed", "3"], "--lock RYG"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], named: str) -> None:
    code, out, err = run_cli("lock", *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and named in err


class Terminal(io.StringIO):
    """Output that says it is a terminal, as a console window does."""

    def isatty(self) -> bool:
        return True


def test_on_a_terminal_each_element_is_shown_on_its_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")  # a colour terminal, whatever the test runner's is
    for name in ("NO_COLOR", "FORCE_COLOR", "COLORTERM"):
        monkeypatch.delenv(name, raising=False)
    out = Terminal()
    saved = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.StringIO("q\n"), out
    try:
        assert main(["lock", "--lock", "RYG"]) == 1
    finally:
        sys.stdin, sys.stdout = saved
    text = out.getvalue()
    # ANSI background colours: 41 red, 43 yellow, 42 green, in the elements' order
    cells = ("41m R\x1b", "43m Y\x1b", "42m G\x1b")
    assert all(cell in text for cell in cells), repr(text)
    assert text.index(cells[0]) < text.index(cells[1]) < text.index(cells[2])


def mirrored(colours: str) -> str:
    """The lock with red and green swapped: stepping backwards (R -> G -> Y) on it is stepping forwards here."""
    return colours.translate(str.maketrans("RG", "GR"))


@pytest.mark.parametrize("colours", ["RYGGR", "RRYG", "YGRRYG"])
def test_rules_pinaev_backward_solves_the_lock_as_the_mirrored_lock_forwards(colours: str) -> None:
    code, out, _ = run_cli("lock", "--lock", colours, "--rules", "pinaev-backward", "--solve")
    assert code == 0 and "rules pinaev-backward" in out
    # an oracle outside the backward code: R <-> G mirrors the colour wheel, so the backward reading of a lock
    # needs as many presses as the forward reading of its mirror image
    forward = fewest_presses(Lock.parse(mirrored(colours)))
    assert f"fewest presses: {len(forward)} (exact search)" in out
    code, default_out, _ = run_cli("lock", "--lock", colours, "--solve")
    assert code == 0 and "rules pinaev-forward" in default_out


def test_the_two_readings_differ_and_a_random_backward_lock_says_how_to_replay_it() -> None:
    counts = {
        rules: run_cli("lock", "--lock", "RYGGR", "--rules", rules, "--solve")[1].splitlines()[1]
        for rules in ("pinaev-forward", "pinaev-backward")
    }
    assert counts["pinaev-forward"] != counts["pinaev-backward"]
    out = run_cli("lock", "--length", "5", "--seed", "3", "--rules", "pinaev-backward", stdin="q\n")[1]
    assert "hanoibot lock --length 5 --seed 3 --rules pinaev-backward replays it" in out


def test_unknown_rules_are_one_line_and_exit_2() -> None:
    code, out, err = run_cli("lock", "--lock", "RYG", "--rules", "sideways", "--solve")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "'sideways'" in err and "pinaev-forward, pinaev-backward" in err
