"""Default journals: one file per run in the state folder, named by port and time; the newest stopped run of a
port is found without flags; ``hanoibot runs`` lists them newest first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hanoibot.cli import main
from hanoibot.errors import JournalError
from hanoibot.ops.journals import journal_for, latest_stopped, list_runs, new_journal, runs_dir

T0 = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


def journaled(port: str, minutes: int, end: str | None) -> Path:
    """A journal of a 3-move run on ``port`` started ``minutes`` after T0, ended ``end`` (None: still open)."""
    with new_journal(port, now=T0 + timedelta(minutes=minutes)) as journal:
        journal.record_plan({"pegs": 3, "length": 3}, config_hash="h", boot_id="b", port=port)
        if end is not None:
            journal.record_end(end)
        return journal.path


def test_the_folder_is_the_xdg_state_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert runs_dir() == tmp_path / "hanoibot" / "runs"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/path")  # not absolute: ignored, as the spec says
    assert runs_dir() == Path.home() / ".local" / "state" / "hanoibot" / "runs"


def test_the_newest_stopped_run_of_the_port_is_found() -> None:
    older = journaled("/dev/ttyACM0", 1, "estopped")
    newest = journaled("/dev/ttyACM0", 2, "stopped")
    journaled("/dev/ttyACM1", 3, "fault")  # another port
    journaled("sim://?board=AAA", 4, None)
    assert [run.path for run in list_runs("/dev/ttyACM0")] == [newest, older]
    entry = latest_stopped("/dev/ttyACM0")
    assert entry is not None and entry.path == newest and entry.ended == "stopped"
    assert journal_for("sim://", None) == list_runs("sim://")[0].path  # options do not make another port
    assert journal_for("/dev/ttyACM0", "mine.journal") == Path("mine.journal")


def test_a_port_whose_newest_run_finished_has_nothing_to_resume() -> None:
    journaled("/dev/ttyACM0", 1, "fault")
    journaled("/dev/ttyACM0", 2, "done")
    assert latest_stopped("/dev/ttyACM0") is None and journal_for("/dev/ttyACM0", None) is None


def test_an_empty_journal_option_is_refused() -> None:
    with pytest.raises(JournalError, match="--journal is empty"):
        journal_for("sim://", " ")


def test_runs_lists_every_run_newest_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs"]) == 0 and "no journaled runs" in capsys.readouterr().out
    first = journaled("/dev/ttyACM0", 1, "estopped")
    second = journaled("sim://", 2, "done")
    assert main(["runs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = lines[1:3]
    assert [line.split()[-1] for line in rows] == [str(second), str(first)]
    assert rows[0].split()[2] == "done" and rows[1].split()[2] == "e-stopped"
    assert main(["runs", "--port", "sim://"]) == 0 and capsys.readouterr().out.splitlines()[1:2] == rows[:1]


def test_runs_has_a_header_a_start_time_and_the_port_as_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pty = tmp_path / "pts0"
    pty.touch()
    link = tmp_path / "pico"
    link.symlink_to(pty)  # what `hanoibot emulate --link` makes
    journaled(str(link), 1, "estopped")
    assert main(["runs"]) == 0
    header, row, *_ = capsys.readouterr().out.splitlines()
    assert header.split() == ["started", "ended", "moves", "port", "journal"]
    local = (T0 + timedelta(minutes=1)).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    assert row.split()[:6] == [*local.split(), "e-stopped", "0", "of", "3"]
    assert row.split()[6] == str(link) and str(pty) not in row  # the link the user gave, not the pty behind it


def test_runs_marks_the_run_resume_goes_on_from_on_the_default_port(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    journaled("/dev/ttyACM0", 1, "stopped")
    journaled("sim://", 2, "fault")
    monkeypatch.setenv("HANOIBOT_PORT", "/dev/ttyACM0")
    assert main(["runs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("  ") and lines[2].startswith("* ")  # the sim:// run is newer, but not the port's
    assert lines[-1] == "* hanoibot resume goes on from this run: the newest stopped one on /dev/ttyACM0 " + (
        "($HANOIBOT_PORT)"
    )
