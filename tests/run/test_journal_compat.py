"""Journals written before the phases became :class:`MotionPhase` still read and resume.

``data/run-6544a40.journal`` was written by ``hanoibot run -n 3 --port 'sim://?reset_after=250'`` at commit 6544a40
(phases stored as plain strings); the board was reset during move 4 (disk 3 A -> C), after three moves were
confirmed, so the disks are as BBA. ``data/robot-6544a40.toml`` is the robot config that run used (the journal
records its hash).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hanoibot.cli import main
from hanoibot.motion.phases import MotionPhase
from hanoibot.run.journal import load_journal

DATA = Path(__file__).parent / "data"
OLD_JOURNAL = DATA / "run-6544a40.journal"
OLD_CONFIG = DATA / "robot-6544a40.toml"


def test_an_old_journal_reads_into_motion_phases() -> None:
    log = load_journal(OLD_JOURNAL)
    assert log.moves_done == 3 and log.end_status == "fault"
    entry = log.open_move
    assert entry is not None and (entry.k, entry.first_cmd, entry.last_cmd) == (3, 47, 61)
    assert all(isinstance(phase, MotionPhase) for phase in entry.phases)
    assert entry.phase_after(47) is MotionPhase.DESCEND  # cmd 47 (approach) was done, 48 is the first descend


def test_an_old_journal_resumes_after_the_board_reset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "run.journal"
    shutil.copyfile(OLD_JOURNAL, journal)
    report = tmp_path / "report.json"
    argv = ["resume", "--journal", str(journal), "--board", "BBA", "--port", "sim://", "--config", str(OLD_CONFIG)]
    assert main([*argv, "--plain", "--report", str(report)]) == 0, capsys.readouterr().err
    outcome = json.loads(report.read_text())
    assert (outcome["start"], outcome["final"], outcome["status"]) == ("BBA", "CCC", "done")
    assert outcome["moves_done"] == outcome["moves_total"] == 4  # 2**3 - 1 = 7 moves in all, 3 done before
    log = load_journal(journal)  # what today's code appended reads back too
    assert log.end_status == "done"
