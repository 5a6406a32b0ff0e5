"""Journals written before the phases became :class:`MotionPhase` still read and resume.

``data/run-6544a40.journal`` was written by ``hanoibot run -n 3 --port 'sim://?reset_after=250'`` at commit 6544a40
(phases stored as plain strings); the board was reset during move 4 (disk 3 A -> C), after three moves were
confirmed, so the disks are as BBA. ``data/robot-6544a40.toml`` is the robot config that run used (the journal
records its hash).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hanoibot.cli import main
from hanoibot.config.robot_config import config_hash
from hanoibot.motion.phases import MotionPhase
from hanoibot.run.journal import decode_record, encode_record, load_journal

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


def with_the_tolerances_of_its_day(tmp_path: Path) -> tuple[Path, Path]:
    """The old config, stating the [tolerances] and servo output of its day, and the old journal naming its hash.

    The config states no [tolerances]: since issue 34 a config without them gets a hobby arm's (5 µs deadband, a
    PCA9685's 4.88 µs counts), which its 10 mm hole cannot hold, and it is refused. Its run assumed 1 µs, 0.05° and
    exact pulses: the copy says so, and the journal's plan record (phases untouched) names the copy's hash."""
    config = tmp_path / "robot.toml"
    config.write_text(
        OLD_CONFIG.read_text() + '\n[servos]\ndriver = "rp2"\n\n[tolerances]\ncalibration_deg = 0.05\n'
        "servo_deadband_us = 1.0\nservo_backlash_us = 1.0\nservo_speed_sag = 0.05\npeg_position_mm = 0.5\n"
        "peg_height_mm = 1.0\ndisk_hole_mm = 0.2\ndisk_thickness_mm = 0.2\n"
    )
    journal = tmp_path / "run.journal"
    lines = []
    for line in OLD_JOURNAL.read_bytes().splitlines():
        record = decode_record(line)
        if record is not None and record.get("type") == "plan":
            record["config_hash"] = config_hash(config.read_bytes())
            line = encode_record(record).rstrip(b"\n")
        lines.append(line + b"\n")
    journal.write_bytes(b"".join(lines))
    return config, journal


def test_the_old_config_is_refused_for_a_hobby_arms_tolerances(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["resume", "--journal", str(OLD_JOURNAL), "--board", "BBA", "--port", "sim://", "--config", str(OLD_CONFIG)]
    assert main(argv) == 2
    assert "[tolerances] cannot be met" in capsys.readouterr().err


def test_an_old_journal_resumes_after_the_board_reset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config, journal = with_the_tolerances_of_its_day(tmp_path)
    report = tmp_path / "report.json"
    argv = ["resume", "--journal", str(journal), "--board", "BBA", "--port", "sim://", "--config", str(config)]
    assert main([*argv, "--plain", "--report", str(report)]) == 0, capsys.readouterr().err
    outcome = json.loads(report.read_text())
    assert (outcome["start"], outcome["final"], outcome["status"]) == ("BBA", "CCC", "done")
    assert outcome["moves_done"] == outcome["moves_total"] == 4  # 2**3 - 1 = 7 moves in all, 3 done before
    log = load_journal(journal)  # what today's code appended reads back too
    assert log.end_status == "done"
