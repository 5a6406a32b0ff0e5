"""Deployment tested: the README's mpremote steps copy the firmware onto a blank virtual Pico over its pty, and
the board then answers ``hanoibot status``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hanoibot.sim.vpico.flash import firmware_dir
from vpico_checks import CHIP_SLOW, require_machine_sustains_the_cap

pytestmark = [pytest.mark.slow, pytest.mark.vpico, pytest.mark.vpico_realtime]

#: Generous bounds: the emulated chip runs far below real time on a busy machine.
STEP_TIMEOUT_S = 600
#: A blank virtual Pico (no files: mpremote copies them) at the tests' speed cap.
EMULATE_BLANK_PICO = [sys.executable, "-m", "hanoibot", "emulate", "--pico", "--blank", "--slow", str(CHIP_SLOW)]


def mpremote(port: str, *args: str) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).with_name("mpremote")), "connect", port, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=STEP_TIMEOUT_S)


def test_readme_mpremote_steps_deploy_the_firmware(tmp_path: Path) -> None:
    require_machine_sustains_the_cap()  # status's link bounds are a board's: 1 s of silence
    link = tmp_path / "pico"
    emulator = subprocess.Popen(
        [*EMULATE_BLANK_PICO, "--link", str(link)],
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


def test_hanoibot_deploy_compiles_copies_verifies_and_boots(tmp_path: Path) -> None:
    """``hanoibot deploy`` on a blank virtual Pico holding one stale source file: the board gets .mpy files for its
    own bytecode version (read from it), the stale .py is removed, and the firmware answers HELLO and status."""
    require_machine_sustains_the_cap()
    link = tmp_path / "pico"
    emulator = subprocess.Popen(
        [*EMULATE_BLANK_PICO, "--link", str(link)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert emulator.stdout is not None
        assert emulator.stdout.readline().strip() == str(link)
        stale = firmware_dir() / "hanoifw" / "motion.py"
        seeded = mpremote(str(link), "mkdir", ":hanoifw", "+", "cp", str(stale), ":hanoifw/")
        assert seeded.returncode == 0, seeded.stderr
        deploy = subprocess.run(
            [sys.executable, "-m", "hanoibot", "deploy", "--port", str(link), "--hello-timeout-s", "120"],
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT_S,
        )
        assert deploy.returncode == 0, deploy.stdout + deploy.stderr  # which step stopped, if one did
        assert "MicroPython 1.27.0" in deploy.stdout and ".mpy version 6.3" in deploy.stdout  # the vendored UF2
        assert "removed the old source hanoifw/motion.py" in deploy.stdout
        assert "done: the firmware is running" in deploy.stdout
        status = subprocess.run(
            [sys.executable, "-m", "hanoibot", "status", "--port", str(link)],
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT_S,
        )
        assert status.returncode == 0, status.stderr
        assert re.search(r"mode\s+UNCONFIGURED", status.stdout)
        # mpremote stops main.py (it takes the REPL): list the files after the firmware has answered
        listing = mpremote(str(link), "ls", ":hanoifw")
        assert listing.returncode == 0, listing.stderr
        names = set(re.findall(r"(\S+\.(?:py|mpy))\s*$", listing.stdout, flags=re.MULTILINE))
        package = {f"{path.stem}.mpy" for path in (firmware_dir() / "hanoifw").glob("*.py")}
        assert names == package
    finally:
        emulator.terminate()
        emulator.wait(timeout=30)
