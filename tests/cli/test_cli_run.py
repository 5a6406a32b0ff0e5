"""`hanoibot run`, `resume`, `status`, `home`, `estop`, `jog`, `calibrate` from the command line, on sim://.

Bad input must give one line on stderr and exit code 2, with nothing moved.
"""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import serial
import tomlkit
from cli_runner import ctrl_c_after_move
from hanoibot.cli import main
from hanoibot.config import default_config_path
from hanoibot.puzzle import State
from hanoibot.run.journal import Journal, load_journal


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hanoibot: error: "), err
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_run_plays_the_default_puzzle_and_writes_the_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report_path = tmp_path / "r.json"
    code, out, _ = run_cli(capsys, "run", "--plain", "--report", str(report_path))
    assert code == 0
    report = json.loads(report_path.read_text())
    wanted = "status moves_done moves_total start final wall_s simulated_s paused_s s_per_move retransmits faults"
    assert set(wanted.split()) <= set(report)
    assert (report["status"], report["moves_done"], report["moves_total"]) == ("done", 7, 7)
    assert (report["start"], report["final"]) == ("AAA", "CCC")
    assert report["simulated_s"] > 7 * 0.5, "a real arm needs well over half a second per move"
    assert abs(report["s_per_move"] - report["simulated_s"] / 7) < 1e-3
    lines = [line for line in out.splitlines() if line.startswith("move ")]
    assert [line.split(":")[0] for line in lines] == [f"move {k} of 7" for k in range(1, 8)]
    assert "disk 3 A -> C" in lines[3]
    assert "simulated time 0:00:" in lines[3] and "times are simulated" in out.splitlines()[0]


def test_run_from_a_shuffled_start_with_a_journal(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    journal_path = tmp_path / "run.journal"
    code, out, _ = run_cli(capsys, "run", "--plain", "--from", "ACAB", "--to", "C", "--journal", str(journal_path))
    assert code == 0, out
    log = load_journal(journal_path)
    assert log.end_status == "done" and log.plan_spec["start"] == "ACAB" and log.plan_spec["goal"] == "CCCC"
    assert log.moves_done == log.plan_spec["length"] and all(entry.done for entry in log.moves.values())


def test_resume_of_a_finished_run_does_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    journal_path = tmp_path / "run.journal"
    assert run_cli(capsys, "run", "--plain", "-n", "2", "--journal", str(journal_path))[0] == 0
    code, out, _ = run_cli(capsys, "resume", "--journal", str(journal_path))
    assert code == 0 and "nothing to resume" in out


def test_ctrl_c_pauses_and_a_stop_resumes_on_a_new_simulated_board_placed_as_the_journal_says(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hanoibot.cli_support import run_view

    journal_path = tmp_path / "run.journal"
    original = ctrl_c_after_move(monkeypatch, 2)
    code, _, err = run_cli(capsys, "run", "--plain", "-n", "3", "--journal", str(journal_path))
    assert code == 130 and "stopped by the operator" in err and "hanoibot resume" in err
    log = load_journal(journal_path)
    assert log.end_status == "stopped" and log.moves_done == 3
    monkeypatch.setattr(run_view.RunView, "move_done", original)
    # the simulated board of that process is gone: a new one starts where the journal last saw the disks
    board = State.tower(3).apply(next(iter(log.moves.values())).move)
    for entry in list(log.moves.values())[1:3]:
        board = board.apply(entry.move)
    code, out, err = run_cli(capsys, "resume", "--journal", str(journal_path), "--plain")
    assert code == 0, err
    assert f"resume: a new simulated board, its disks placed where the journal last saw them: {board}" in out
    assert re.search(r"^done: (\d+) of \1 moves, board CCC$", out, re.MULTILINE), out
    assert load_journal(journal_path).end_status == "done"


def test_ctrl_c_then_continue_finishes_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hanoibot.commands import run as run_command

    asked: list[bool] = []
    ctrl_c_after_move(monkeypatch, 1)
    views: list[Any] = []

    def think_for_a_minute(view: Any, keep_waiting: Any = None) -> bool:
        # the operator takes 60 s of robot time to answer: neither the ETA nor s_per_move may count it
        views.append(view)
        view.now_s.__self__.advance(60.0)
        asked.append(True)
        return True

    monkeypatch.setattr(run_command, "ask_continue", think_for_a_minute)
    report_path = tmp_path / "r.json"
    code, _, _ = run_cli(capsys, "run", "--plain", "-n", "3", "--report", str(report_path))
    assert code == 0 and asked == [True]
    report = json.loads(report_path.read_text())
    assert report["final"] == "CCC"
    assert report["paused_s"] >= 60.0 and report["simulated_s"] >= 60.0
    assert report["s_per_move"] == pytest.approx((report["simulated_s"] - report["paused_s"]) / 7, abs=1e-3)
    assert report["s_per_move"] < 10.0
    assert views[0].paused_s >= 60.0 and views[0].active_s() < 40.0


# --- bad input: one line, exit 2, nothing moves ------------------------------------------------------


@pytest.fixture
def motion_sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every CONFIG (which starts the servos) and MOVE any session sends during the test, by name."""
    from hanoibot.link.session import Session

    sent: list[str] = []
    for name in ("configure", "send_move"):
        original = getattr(Session, name)

        def spy(self: Session, *args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
            sent.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Session, name, spy)
    return sent


def test_the_motion_spy_sees_a_good_run(capsys: pytest.CaptureFixture[str], motion_sent: list[str]) -> None:
    assert run_cli(capsys, "run", "-n", "1", "--plain")[0] == 0
    assert motion_sent[0] == "configure" and "send_move" in motion_sent


def test_a_port_that_does_not_exist(capsys: pytest.CaptureFixture[str], tmp_path: Path, motion_sent: list[str]) -> None:
    code, _, err = run_cli(capsys, "run", "--port", str(tmp_path / "ttyNOPE"), "--journal", str(tmp_path / "j"))
    assert_one_line_error(code, err, "ttyNOPE")
    assert motion_sent == []
    assert not (tmp_path / "j").exists(), "no journal is started when the port cannot be used"


def test_a_busy_port(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def busy(url: str, **kwargs: Any) -> None:
        raise serial.SerialException(f"[Errno 16] could not open port {url}: Device or resource busy")

    monkeypatch.setattr(serial, "serial_for_url", busy)
    code, _, err = run_cli(capsys, "run", "--port", "/dev/ttyACM7")
    assert_one_line_error(code, err, "/dev/ttyACM7", "busy")


def test_a_board_with_another_protocol_version(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, motion_sent: list[str]
) -> None:
    from hanoibot.link import status as link_status

    real = link_status.protocol
    other = SimpleNamespace(PROTOCOL_VERSION=real.PROTOCOL_VERSION + 1, HELLO=real.HELLO, unpack=real.unpack)
    monkeypatch.setattr(link_status, "protocol", other)
    code, _, err = run_cli(capsys, "run", "-n", "2")
    assert_one_line_error(code, err, "protocol")
    assert motion_sent == []


def test_a_journal_file_that_exists_already(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "j"
    path.write_text("keep me\n")
    code, _, err = run_cli(capsys, "run", "--journal", str(path))
    assert_one_line_error(code, err, "already exists")
    assert path.read_text() == "keep me\n"


def test_resume_from_something_that_is_not_a_journal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, motion_sent: list[str]
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\neggs\nmilk\n")
    code, _, err = run_cli(capsys, "resume", "--journal", str(path))
    assert_one_line_error(code, err, "notes.txt")
    assert motion_sent == []


def _journal_of_a_stopped_run(path: Path, **spec_changes: Any) -> None:
    from hanoibot.config import load_config

    spec = {"n_disks": 3, "pegs": 3, "topology": "any", "big_on_top": False, "start": "AAA", "goal": "CCC"}
    spec |= {"planner": "make_plan", "length": 7} | spec_changes
    with Journal.create(path) as journal:
        journal.record_plan(spec, config_hash=load_config().config_hash, boot_id="gone", port="sim://")


def test_resume_with_another_robot_config(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, motion_sent: list[str]
) -> None:
    path = tmp_path / "j"
    _journal_of_a_stopped_run(path)
    other = tmp_path / "other.toml"
    document = tomlkit.parse(default_config_path().read_text())
    document["board"]["pegs"][0]["x_mm"] = 161.0  # type: ignore[index]
    other.write_text(tomlkit.dumps(document))
    code, _, err = run_cli(capsys, "resume", "--journal", str(path), "--config", str(other), "--board", "AAA")
    assert_one_line_error(code, err, "robot config")
    assert motion_sent == []


def test_resume_with_a_journal_of_another_plan(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, motion_sent: list[str]
) -> None:
    path = tmp_path / "j"
    _journal_of_a_stopped_run(path, length=9)
    code, _, err = run_cli(capsys, "resume", "--journal", str(path), "--board", "AAA")
    assert_one_line_error(code, err, "another plan")
    assert motion_sent == []


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["run", "--from", "AXA"], ["--from", "'X'"]),
        (["run", "-n", "3", "--pegs", "4"], ["4 pegs"]),
        (["run", "-n", "12"], ["12 disks"]),
        (["run", "--port", "sim://?nonsense=1"], ["nonsense"]),
        (["resume", "--journal", "/nonexistent/j"], ["/nonexistent/j"]),
        (["jog", "--step-deg", "banana"], ["--step-deg"]),
    ],
)
def test_bad_arguments(capsys: pytest.CaptureFixture[str], argv: list[str], words: list[str]) -> None:
    code, _, err = run_cli(capsys, *argv)
    assert_one_line_error(code, err, *words)


# --- the small commands ----------------------------------------------------------------------------


def test_status_home_estop_on_the_simulated_board(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "status", "--json")
    status = json.loads(out)
    assert code == 0 and status["mode"] == "UNCONFIGURED" and status["last_done_cmd"] == 0
    code, out, _ = run_cli(capsys, "home")
    assert code == 0 and "start pose" in out
    code, out, _ = run_cli(capsys, "estop")  # nobody runs a simulated board: nothing to latch, and it says so
    assert code == 0 and "no arm connected" in out and "nothing was sent" in out and "home --clear" not in out


def test_jog_moves_one_joint_by_steps_and_stops_at_its_limit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from hanoibot.config import load_config

    config = load_config()
    base = config.servos[0]
    joint = base  # the base servo drives the base joint directly: its travel is the joint's limits
    steps_to_limit = int((joint.max_deg - base.start_deg) // 20) + 1
    keys = "]]]]" + "1" + "+" * (steps_to_limit + 1) + "q"
    monkeypatch.setattr("sys.stdin", io.StringIO(keys))
    code, out, _ = run_cli(capsys, "jog", "--step-deg", "20")
    assert code == 0
    assert out.splitlines()[0].startswith("keys: 1 base")
    assert f"stopped: base at its limit {joint.max_deg:g} deg" in out
    final = out.strip().splitlines()[-1]
    base_us = int(final.split("base=")[1].split()[0])
    assert base.angle_deg(base_us) == pytest.approx(joint.max_deg, abs=0.2)
    pose_lines = [line for line in out.splitlines() if line.startswith("base=")]
    assert len(pose_lines) == steps_to_limit + 1 + 1, "the pose after every step, and at the end"


def shifted_config(tmp_path: Path, peg: int, dx_mm: float) -> Path:
    """A copy of the shipped robot config with peg number ``peg`` said to stand ``dx_mm`` off along x (the
    simulated board's pegs stand where the shipped config says)."""
    document: Any = tomlkit.parse(default_config_path().read_text())
    document["board"]["pegs"][peg]["x_mm"] = float(document["board"]["pegs"][peg]["x_mm"]) + dx_mm
    path = tmp_path / "robot.toml"
    path.write_text(tomlkit.dumps(document))
    return path


def test_calibrate_finds_a_misplaced_peg_with_the_cartesian_jog_keeping_comments(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import io

    truth: Any = tomlkit.parse(default_config_path().read_text())["board"]["pegs"]
    config = shifted_config(tmp_path, 0, 4.0)  # peg A said to be 4 mm further out than it stands
    output = tmp_path / "calibrated.toml"
    # At A (arm sent where the config says): two 2 mm steps back along x, save; B and C are right: save at once;
    # then skip the grip sensor.
    monkeypatch.setattr("sys.stdin", io.StringIO("x--s s s\nskip\n"))
    code, out, err = run_cli(capsys, "calibrate", "--config", str(config), "--output", str(output))
    assert code == 0, out + err
    text = output.read_text()
    assert "# Wooden dowel pegs standing on the board." in text, "comments are kept"
    pegs: Any = tomlkit.parse(text)["board"]["pegs"]
    for saved, true in zip(pegs, truth, strict=True):
        assert abs(float(saved["x_mm"]) - float(true["x_mm"])) <= 0.5, (saved, true)
        assert abs(float(saved["y_mm"]) - float(true["y_mm"])) <= 0.5, (saved, true)
    assert "peg A: at the foot where the config has it" in out
    assert config.read_text() != text, "the config given is not the one written (--output)"


def test_calibrate_never_writes_a_board_that_would_not_load(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import io

    from hanoibot.config import load_config

    output = tmp_path / "calibrated.toml"
    # At B the arm is taken back to the foot of A (A, v) and saved there: pegs A and B would overlap. That save is
    # refused, said, and the person jogs on at B (here the input ends: stopped, A stays saved).
    monkeypatch.setattr("sys.stdin", io.StringIO("s Avs"))
    code, out, err = run_cli(capsys, "calibrate", "--output", str(output))
    assert code == 1 and err == "", err
    assert "peg B: not saved:" in out and "jog on and press s again" in out
    assert "peg A was saved in" in out and "go on from peg B" in out
    shipped = load_config(default_config_path()).board.pegs
    assert load_config(output).board.pegs[1] == shipped[1]  # the file written loads, B as it was


def test_calibrate_never_writes_the_checkouts_default_config_without_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import hanoibot.config.robot_config
    import hanoibot.run.robot

    def no_board(*args: object, **kwargs: object) -> None:
        raise AssertionError("the board was opened although there is nowhere to save")

    checkout_config = tmp_path / "hardware" / "robot.toml"
    checkout_config.parent.mkdir()
    checkout_config.write_bytes(Path(default_config_path()).read_bytes())
    monkeypatch.setattr(hanoibot.config.robot_config, "SOURCE_TREE_CONFIG", checkout_config)
    assert default_config_path() == checkout_config
    monkeypatch.setattr(hanoibot.run.robot.Robot, "open", no_board)
    for argv in (["calibrate"], ["calibrate", "--config", str(checkout_config)]):
        code, _, err = run_cli(capsys, *argv)
        assert_one_line_error(code, err, "default robot config", "--output FILE")


def test_calibrate_never_writes_the_packaged_config(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import io

    import hanoibot.config.robot_config
    import hanoibot.run.robot

    def no_board(*args: object, **kwargs: object) -> None:
        raise AssertionError("the board was opened although there is nowhere to save")

    # As in a wheel install: the default robot is the copy inside the package (site-packages).
    monkeypatch.setattr(hanoibot.config.robot_config, "SOURCE_TREE_CONFIG", tmp_path / "hardware" / "robot.toml")
    packaged = hanoibot.config.packaged_config_path()
    with monkeypatch.context() as patch:
        patch.setattr(hanoibot.run.robot.Robot, "open", no_board)
        code, _, err = run_cli(capsys, "calibrate")
        assert_one_line_error(code, err, "default robot config", "--output FILE", "--config FILE")
        code, _, err = run_cli(capsys, "calibrate", "--config", str(packaged))
        assert_one_line_error(code, err, "default robot config")
    before = packaged.read_bytes()
    output = tmp_path / "mine.toml"
    monkeypatch.setattr("sys.stdin", io.StringIO("sss\nskip\n"))
    code, out, _ = run_cli(capsys, "calibrate", "--output", str(output))
    assert code == 0, out
    assert f"saved 3 peg positions to {output}" in out
    assert packaged.read_bytes() == before and output.read_bytes() != before


# --- output files: checked before anything moves, one line when a write fails at the end -------------------


@pytest.mark.parametrize("option", ["--report", "--journal"])
def test_an_output_file_in_a_missing_directory_is_refused_before_anything_moves(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    import hanoibot.run.robot

    def no_board(*args: object, **kwargs: object) -> None:
        raise AssertionError("the board was opened although an output path is bad")

    monkeypatch.setattr(hanoibot.run.robot.Robot, "open", no_board)
    bad = str(tmp_path / "missing" / "out.json")
    code, _, err = run_cli(capsys, "run", "-n", "1", "--plain", option, bad)
    assert_one_line_error(code, err, option, bad)


def test_a_report_that_cannot_be_written_at_the_end_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hanoibot.run.runner

    def disk_full(self: object, path: object) -> None:
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(hanoibot.run.runner.RunReport, "write", disk_full)
    report_path = str(tmp_path / "r.json")
    code, out, err = run_cli(capsys, "run", "-n", "1", "--plain", "--report", report_path)
    assert code == 1 and "done: 1 of 1 move," in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and report_path in lines[0] and "No space left" in lines[0], err


def test_resume_of_a_finished_run_still_checks_the_board(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    journal_path = tmp_path / "done.journal"
    assert run_cli(capsys, "run", "-n", "2", "--plain", "--journal", str(journal_path))[0] == 0
    code, _, err = run_cli(capsys, "resume", "--journal", str(journal_path), "--board", "ACZ")
    assert_one_line_error(code, err, "--board", "'Z'")


def test_ctrl_c_at_the_pause_prompt_stops_instead_of_queueing_another_pause(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hanoibot.cli_support import run_view

    asked: list[str] = []
    ctrl_c_after_move(monkeypatch, 1)

    def ctrl_c_at_the_prompt(self: Any, question: str, answers: Any, keep_waiting: Any = None) -> bool:
        asked.append(question)
        os.kill(os.getpid(), signal.SIGINT)
        return True  # never reached: Ctrl-C at the prompt means stop

    monkeypatch.setattr(run_view.RunView, "choose", ctrl_c_at_the_prompt)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    code, _, err = run_cli(capsys, "run", "--plain", "-n", "3")
    assert code == 130 and "stopped by the operator" in err
    assert asked == ["paused: the arm is held. [c]ontinue or [s]top? "]


@pytest.mark.parametrize("rules", ["big-on-top", "linear", "cyclic"])
def test_every_rule_set_the_planner_offers_runs_on_the_simulated_arm(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str
) -> None:
    report_path = tmp_path / "r.json"
    code, out, err = run_cli(capsys, "run", "--plain", "--rules", rules, "-n", "3", "--report", str(report_path))
    assert code == 0, out + err
    report = json.loads(report_path.read_text())
    assert (report["status"], report["final"], report["faults"]) == ("done", "CCC", [])
