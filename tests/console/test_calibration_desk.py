"""The calibration page's protocol, in-process on ``sim://`` (Starlette's test client): each peg is saved into the
robot config as soon as the page confirms it, an e-stop ends the calibration (what was saved stays, and the next
one goes on at the next peg), the default robot config is never written, and a bad action is named."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from console_bench import BASE_URL, ORIGIN, Page
from hanoibot.config import default_config_path
from hanoibot.console.app import ConsoleSettings, make_app
from hanoibot.console.hub import MessageError, parse_command
from shifted_config import pegs_mm, shifted_config
from starlette.testclient import TestClient

#: Longest wait for one action, in s.
ACTION_S = 30.0


@pytest.fixture
def connected(tmp_path: Path) -> Iterator[tuple[Page, Path]]:
    """A page controlling a console on ``sim://`` with a config of its own (peg A said 4 mm out), arm connected."""
    config = shifted_config(tmp_path)
    settings = ConsoleSettings("sim://?speed=8", config_path=str(config), journal_dir=str(tmp_path))
    client = TestClient(make_app(settings), base_url=BASE_URL)
    with client, client.websocket_connect("ws://127.0.0.1:8765/ws", headers=ORIGIN) as ws:
        page = Page(ws)
        page.send("connect", state="AAA", pegs=3)
        page.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected")
        yield page, config


def act(page: Page, **options: Any) -> dict[str, Any]:
    """One calibration action; the state once the worker has done it."""
    done = page.state.get("calibration_actions", 0) + 1
    page.send("calibrate", **options)
    return page.wait_for(lambda s: s["calibration_actions"] >= done and s["busy"] == "", "the action done", ACTION_S)


def test_each_peg_is_saved_as_soon_as_the_page_confirms_it(connected: tuple[Page, Path]) -> None:
    page, config = connected
    true_pegs = pegs_mm(default_config_path())
    assert act(page, action="begin")["calibration"]["peg"] is None
    act(page, action="peg", peg=0)
    for _ in range(2):
        state = act(page, action="jog", axis="x", direction=-1)
        assert state["message"] == "-x 2 mm", state
    state = act(page, action="confirm")
    assert state["message"].startswith("peg A: x=") and "next: peg B" in state["message"], state
    saved = pegs_mm(config)
    assert abs(saved[0][0] - true_pegs[0][0]) <= 0.5 and saved[1:] == true_pegs[1:], "A alone, at once"
    assert state["calibration"]["saved"] == {"A": list(saved[0])}
    for peg in (1, 2):
        act(page, action="peg", peg=peg)
        state = act(page, action="confirm")
    assert state["calibration"]["done"] and "every peg is saved" in state["message"], state
    assert all(abs(a - b) <= 0.5 for got, true in zip(pegs_mm(config), true_pegs, strict=True) for a, b in
               zip(got, true, strict=True))  # fmt: skip


def test_an_estop_ends_the_calibration_and_the_next_goes_on_at_the_next_peg(connected: tuple[Page, Path]) -> None:
    page, config = connected
    act(page, action="begin")
    act(page, action="peg", peg=0)
    act(page, action="confirm")
    page.send("estop")
    state = page.wait_for(lambda s: s["mode"] == "ESTOP" and s["busy"] == "", "the e-stop latched")
    assert state["calibration"] is None
    state = act(page, action="jog", axis="x", direction=1)
    assert "no calibration is under way" in state["error"] or "latched" in state["error"], state
    page.send("clear")
    page.wait_for(lambda s: s["mode"] != "ESTOP" and s["busy"] == "", "cleared")
    state = act(page, action="begin")
    assert "going on with the calibration that stopped at peg B: peg A saved in mine.toml" in state["message"], state
    assert state["calibration"]["next_peg"] == 1 and list(state["calibration"]["saved"]) == ["A"]
    saved_a = pegs_mm(config)[0]
    assert act(page, action="end")["calibration"] is None
    state = act(page, action="begin", restart=1)  # Start again at peg A
    assert state["calibration"]["next_peg"] == 0 and state["calibration"]["saved"] == {}, state
    assert pegs_mm(config)[0] == saved_a, "starting again forgets the session, not the file"


def test_the_default_robot_config_is_never_calibrated(tmp_path: Path) -> None:
    settings = ConsoleSettings("sim://?speed=8", journal_dir=str(tmp_path))
    before = default_config_path().read_text()
    client = TestClient(make_app(settings), base_url=BASE_URL)
    with client, client.websocket_connect("ws://127.0.0.1:8765/ws", headers=ORIGIN) as ws:
        page = Page(ws)
        page.send("connect", state="AAA", pegs=3)
        page.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected")
        page.send("calibrate", action="begin")
        state = page.wait_for(lambda s: bool(s["error"]), "the refusal")
    assert "calibrate never writes the default robot config" in state["error"] and state["calibration"] is None
    assert default_config_path().read_text() == before


def test_a_bad_action_is_named(connected: tuple[Page, Path]) -> None:
    page, _config = connected
    page.send("calibrate", action="jog", axis="x", direction=1)
    state = page.wait_for(lambda s: bool(s["error"]), "the refusal")
    assert "no calibration is under way: press Calibrate the pegs first" in state["error"]
    act(page, action="begin")
    state = act(page, action="jog", axis="x", direction=1)
    assert "go to a peg first" in state["error"], state
    state = act(page, action="fly")
    assert "calibrate action 'fly': expected one of begin, peg, jog, step, confirm, end" in state["error"], state
    act(page, action="peg", peg=1)
    state = act(page, action="jog", axis="q", direction=1)
    assert "jog 'q' 1: expected an axis of x, y, z and +1 or -1" in state["error"], state


def test_a_step_may_be_written_as_a_whole_number_but_not_as_text() -> None:
    text = '{"type": "command", "name": "calibrate", "options": {"action": "step", "step_mm": 4}}'
    assert parse_command(text) == ("calibrate", {"action": "step", "step_mm": 4})
    with pytest.raises(MessageError, match="step_mm = '4': expected float"):
        parse_command(text.replace(": 4}", ': "4"}'))
