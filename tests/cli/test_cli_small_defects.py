"""Small defects a first hour met, each pinned: a huge text render refused, an existing output file never replaced
unless ``--force``, no doubled colon in a solve header."""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.cli import main


def test_a_text_render_of_a_huge_tower_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", "-n", "100000"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "-n 100000" in err and "100 disks" in err


def test_render_draws_up_to_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", "-n", "100", "--limit", "1"]) == 0
    assert capsys.readouterr().out.count("\n") < 300


@pytest.mark.parametrize(
    "argv",
    [["run", "-n", "2", "--plain", "--report", "{file}"], ["render", "-n", "2", "--out", "{file}"]],
    ids=["run --report", "render --out"],
)
def test_an_existing_output_file_is_refused_before_anything_runs(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "mine.txt"
    existing.write_text("keep me\n")
    assert main([arg.format(file=existing) for arg in argv]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "already exists" in err and "move" not in out
    assert existing.read_text() == "keep me\n"


def test_render_replaces_its_out_file_with_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    existing = tmp_path / "run.svg"
    existing.write_text("old\n")
    assert main(["render", "-n", "2", "--out", str(existing), "--force"]) == 0
    assert existing.read_text().startswith("<svg") or "<svg" in existing.read_text()


def test_a_header_never_doubles_a_colon(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--puzzle", "bicolor", "-n", "2"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.endswith("method search") and "/C: in 3 moves" in header and "::" not in header
