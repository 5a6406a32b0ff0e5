"""``hanoibot jog`` never drives the simulated arm into the board, a peg or a stack; a fault is exit code 1."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from hanoibot.cli import main


@pytest.mark.parametrize("seed", range(4))
def test_random_key_presses_never_collide(
    seed: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    keys = "".join(rng.choice("1234" + "+-" * 12) for _ in range(160))
    monkeypatch.setattr("sys.stdin", io.StringIO(keys + "q"))
    code = main(["jog", "--step-deg", "10"])
    _, err = capsys.readouterr()
    assert code == 0, err  # the simulated board latches COLLISION on any contact: jog would stop with exit 1
    assert err == ""


def test_the_arm_stops_above_peg_b_instead_of_hitting_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("2" + "-" * 30 + "q"))
    assert main(["jog", "--step-deg", "5"]) == 0
    out = capsys.readouterr().out
    assert "stopped: the gripper would touch" in out


def test_a_fault_during_jog_is_exit_code_1_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hanoibot.commands import jog

    # With the guard switched off the same keys drive the fingers into peg B: the board latches COLLISION.
    monkeypatch.setattr(jog.Jogger, "obstacle_at", lambda self, channel_us: None)
    monkeypatch.setattr("sys.stdin", io.StringIO("2" + "-" * 30 + "q"))
    code = main(["jog", "--step-deg", "5"])
    _, err = capsys.readouterr()
    assert code == 1
    assert err.count("\n") == 1 and "COLLISION" in err and "hanoibot home --clear" in err


def test_a_key_that_does_nothing_says_which_keys_do(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("kvq"))
    assert main(["jog"]) == 0
    out = capsys.readouterr().out
    assert "k does nothing here; keys: 1 base" in out
    assert "v goes down to the foot of the peg last gone to: go above one first with A, B, ..." in out


@pytest.mark.parametrize(("preset", "joints"), [("so101", 4), ("bracket6", 4)])
def test_each_presets_servos_have_a_key_and_random_presses_never_collide(
    preset: str, joints: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # One number key per servo that moves a joint (the held wrist roll has none), then the gripper's.
    from hanoibot.arm import preset_text
    from hanoibot.config import load_config

    path = tmp_path / f"{preset}.toml"
    path.write_text(preset_text(preset), encoding="utf-8")
    names = load_config(path).channel_names()
    rng = random.Random(preset)
    keys = "".join(rng.choice("123456" + "+-" * 12) for _ in range(160))
    monkeypatch.setattr("sys.stdin", io.StringIO(keys + "q"))
    code = main(["jog", "--config", str(path), "--step-deg", "10"])
    out, err = capsys.readouterr()
    assert code == 0, err
    legend = ", ".join(f"{k + 1} {name}" for k, name in enumerate(names[:joints]))
    assert out.splitlines()[0].startswith(f"keys: {legend}, {joints + 1}/g {names[-1]};"), out.splitlines()[0]
    assert "wrist_roll" not in out.splitlines()[0]
