"""Deployment tested: the README's mpremote steps copy the firmware onto a blank virtual Pico over its pty, and
the board then answers ``hanoibot status``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hanoibot.sim.vpico.flash import firmware_dir
from vpico_checks import require_machine_near_real_time

pytestmark = pytest.mark.slow

#: Generous bounds: the emulated chip runs far below real time on a busy machine.
STEP_TIMEOUT_S = 600


def mpremote(port: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).with_name("mpremote")), "connect", port, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=STEP_TIMEOUT_S)


def test_readme_mpremote_steps_deploy_the_firmware(tmp_path: Path) -> None:
    require_machine_near_real_time()  # status's link bounds are a board's: 1 s of silence
    link = tmp_path / "pico"
    emulator = subprocess.Popen(
        [sys.executable, "-m", "hanoibot", "emulate", "--pico", "--blank", "--link", str(link)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert emulator.stdout is not None
        assert emulator.stdout.readline().strip() == str(link)
        folder = firmware_dir()
        made = mpremote(str(link), "mkdir", ":hanoifw")
        assert made.returncode == 0, made.stderr
        sources = [str(path) for path in sorted((folder / "hanoifw").glob("*.py"))]
        copied = mpremote(
            str(link),
            "cp",
            *sources,
            ":hanoifw/",
            "+",
            "cp",
            str(folder / "board_config.py"),
            str(folder / "main.py"),
            ":",
            "+",
            "reset",
        )
        assert copied.returncode == 0, copied.stderr
        for _attempt in range(10):  # the board is rebooting after `reset`: ask until it is back (bounded)
            status = subprocess.run(
                [sys.executable, "-m", "hanoibot", "status", "--port", str(link)],
                capture_output=True,
                text=True,
                timeout=STEP_TIMEOUT_S,
            )
            if status.returncode == 0:
                break
        assert status.returncode == 0, status.stderr
        assert re.search(r"mode\s+UNCONFIGURED", status.stdout)
    finally:
        emulator.terminate()
        emulator.wait(timeout=30)
