"""``hanoibot emulate --link L``: one emulator per link path. A second one on the same path is refused with one
line naming the first (exit 2), and the first keeps its link: hosts that open ``L`` still reach its board, and the
link is still there once the second has gone."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from cli_runner import HANOIBOT, hanoibot

#: Longest an emulator may take to print its port, and a refused one to end, in s.
BOUND_S = 30.0


def test_a_second_emulator_on_a_link_path_is_refused_and_the_first_keeps_it(tmp_path: Path) -> None:
    link = tmp_path / "board"
    first = subprocess.Popen(
        [*HANOIBOT, "emulate", "--link", str(link), "--seed", "1"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == str(link), first.stderr
        pty = os.readlink(link)
        second = hanoibot("emulate", "--link", str(link), timeout_s=BOUND_S)
        assert second.returncode == 2 and second.stdout == "", second
        assert second.stderr.count("\n") == 1, second.stderr
        assert f"--link {link} is in use by `hanoibot emulate --link {link} --seed 1` (pid {first.pid})" in (
            second.stderr
        )
        assert os.readlink(link) == pty, "the link still points at the first emulator's pty"
        status = hanoibot("status", "--json", "--port", str(link), timeout_s=BOUND_S)
        assert status.returncode == 0, status.stderr  # the first board still answers through it
    finally:
        first.terminate()
        first.communicate(timeout=BOUND_S)
    assert not link.is_symlink(), "the first emulator removes its own link when it ends"


def test_a_link_left_by_a_killed_emulator_is_taken_over(tmp_path: Path) -> None:
    link = tmp_path / "board"
    argv = [*HANOIBOT, "emulate", "--link", str(link)]
    first = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    assert first.stdout is not None and first.stdout.readline().strip() == str(link)
    first.kill()
    first.communicate(timeout=BOUND_S)
    assert link.is_symlink(), "a killed emulator leaves its link behind"
    second = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    try:
        assert second.stdout is not None and second.stdout.readline().strip() == str(link)
    finally:
        second.terminate()
        second.communicate(timeout=BOUND_S)


def test_the_claim_is_keyed_on_the_path_however_it_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hanoibot.sim.link_claim import claim_path

    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    assert claim_path("sub/../board") == claim_path(tmp_path / "board") == claim_path("board")
    assert claim_path(tmp_path / "other") != claim_path(tmp_path / "board")
