"""A firmware file that calls something only CPython has fails on the virtual Pico (with the board's own
traceback) and still passes under the CPython emulator: the virtual Pico catches what the fakes cannot."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hanoibot.sim.vpico.flash import files_on_flash, firmware_dir
from hanoibot.sim.vpico.process import BoardTraceback, VirtualPico

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

#: A CPython-only call added to a firmware module: MicroPython has no dataclasses module.
CPYTHON_ONLY = "import dataclasses\n_FIELDS = dataclasses.fields\n"


def firmware_with_cpython_only_call(tmp_path: Path) -> Path:
    """A copy of the firmware folder whose hanoifw/reports.py starts with :data:`CPYTHON_ONLY`."""
    folder = tmp_path / "firmware"
    shutil.copytree(firmware_dir(), folder, ignore=shutil.ignore_patterns("__pycache__"))
    reports = folder / "hanoifw" / "reports.py"
    text = reports.read_text(encoding="utf-8")
    docstring_end = text.index('"""', 3) + 3
    reports.write_text(text[:docstring_end] + "\n" + CPYTHON_ONLY + text[docstring_end:], encoding="utf-8")
    return folder


def test_cpython_only_call_fails_on_the_virtual_pico(tmp_path: Path) -> None:
    folder = firmware_with_cpython_only_call(tmp_path)
    pico = VirtualPico(files=files_on_flash(folder), driven=True, seed=1)
    with pico, pytest.raises(BoardTraceback) as caught:
        pico.wait_for_output(b"HELLO")
    traceback = caught.value.traceback
    assert traceback.startswith("Traceback (most recent call last):")
    assert re.search(r"ImportError: no module named 'dataclasses'", traceback), traceback
    assert "hanoifw/reports.py" in traceback


def test_the_same_files_pass_under_the_cpython_emulator(tmp_path: Path) -> None:
    folder = firmware_with_cpython_only_call(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(folder))
    probe = "import hanoifw.reports as r, sys; print(r.__file__); sys.exit(0 if hasattr(r, '_FIELDS') else 1)"
    imported = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert imported.returncode == 0 and imported.stdout.startswith(str(folder)), imported.stderr
    status = subprocess.run(
        [sys.executable, "-m", "hanoibot", "status", "--port", "sim://"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert status.returncode == 0, status.stderr
    assert re.search(r"mode\s+UNCONFIGURED", status.stdout)
