"""The console app over HTTP and WebSocket (Starlette's test client): Host, token, origin, roles, bad input."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hanoibot.console.app import ConsoleSettings, make_app
from hanoibot.console.guard import is_loopback
from starlette.testclient import TestClient, WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

#: Where the test client says it is (Host header), and a WebSocket's headers from this console's own page there
#: (the test client's WebSockets go to ws://testserver unless told the Host).
BASE = "http://127.0.0.1:8765"
ORIGIN = {"host": "127.0.0.1:8765", "origin": BASE}
#: What the page's own planner and lock requests carry.
PAGE = {"x-hanoibot-request": "1"}


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(make_app(ConsoleSettings()), base_url=BASE) as test_client:
        yield test_client


@pytest.fixture
def guarded() -> Iterator[TestClient]:
    """A console bound off loopback (token s3cret) that answers to the host name ``hanoi.lan``."""
    hosts = ("hanoi.lan", "127.0.0.1")
    with TestClient(make_app(ConsoleSettings(token="s3cret", allowed_hosts=hosts)), base_url=BASE) as test_client:
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
    assert client.post("/api/plan", json=body, headers=PAGE).json()["moves_left"] == 7
    bad = client.post("/api/plan", content=b"{not json", headers={**PAGE, "content-type": "application/json"})
    assert bad.status_code == 400 and "not JSON" in bad.json()["error"]
    wrong = client.post("/api/plan", json={**body, "pegs": 2}, headers=PAGE)
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
    assert guarded.get("/api/layout", headers={"x-hanoibot-token": "s3cret"}).status_code == 200
    assert guarded.get("/?token=s3cret").status_code == 200  # after the redirect that sets the cookie
    guarded.cookies.clear()  # the page's cookie would carry the token
    with pytest.raises(WebSocketDisconnect), guarded.websocket_connect("/ws", headers=ORIGIN) as ws:
        ws.receive_json()
    with guarded.websocket_connect("/ws?token=s3cret", headers=ORIGIN) as ws:
        assert next_of(ws, "role")["controls"] is True


def test_websocket_from_another_origin_is_refused(client: TestClient) -> None:
    for headers in ({"host": ORIGIN["host"], "origin": "http://evil.example"}, {"host": ORIGIN["host"]}):
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


# --- DNS rebinding: a foreign Host is refused, for HTTP and WebSocket -----------------------------------------


def refused_websocket(client: TestClient, headers: dict[str, str], path: str = "/ws") -> bool:
    """True when the WebSocket handshake with ``headers`` (str or raw bytes values) is refused (denied or closed
    before any message)."""
    try:
        with client.websocket_connect(path, headers=headers) as ws:
            ws.receive_json()
    except (WebSocketDisconnect, WebSocketDenialResponse):
        return True
    return False


FOREIGN = {"host": "attacker.example:8765", "origin": "http://attacker.example:8765"}


def test_a_foreign_host_is_refused_for_http_and_websocket_on_loopback(client: TestClient) -> None:
    """A page of attacker.example whose DNS name now points at 127.0.0.1 (DNS rebinding) gets nothing: not the
    page, not the planner, not the WebSocket that drives the arm, although its Origin matches its Host."""
    for path in ("/", "/api/layout?pegs=3&disks=3", "/api/robot", "/static/console.js"):
        refused = client.get(path, headers={"host": FOREIGN["host"]})
        assert refused.status_code == 400 and "host" in refused.text.lower(), path
    body = {"disks": 3, "pegs": 3, "rules": "classic", "state": "AAA", "goal": "CCC"}
    assert client.post("/api/plan", json=body, headers={**PAGE, "host": FOREIGN["host"]}).status_code == 400
    assert refused_websocket(client, FOREIGN)
    for name in ("localhost", "127.0.0.1", "[::1]"):  # the loopback names still work
        assert client.get("/", headers={"host": f"{name}:8765"}).status_code == 200, name
        assert not refused_websocket(client, {"host": f"{name}:8765", "origin": f"http://{name}:8765"}), name


def test_a_foreign_host_is_refused_off_loopback_even_with_the_token(guarded: TestClient) -> None:
    assert guarded.get("/?token=s3cret", headers={"host": "attacker.example"}).status_code == 400
    assert refused_websocket(guarded, FOREIGN, "/ws?token=s3cret")
    assert guarded.get("/?token=s3cret", headers={"host": "hanoi.lan:8765"}).status_code == 200
    assert not refused_websocket(
        guarded, {"host": "hanoi.lan:8765", "origin": "http://hanoi.lan:8765"}, "/ws?token=s3cret"
    )


def test_allowed_hosts_are_loopback_names_on_loopback_and_this_machines_names_elsewhere() -> None:
    import socket

    from hanoibot.console.addresses import allowed_hosts

    assert set(allowed_hosts("127.0.0.1")) == {"localhost", "127.0.0.1", "[::1]"}
    assert set(allowed_hosts("::1")) == {"localhost", "127.0.0.1", "[::1]"}
    everywhere = allowed_hosts("0.0.0.0")
    assert socket.gethostname().lower() in everywhere and "0.0.0.0" not in everywhere
    for *_rest, sockaddr in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
        assert sockaddr[0] in everywhere
    assert {"localhost", "127.0.0.1"} <= set(everywhere)
    assert "attacker.example" not in everywhere
    assert "192.0.2.77" in allowed_hosts("192.0.2.77")


# --- malformed tokens: 403, never 500 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("query", "%C3%A9t%C3%A9"),  # a non-ASCII token in the address
        ("query", "%FF%FE"),  # not even UTF-8
        ("header", "\u00e9t\u00e9"),
        ("cookie", 'hanoibot_token_8765="\\\\x"; ;=;'),  # a broken cookie
        ("cookie", "hanoibot_token_8765=\u00e9"),
    ],
)
def test_a_malformed_token_is_403_never_500(where: str, value: str) -> None:
    settings = ConsoleSettings(token="s3cret", allowed_hosts=("127.0.0.1",))
    with TestClient(make_app(settings), base_url=BASE, raise_server_exceptions=False) as guarded:
        if where == "query":
            response = guarded.get(f"/?token={value}")
        elif where == "header":
            response = guarded.get("/", headers={"x-hanoibot-token": value.encode("utf-8")})
        else:
            response = guarded.get("/", headers={"cookie": value.encode("utf-8")})
        assert response.status_code == 403, response.text
        ws_query = f"/ws?token={value}" if where == "query" else "/ws"
        assert refused_websocket(guarded, ORIGIN, ws_query)


# --- the token leaves the address bar ---------------------------------------------------------------------------


def test_the_first_load_moves_the_token_into_an_httponly_strict_cookie(guarded: TestClient) -> None:
    first = guarded.get("/?token=s3cret&disks=5", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/?disks=5"
    cookie = first.headers["set-cookie"]
    assert cookie.startswith("hanoibot_token_8765=s3cret;")
    assert "HttpOnly" in cookie and "samesite=strict" in cookie.lower()
    after = guarded.get(first.headers["location"])  # the clean URL, with the cookie only
    assert after.status_code == 200 and "hanoibot console" in after.text
    assert guarded.get("/api/layout?pegs=3&disks=3").status_code == 200
    assert guarded.get("/?token=wrong", follow_redirects=False).status_code == 403  # no cookie for a wrong token
    guarded.cookies.clear()
    assert guarded.get("/").status_code == 403
    tool = guarded.get("/api/layout?pegs=3&disks=3&token=s3cret", follow_redirects=False)  # a tool, not the page
    assert tool.status_code == 200 and "set-cookie" not in tool.headers


# --- bounded bodies, JSON only with the page's header ---------------------------------------------------------


PLAN = {"disks": 3, "pegs": 3, "rules": "classic", "state": "AAA", "goal": "CCC"}


def test_plan_requests_only_as_json_with_the_pages_header(client: TestClient) -> None:
    text = json.dumps(PLAN)
    assert client.post("/api/plan", content=text, headers={"content-type": "application/json"}).status_code == 403
    for form_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        refused = client.post("/api/plan", content=text, headers={**PAGE, "content-type": form_type})
        assert refused.status_code == 415 and "application/json" in refused.json()["error"], form_type
    assert client.post("/api/lock", content=b'{"length": 5}', headers={"content-type": "text/plain"}).status_code == 403
    ok = client.post("/api/plan", content=text, headers={**PAGE, "content-type": "application/json; charset=utf-8"})
    assert ok.status_code == 200 and ok.json()["moves_left"] == 7


def test_a_large_request_body_is_refused(client: TestClient) -> None:
    """Over 64 KiB, streamed or declared, is a 413 (``test_cli_serve`` shows the real server stops reading)."""
    headers = {**PAGE, "content-type": "application/json"}

    def body() -> Iterator[bytes]:  # streamed, without a Content-Length
        for _ in range(4):
            yield b" " * (1 << 20)

    refused = client.post("/api/plan", content=body(), headers=headers)
    assert refused.status_code == 413 and "65536" in refused.json()["error"]
    declared = client.post("/api/plan", content=b"{}", headers={**headers, "content-length": "200000000"})
    assert declared.status_code == 413 and "200000000 bytes" in declared.json()["error"]


def test_deeply_nested_json_is_refused_with_a_message(client: TestClient) -> None:
    headers = {**PAGE, "content-type": "application/json"}
    nested = "[" * 2000 + "]" * 2000
    refused = client.post("/api/plan", content=nested, headers=headers)
    assert refused.status_code == 400 and "nested 2000 levels" in refused.json()["error"]
    assert client.post("/api/plan", json=PLAN, headers=PAGE).status_code == 200


def test_a_nested_4000_character_message_gets_an_error_and_the_socket_keeps_serving(client: TestClient) -> None:
    with client.websocket_connect("/ws", headers=ORIGIN) as ws:
        next_of(ws, "role")
        ws.send_text("[" * 2000 + "]" * 2000)
        assert "nested 2000 levels" in str(next_of(ws, "error")["message"])
        ws.send_text('{"type": "command", "name": "fly"}')  # the same socket still answers
        assert "unknown command 'fly'" in str(next_of(ws, "error")["message"])


@pytest.mark.parametrize(
    ("text", "depth"),
    [("{}", 1), ('[{"a": [1]}]', 3), ('["[[[[", {"b": "]]"}]', 2), (r'"\\"[[', 2), (r'"\\\"["[', 1), ("", 0)],
)
def test_json_depth_counts_brackets_outside_strings(text: str, depth: int) -> None:
    from hanoibot.console.limits import json_depth

    assert json_depth(text) == depth
