"""``hanoibot solve --puzzle bicolor|tricolor``: moves replay to the goal, and options that do not apply exit 2."""

from __future__ import annotations

import io
import json
import sys

import pytest
from hanoibot.cli import main
from hanoibot.puzzle import Move, peg_index
from hanoibot.puzzle.colours import COLOUR_LETTERS, start_and_goal


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(list(argv))
    finally:
        sys.stdout, sys.stderr = saved
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("puzzle", "sizes"), [("bicolor", 3), ("tricolor", 2), ("bicolor", 7)])
def test_plain_moves_replay_from_the_start_to_the_goal(puzzle: str, sizes: int) -> None:
    code, out, _ = run_cli("solve", "--puzzle", puzzle, "-n", str(sizes), "--format", "plain")
    assert code == 0
    state, goal = start_and_goal(puzzle, sizes)
    for line in out.splitlines():
        disk, src, dst = line.split()
        assert state.top(peg_index(src)) == (int(disk[:-1]), COLOUR_LETTERS.index(disk[-1]))
        state = state.apply(Move(int(disk[:-1]), peg_index(src), peg_index(dst)))
    assert state == goal


def test_json_header_says_how_the_plan_was_made() -> None:
    code, out, _ = run_cli("solve", "--puzzle", "tricolor", "-n", "2", "--format", "json", "--limit", "1")
    header, first = (json.loads(line) for line in out.splitlines())
    assert code == 0 and header["optimal"] is True and header["method"] == "search"
    assert first["k"] == 1 and first["colour"] in ("red", "green", "blue")


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--puzzle", "bicolor", "-n", "3", "--pegs", "4"], "does not take --pegs"),
        (["--puzzle", "bicolor", "-n", "3", "--from", "AAA"], "does not take --from"),
        (["--puzzle", "tricolor", "-n", "2", "--method", "turing"], "does not take --method"),
        (["--puzzle", "quad", "-n", "2"], "unknown puzzle 'quad'"),
        (["--puzzle", "bicolor"], "needs -n N"),
        (["--puzzle", "bicolor", "-n", "1"], "the start already is the goal"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], named: str) -> None:
    code, out, err = run_cli("solve", *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and named in err
