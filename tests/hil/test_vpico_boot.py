"""The virtual Pico boots the stock MicroPython image with our firmware files and answers over USB CDC."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hanoibot.link.session import Session
from vpico_checks import require_machine_sustains_the_cap, vpico_url

# Slow: the emulated chip needs a free core (about 0.4x real time); on a loaded machine a boot takes a minute.
pytestmark = [pytest.mark.slow, pytest.mark.vpico]


def test_the_board_answers_status_over_vpico() -> None:
    require_machine_sustains_the_cap()
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
    require_machine_sustains_the_cap()  # the CLI's link bounds are a board's: 1 s of silence
    result = subprocess.run(
        [sys.executable, "-m", "hanoibot", "status", "--port", vpico_url(world=0)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"mode\s+UNCONFIGURED", result.stdout)
