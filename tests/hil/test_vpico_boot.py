"""The virtual Pico boots the stock MicroPython image with our firmware files and answers over USB CDC."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hanoibot.link.session import Session
from vpico_checks import vpico_url

# Slow: a boot is about 1.6 s of chip time, which the emulator runs at 0.1-0.4x real time.
pytestmark = [pytest.mark.slow, pytest.mark.vpico]


def test_the_board_answers_status_over_vpico() -> None:
    with Session(vpico_url(world=0)) as session:
        pico = session.port.pico  # type: ignore[union-attr]
        status = session.status()
        assert status.mode == "UNCONFIGURED" and status.boot_id == session.boot_id
        assert re.fullmatch(r"[0-9a-f]{8}", session.boot_id)
        assert [boot["cause"] for boot in pico.boots] == ["power"]
        assert session.hello is not None and session.hello.reset_cause == "power"
        # every servo output is off until CONFIG: nothing read back from the PWM slices
        assert pico.pulses_us == [None] * 5


@pytest.mark.vpico_cover  # one of make test's few virtual-Pico tests
def test_hanoibot_status_cli_on_vpico() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hanoibot", "status", "--port", vpico_url(world=0)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"mode\s+UNCONFIGURED", result.stdout)
