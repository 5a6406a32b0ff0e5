"""``hanoibot count``: the exact number alone, and bad input as one line with exit code 2."""

from __future__ import annotations

import pytest
from hanoibot.cli import main


def test_64_disks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "-n", "64"]) == 0
    assert capsys.readouterr().out == "18446744073709551615\n"


@pytest.mark.parametrize("n", [1, 2, 10, 100, 1000])
def test_counts_are_mersenne_numbers(n: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "-n", str(n)]) == 0
    assert int(capsys.readouterr().out) == 2**n - 1  # OEIS A000225


def test_a_shuffled_start_counts_the_optimum_found_by_a_full_sweep(capsys: pytest.CaptureFixture[str]) -> None:
    from hanoibot.planner.general.search import distances_from, make_codec
    from hanoibot.puzzle import Rules, State

    start = State.parse("A:8,7,6,5,4,3,1,2", pegs=4)
    goal = State.tower(8, 3, 4)
    oracle = distances_from(start, Rules(4))[make_codec(8, Rules(4), [start]).encode(goal)]
    assert main(["count", "--from", "A:8,7,6,5,4,3,1,2", "--pegs", "4"]) == 0
    out, err = capsys.readouterr()
    assert int(out) == oracle and err == ""


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--from", "A:12,11,10,9,8,7,6,5,4,3,1,2", "--pegs", "4", "--max-states", "1000"], "an upper bound"),
        (["-n", "12", "--rules", "big-on-top"], "an upper bound"),
        (["-n", "20", "--pegs", "5"], "conjectured optimal"),
    ],
)
def test_a_number_not_proven_optimal_says_so(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    assert main(["count", *argv]) == 0
    out, err = capsys.readouterr()
    assert out.strip().isdigit()
    assert err.startswith(f"hanoibot: note: {out.strip()} is ") and words in err and err.count("\n") == 1


def test_towers_given_as_states(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "--from", "CCCC", "--to", "B"]) == 0
    assert capsys.readouterr().out == "15\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-n", "0"], "-n 0 is too small"),
        (["-n", "two"], "-n 'two' is not a whole number"),
        (["-n", "3", "--from", "AXA"], "unknown peg 'X'"),
        (["-n", "3", "--from", "AAAA"], "has 4 disks but 3 were asked for"),
        (["-n", "3", "--from", "C", "--to", "C"], "the start CCC already is the goal CCC"),
        (["-n", "3", "--to", "A"], "already is the goal AAA"),
        (["-n", "3", "--rules", "linear", "--to", "A"], "already is the goal AAA"),
        (["-n", "3", "--pegs", "4", "--to", "A"], "already is the goal AAA"),
        (["-n", "3", "--pegs", "4", "--from", "D"], "the start DDD already is the goal (the tower on D)"),
        (["--from", "A:2,2/B:1/C:"], "disk 2 appears more than once"),
        (["-n", "3", "--to", "A:/B:2,3/C:1"], "is unreachable from AAA"),
        (["-n", "12", "--rules", "cyclic", "--from", "ABCABCABCABC", "--max-states", "500"], "more than 500 states"),
        (
            ["--rules", "linear", "--from", "A:9,8,7,6,5,4,3,1,2/B:/C:", "--to", "C", "--max-states", "500"],
            "only under --rules classic",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["count", "--help"])
    assert exit_info.value.code == 0
    assert "hanoibot count -n 64" in capsys.readouterr().out


def test_counts_with_more_digits_than_pythons_default_str_limit(capsys: pytest.CaptureFixture[str]) -> None:
    # 2**20000 - 1 has 6021 digits, past CPython's default 4300-digit int->str limit.
    assert main(["count", "-n", "20000"]) == 0
    assert capsys.readouterr().out.strip() == str((1 << 20000) - 1)
