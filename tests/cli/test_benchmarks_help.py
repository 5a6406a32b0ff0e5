"""Every benchmark script answers ``--help`` with its description at once, without running the benchmark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).resolve().parents[2] / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda path: path.name)
def test_help_prints_the_description_and_runs_nothing(script: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: ") and "benchmark" in result.stdout.lower()
