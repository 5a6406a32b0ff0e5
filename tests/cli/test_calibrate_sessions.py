"""``hanoibot calibrate`` as a first hour meets it, on the simulated robot: each peg is saved into the config as
soon as it is confirmed, a session cut short goes on where it stopped (and says so), and the grip step, which no
hand can do on a simulated board, says how to skip it and never costs the pegs already saved."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hanoibot.cli import main
from hanoibot.config import default_config_path, load_config
from hanoibot.ops.calibration_progress import progress_path


def shifted_config(folder: Path, dx_mm: float) -> Path:
    """The shipped robot with peg A said to stand ``dx_mm`` further out along x than it does."""
    document: Any = tomlkit.parse(default_config_path().read_text())
    document["board"]["pegs"][0]["x_mm"] = float(document["board"]["pegs"][0]["x_mm"]) + dx_mm
    path = folder / "mine.toml"
    path.write_text(tomlkit.dumps(document))
    return path


def calibrate(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, keys: str, *argv: str
) -> tuple[int, str, str]:
    """``hanoibot calibrate *argv`` on sim:// with ``keys`` as its (piped) input."""
    monkeypatch.setattr("sys.stdin", io.StringIO(keys))
    code = main(["calibrate", "--port", "sim://", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def peg_x_mm(path: Path, peg: int) -> float:
    return float(tomlkit.parse(path.read_text())["board"]["pegs"][peg]["x_mm"])  # type: ignore[index]


def test_each_peg_is_saved_as_soon_as_it_is_confirmed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = shifted_config(tmp_path, 4.0)
    true_x_mm = peg_x_mm(default_config_path(), 0)
    code, out, err = calibrate(capsys, monkeypatch, "x--s", "--config", str(config))  # then the input ends
    assert code == 1, out + err
    assert abs(peg_x_mm(config, 0) - true_x_mm) <= 0.5, "peg A is in the file, although B and C never came"
    assert "# Wooden dowel pegs standing on the board." in config.read_text(), "comments are kept"
    assert f"peg A: x={peg_x_mm(config, 0):.1f}" in out and f"saved to {config}" in out
    assert f"peg A was saved in {config}; run hanoibot calibrate again to go on from peg B" in out


def test_an_interrupted_calibration_goes_on_where_it_stopped_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = shifted_config(tmp_path, 4.0)
    output = tmp_path / "calibrated.toml"
    first = calibrate(capsys, monkeypatch, "x--s s", "--config", str(config), "--output", str(output))
    assert first[0] == 1 and "pegs A, B were saved in" in first[1], first
    code, out, err = calibrate(capsys, monkeypatch, "s\nskip\n", "--config", str(config), "--output", str(output))
    assert code == 0, out + err
    assert f"going on with the calibration that stopped at peg C: pegs A, B were saved to {output}" in out
    assert "around the foot of peg A" not in out and "around the foot of peg B" not in out
    assert "around the foot of peg C" in out and f"saved 3 peg positions to {output}" in out
    assert abs(peg_x_mm(output, 0) - peg_x_mm(default_config_path(), 0)) <= 0.5, "A from the first session kept"
    assert not progress_path(output).exists(), "the session is over: the next one starts at peg A"
    again = calibrate(capsys, monkeypatch, "", "--config", str(config), "--output", str(output))
    assert "around the foot of peg A" in again[1] and "going on" not in again[1]


def test_restart_begins_at_peg_a(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = shifted_config(tmp_path, 0.0)
    assert calibrate(capsys, monkeypatch, "s", "--config", str(config))[0] == 1
    code, out, _ = calibrate(capsys, monkeypatch, "", "--config", str(config), "--restart")
    assert code == 1 and "around the foot of peg A" in out and "going on" not in out


def test_a_config_changed_since_starts_again_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = shifted_config(tmp_path, 0.0)
    assert calibrate(capsys, monkeypatch, "x+s", "--config", str(config))[0] == 1
    shifted_config(tmp_path, 1.0)  # edited by hand meanwhile: peg A is not where the session saved it
    code, out, _ = calibrate(capsys, monkeypatch, "", "--config", str(config))
    assert code == 1 and f"{config} changed since an earlier calibration" in out
    assert "around the foot of peg A" in out


def test_the_grip_step_says_how_to_skip_it_and_a_failed_measurement_costs_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = shifted_config(tmp_path, 0.0)
    before = load_config(config).gripper.grip_threshold_u16
    # Every peg as the arm finds it; Enter: measure the grip sensor; Enter at both of its prompts (nobody can put a
    # disk between simulated fingers, so the readings cannot be told apart); then skip.
    code, out, err = calibrate(capsys, monkeypatch, "sss\n\n\n\nskip\n", "--config", str(config))
    assert code == 0, out + err
    assert "then the grip sensor (type skip there" in out
    assert f"grip sensor: type skip to keep grip_threshold_u16 = {before}" in out
    assert "grip sensor: not saved: grip current on a disk" in out
    assert f"press Enter to measure again, or type skip to keep {before}" in out
    assert f"saved 3 peg positions to {config}" in out
    assert load_config(config).gripper.grip_threshold_u16 == before


def test_calibrate_help_names_the_word_that_skips_the_grip_step(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["calibrate", "--help"])
    help_text = capsys.readouterr().out
    assert "type skip" in help_text and "--restart" in help_text


def test_a_key_that_does_nothing_at_a_peg_says_which_keys_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = shifted_config(tmp_path, 0.0)
    code, out, _ = calibrate(capsys, monkeypatch, "k", "--config", str(config))
    assert code == 1
    assert "k does nothing here; keys at a peg: x / y" in out and "s or Enter saves this peg" in out
