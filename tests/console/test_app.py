"""The console app over HTTP and WebSocket (Starlette's test client): token, origin, roles, bad messages."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hanoibot.console.app import ConsoleSettings, make_app
from hanoibot.console.guard import is_loopback
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

ORIGIN = {"origin": "http://testserver"}


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(make_app(ConsoleSettings())) as test_client:
        yield test_client


@pytest.fixture
def guarded() -> Iterator[TestClient]:
    with TestClient(make_app(ConsoleSettings(token="s3cret"))) as test_client:
        yield test_client


def next_of(ws: object, kind: str, limit: int = 20) -> dict[str, object]:
    """The next message of ``kind`` on the WebSocket (others are skipped, at most ``limit``)."""
    for _ in range(limit):
        message = ws.receive_json()  # type: ignore[attr-defined]
        if message["type"] == kind:
            return message  # type: ignore[no-any-return]
    raise AssertionError(f"no {kind} message within {limit} messages")


def test_page_and_static_modules_are_served_from_the_package(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "hanoibot console" in page.text
    for name in ("console.js", "board.js", "puzzle.js", "robot.js", "lock.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert "http" not in client.get("/static/console.js").text.replace("http://www.w3.org", "")


def test_plan_endpoint_answers_and_rejects_bad_json(client: TestClient) -> None:
    body = {"disks": 3, "pegs": 3, "rules": "classic", "state": "AAA", "goal": "CCC"}
    assert client.post("/api/plan", json=body).json()["moves_left"] == 7
    bad = client.post("/api/plan", content=b"{not json")
    assert bad.status_code == 400 and "not JSON" in bad.json()["error"]
    wrong = client.post("/api/plan", json={**body, "pegs": 2})
    assert wrong.status_code == 400 and "pegs = 2" in wrong.json()["error"]


def test_layout_endpoint_is_the_renderers_schematic_board(client: TestClient) -> None:
    from hanoibot.render.layout import schematic_layout

    got = client.get("/api/layout?pegs=4&disks=5").json()
    assert got["peg_u_mm"] == list(schematic_layout(4, 5).peg_u_mm)
    assert client.get("/api/layout?pegs=9&disks=5").status_code == 400


def test_request_without_the_token_is_refused_off_localhost(guarded: TestClient) -> None:
    assert guarded.get("/").status_code == 403
    assert guarded.get("/api/layout?pegs=3&disks=3").status_code == 403
    assert guarded.get("/?token=wrong").status_code == 403
    assert guarded.get("/?token=s3cret").status_code == 200
    assert guarded.get("/api/layout", headers={"x-hanoibot-token": "s3cret"}).status_code == 200
    guarded.cookies.clear()  # the page's cookie would carry the token
    with pytest.raises(WebSocketDisconnect), guarded.websocket_connect("/ws", headers=ORIGIN) as ws:
        ws.receive_json()
    with guarded.websocket_connect("/ws?token=s3cret", headers=ORIGIN) as ws:
        assert next_of(ws, "role")["controls"] is True


def test_websocket_from_another_origin_is_refused(client: TestClient) -> None:
    for headers in ({"origin": "http://evil.example"}, {}):
        with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws", headers=headers) as ws:
            ws.receive_json()


def test_one_controller_others_read_only_and_told_who(client: TestClient) -> None:
    with client.websocket_connect("/ws", headers=ORIGIN) as first:
        assert next_of(first, "role")["controls"] is True
        with client.websocket_connect("/ws", headers=ORIGIN) as second:
            role = next_of(second, "role")
            assert role["controls"] is False and str(role["controller"]).startswith("tab 1")
            second.send_text(json.dumps({"type": "command", "name": "home"}))
            assert "read-only" in str(next_of(second, "error")["message"])
        # the watcher left: the controller is told it has no watchers left
        assert next_of(first, "role")["watchers"] == 1
        assert next_of(first, "role")["watchers"] == 0


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "not a command"),
        ('{"type": "command", "name": "fly"}', "unknown command 'fly'"),
        ('{"type": "command", "name": "run", "options": {"goal": 3}}', "goal = 3"),
        ('{"type": "command", "name": "run", "options": {"speed": "x"}}', "no option 'speed'"),
        ('{"type": "command", "name": "run", "options": []}', "must be a JSON object"),
    ],
)
def test_malformed_message_gets_an_error_and_the_server_keeps_serving(client: TestClient, text: str, says: str) -> None:
    with client.websocket_connect("/ws", headers=ORIGIN) as ws:
        ws.send_text(text)
        assert says in str(next_of(ws, "error")["message"])
        ws.send_bytes(b"\x00\x01")
        assert "binary" in str(next_of(ws, "error")["message"])
    assert client.get("/api/layout?pegs=3&disks=3").status_code == 200


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("::1", True), ("localhost", True),
                                                ("127.0.0.2", True), ("0.0.0.0", False), ("192.168.1.5", False),
                                                ("example.org", False)])  # fmt: skip
def test_only_loopback_binds_go_without_a_token(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_layout_endpoint_gives_a_coloured_puzzles_board_start_and_goal(client: TestClient) -> None:
    from hanoibot.puzzle import State
    from hanoibot.puzzle.colours import colours_of, start_and_goal

    got = client.get("/api/layout?puzzle=bicolor&disks=3").json()
    assert got["disk_colours"] == ["red", "green"] * 3
    widths = got["disk_diameters_mm"]
    assert widths[0] == widths[1] < widths[2] == widths[3] < widths[4] == widths[5]
    start, goal = start_and_goal("bicolor", 3)
    assert colours_of(got["start"], 2) == start and colours_of(got["goal"], 2) == goal
    assert State(got["start"]).n_disks == 6
    assert client.get("/api/layout?puzzle=bicolor&disks=7").status_code == 400
    assert "'fourcolor'" in client.get("/api/layout?puzzle=fourcolor&disks=2").json()["error"]
    assert client.get("/api/layout?pegs=3&disks=3").json()["disk_colours"] == []
