"""``hanoibot render``: text boards for every move, or an animated SVG file; bad input is one line, exit 2."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hanoibot.cli import main

SVG = "{http://www.w3.org/2000/svg}"


def test_text_shows_the_start_and_every_move_ending_on_the_last_peg(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", "-n", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("start AA\n")
    assert [line for line in out.splitlines() if line.startswith("move ")] == [
        "move 1 of 3: 1 A B",
        "move 2 of 3: 2 A C",
        "move 3 of 3: 1 B C",
    ]
    last_board = out.rstrip().split("\n\n")[-1].splitlines()
    c_column = last_board[-1].index("C")
    assert [line[c_column] for line in last_board[1:-2] if len(line) > c_column] == ["|", "1", "2"]


def test_out_writes_an_animated_svg_with_the_arm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "run.svg"
    assert main(["render", "-n", "3", "--limit", "2", "--out", str(target), "--frame-s", "0.25"]) == 0
    assert capsys.readouterr().out == f"wrote 2 of 7 moves to {target}\n"
    root = ET.parse(target).getroot()
    frames = root.findall(f"{SVG}g")
    assert len(frames) > 2 * 8  # at least eight planned motions per move, plus the start
    assert all(frame.find(f"{SVG}polyline") is not None for frame in frames)
    assert {a.get("dur") for a in root.iter(f"{SVG}animate")} == {f"{len(frames) * 0.25:g}s"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-n", "3", "--frame-s", "soon"], "--frame-s 'soon' is not valid"),
        (["-n", "3", "--frame-s", "0"], "--frame-s '0' is not valid"),
        (["-n", "3", "--limit", "0"], "--limit 0 is too small"),
        (["-n", "3", "--out", "/no/such/dir/run.svg"], "--out '/no/such/dir/run.svg': directory '/no/such/dir'"),
        (["-n", "3", "--pegs", "4", "--out", "/no/such/dir/four.svg"], "the board has 3 pegs but the state has 4"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["render", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_limit_beyond_any_index_draws_the_whole_plan(capsys: pytest.CaptureFixture[str]) -> None:
    # islice() refuses a stop above sys.maxsize; --limit 10**20 used to end in a ValueError traceback.
    assert main(["render", "-n", "2", "--limit", "1" + "0" * 20]) == 0
    assert capsys.readouterr().out.count("\nmove ") == 3


def test_text_boards_still_check_the_config_they_are_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Without --out the config is not needed, yet a missing or broken --config used to be ignored silently.
    assert main(["render", "-n", "2", "--config", str(tmp_path / "missing.toml")]) == 2
    err = capsys.readouterr().err
    assert "missing.toml" in err and err.count("\n") == 1
