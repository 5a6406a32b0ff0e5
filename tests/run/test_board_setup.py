"""``run/board_setup.py``: the simulated boards (``sim://`` and the virtual Pico, ``vpico://``) get the plan's start
board, rules and config; a real port is left alone."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from hanoibot.puzzle import Rules, State
from hanoibot.run.board_setup import sim_port_url


def options(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


@pytest.mark.parametrize("scheme", ["sim", "vpico"])
def test_a_simulated_board_gets_the_plans_disks(scheme: str) -> None:
    url = sim_port_url(f"{scheme}://?slow=6", State.parse("AAAA"), "/tmp/robot.toml", Rules.named("classic"))
    assert url.startswith(f"{scheme}://?")
    assert options(url) == {"slow": "6", "board": "AAAA", "rules": "classic", "config": "/tmp/robot.toml"}


def test_options_the_url_gives_stay() -> None:
    url = sim_port_url("vpico://?board=CCC", State.parse("AAA"), None)
    assert url.startswith("vpico://?") and options(url) == {"board": "CCC"}


def test_a_real_port_is_left_alone() -> None:
    assert sim_port_url("/dev/ttyACM0", State.parse("AAA"), "/tmp/robot.toml") == "/dev/ttyACM0"
