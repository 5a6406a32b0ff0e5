"""A console driven through its WebSocket protocol (Starlette's test client) on ``sim://``, with the simulated
board's event log at hand: what the world did is the judge, not what the page is told.

:class:`Bench` starts the app, records the simulated boards the console makes (their events, plus an ``rx`` event
for every frame the board receives, so a test can see where an ESTOP or a CLEAR reached it), and joins pages.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from hanoibot.console.app import ConsoleSettings, make_app
from hanoibot.sim.board import SimBoard
from hanoifw.rxframe import FrameReader
from starlette.testclient import TestClient

BASE_URL = "http://127.0.0.1:8765"
ORIGIN = {"origin": BASE_URL}
#: Longest wait for a robot state a test expects, in s.
WAIT_S = 60.0


def record_boards(monkeypatch: pytest.MonkeyPatch) -> list[SimBoard]:
    """Every SimBoard made from now on, each logging an ``rx`` event (with the frame ``kind``) per frame it gets."""
    boards: list[SimBoard] = []
    made = SimBoard.__init__
    feed = SimBoard.feed

    def remember(self: SimBoard, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        self.rx_reader = FrameReader()  # type: ignore[attr-defined]
        boards.append(self)

    def feed_and_log(self: SimBoard, data: bytes) -> None:
        for kind, _seq, _ack, _fields in self.rx_reader.feed(data):  # type: ignore[attr-defined]
            self.log("rx", kind=kind)
        feed(self, data)

    monkeypatch.setattr(SimBoard, "__init__", remember)
    monkeypatch.setattr(SimBoard, "feed", feed_and_log)
    return boards


class Page:
    """One page on the console's WebSocket: sends commands, reads robot states (the newest wins)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.seen: list[dict[str, Any]] = []
        self.errors: list[str] = []

    def send(self, name: str, **options: Any) -> None:
        """One command message, as the page sends it."""
        self.ws.send_text(json.dumps({"type": "command", "name": name, "options": options}))

    def wait_for(self, test: Callable[[dict[str, Any]], bool], what: str, wait_s: float = WAIT_S) -> dict[str, Any]:
        """The first robot state from now on that passes ``test`` (fails after ``wait_s`` s)."""
        deadline_s = time.monotonic() + wait_s
        while time.monotonic() < deadline_s:
            message = self.ws.receive_json()
            if message["type"] == "error":
                self.errors.append(str(message["message"]))
            if message["type"] != "robot":
                continue
            self.state = message
            self.seen.append(message)
            if test(message):
                return message
        raise AssertionError(f"no robot state with {what} within {wait_s:g} s; last: {self.state}")

    def idle(self, what: str = "idle") -> dict[str, Any]:
        """The next state with the worker idle (no command running)."""
        return self.wait_for(lambda s: s["busy"] == "" and s["phase"] in ("idle", "offline"), what)


class Bench:
    """A console on ``port_url`` (journals in ``journal_dir``) and the simulated boards it makes."""

    def __init__(self, port_url: str, journal_dir: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.boards = record_boards(monkeypatch)
        self.client = TestClient(make_app(ConsoleSettings(port_url, journal_dir=journal_dir)), base_url=BASE_URL)
        self._stack = ExitStack()

    def __enter__(self) -> Bench:
        self._stack.enter_context(self.client)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def page(self) -> Page:
        """A new page (the first one controls the arm)."""
        return Page(self._stack.enter_context(self.client.websocket_connect("ws://127.0.0.1:8765/ws", headers=ORIGIN)))

    @property
    def board(self) -> SimBoard:
        """The simulated board the console drives now (the newest)."""
        assert self.boards, "the console made no simulated board"
        return self.boards[-1]

    @property
    def events(self) -> list[dict[str, Any]]:
        """The current board's events so far."""
        return list(self.board.events)


@contextmanager
def bench_on(port_url: str, journal_dir: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Bench]:
    """A :class:`Bench`, closed after the test."""
    with Bench(port_url, journal_dir, monkeypatch) as bench:
        yield bench


def reset_once_mid_carry(monkeypatch: pytest.MonkeyPatch, *, picks: int = 3) -> None:
    """Every SimBoard made from now on resets once while the arm carries the disk of its ``picks``-th pick, three
    executed segments past the grip (the lift is under way): the limp gripper lets that disk go between its pegs."""
    feed = SimBoard.feed

    def feed_or_reset(board: SimBoard, data: bytes) -> None:
        events = board.events
        picked = [i for i, e in enumerate(events) if e.get("event") == "pick"]
        executed = (
            sum(1 for e in events[picked[picks - 1] :] if e.get("event") == "executed") if len(picked) >= picks else 0
        )
        if executed >= 3 and board.world.held_disk is not None and not getattr(board, "was_reset", False):
            board.was_reset = True  # type: ignore[attr-defined]
            board.reset("test")
        feed(board, data)

    monkeypatch.setattr(SimBoard, "feed", feed_or_reset)
