"""A run that loses its link leaves the last frames on the wire behind (hanoibot.link.trace): in its report, in its
journal's end record, and on stderr with ``--debug``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hanoibot.cli import main
from hanoibot.cli_support import run_view
from hanoibot.sim.urlhandler import protocol_sim


def cut_the_cable_after_move(monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    """From the moment the view shows move ``k`` done, nothing the simulated board sends reaches the host."""
    cut = [False]
    original_move_done = run_view.RunView.move_done
    original_pump = protocol_sim.Serial._pump

    def move_done_then_cut(self: Any, done_k: int, move: Any, state: Any) -> None:
        original_move_done(self, done_k, move, state)
        cut[0] = cut[0] or done_k == k

    def pump(self: Any) -> None:
        original_pump(self)
        if cut[0]:
            self._rx.clear()

    monkeypatch.setattr(run_view.RunView, "move_done", move_done_then_cut)
    monkeypatch.setattr(protocol_sim.Serial, "_pump", pump)


def test_the_frame_trace_appears_in_the_report_of_a_run_that_lost_its_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cut_the_cable_after_move(monkeypatch, 1)
    report_path, journal_path = tmp_path / "report.json", tmp_path / "run.journal"
    argv = ["run", "-n", "3", "--port", "sim://?seed=4", "--plain", "--debug"]
    code = main([*argv, "--report", str(report_path), "--journal", str(journal_path)])
    assert code == 1
    report = json.loads(report_path.read_text())
    assert report["status"] == "fault" and "no valid frame" in report["faults"][0]
    trace = report["frame_trace"]
    assert 10 <= len(trace) <= 200
    times_s = [float(line.split()[0]) for line in trace]
    assert times_s == sorted(times_s)
    last_read_s = max(t for t, line in zip(times_s, trace, strict=True) if line.split()[1] == "<")
    written_after = [line for t, line in zip(times_s, trace, strict=True) if t > last_read_s]
    # The board went silent: the host kept asking (PING, STATUS) for the silence bound, and nothing came back.
    assert written_after and all(line.split()[1] == ">" for line in written_after)
    assert times_s[-1] - last_read_s >= 0.9  # the silence bound (1 s) less the gap after the last question
    assert {line.split()[2].split(",")[0] for line in written_after} <= {"PING", "STATUS", "MOVE"}
    end = json.loads(journal_path.read_text().splitlines()[-1].rsplit("*", 1)[0])
    assert end["type"] == "end" and end["frame_trace"] == trace
    err = capsys.readouterr().err
    assert f"the last {len(trace)} frames on the link" in err and trace[-1] in err
