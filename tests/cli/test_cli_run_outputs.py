"""Paths that `run` and `resume` write: distinct, ordinary, not empty, and checked before anything moves."""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.cli import main


def refuse_board(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the board is opened (every refusal must come before anything moves)."""
    import hanoibot.run.robot

    def no_board(*args: object, **kwargs: object) -> None:
        raise AssertionError("the board was opened although an option is bad")

    monkeypatch.setattr(hanoibot.run.robot.Robot, "open", no_board)


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> None:
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hanoibot: error: "), err
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_journal_and_report_on_one_path_is_refused_and_nothing_is_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refuse_board(monkeypatch)
    same = tmp_path / "out"
    one_line_error(capsys, ["run", "-n", "1", "--plain", "--journal", str(same), "--report", str(same)], str(same))
    assert not same.exists()


def test_report_onto_the_config_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hanoibot.config import default_config_path

    refuse_board(monkeypatch)
    config = tmp_path / "robot.toml"
    config.write_bytes(Path(default_config_path()).read_bytes())
    before = config.read_bytes()
    argv = ["run", "-n", "1", "--plain", "--config", str(config), "--report", str(config)]
    one_line_error(capsys, argv, "--report", "--config")
    assert config.read_bytes() == before


def test_resume_report_onto_its_journal_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    assert main(["run", "-n", "2", "--plain", "--journal", str(journal), "--port", "sim://?reset_after=30"]) == 1
    capsys.readouterr()
    before = journal.read_bytes()
    one_line_error(capsys, ["resume", "--journal", str(journal), "--report", str(journal), "--board", "AB"], "--report")
    assert journal.read_bytes() == before


@pytest.mark.parametrize(
    ("option", "value", "word"),
    [
        ("--report", "/dev/full", "regular file"),
        ("--report", "/sys/kernel/hanoibot.json", "sys"),
        ("--report", "/proc/self/hanoibot.json", "proc"),
        ("--report", "", "empty"),
        ("--journal", "", "empty"),
        ("--port", "", "empty"),
        ("--config", " ", "empty"),
    ],
)
def test_unusable_paths_and_empty_strings_are_refused_before_anything_moves(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, option: str, value: str, word: str
) -> None:
    refuse_board(monkeypatch)
    one_line_error(capsys, ["run", "-n", "1", "--plain", option, value], option, word)
