"""``hanoibot jog`` never drives the simulated arm into the board, a peg or a stack; a fault is exit code 1."""

from __future__ import annotations

import io
import random

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
