"""Who may talk to the console: an ASGI middleware for the access token and the WebSocket Origin check.

Bound to a loopback address the console needs no token. Bound elsewhere, every HTTP request and WebSocket must
carry the random token printed with the URL (``?token=``, header ``X-Hanoibot-Token`` or cookie
``hanoibot_token``), compared in constant time. A WebSocket is accepted only when its ``Origin`` is this server
(same scheme-less host and port as the ``Host`` header), so another site open in the browser cannot drive the arm.
"""

from __future__ import annotations

import ipaddress
import secrets
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_HEADER = b"x-hanoibot-token"
TOKEN_COOKIE = "hanoibot_token"


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A fresh random access token (128 bits, URL-safe)."""
    return secrets.token_urlsafe(16)


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {key.lower(): value for key, value in scope.get("headers", [])}


def presented_token(scope: Scope) -> str:
    """The token a request carries in its query, header or cookie ('' when none)."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    if query.get("token"):
        return query["token"][0]
    headers = _headers(scope)
    if TOKEN_HEADER in headers:
        return headers[TOKEN_HEADER].decode("latin-1")
    cookie: SimpleCookie = SimpleCookie()
    cookie.load(headers.get(b"cookie", b"").decode("latin-1"))
    morsel = cookie.get(TOKEN_COOKIE)
    return morsel.value if morsel is not None else ""


def origin_matches_host(scope: Scope) -> bool:
    """True when the WebSocket's Origin names the host and port the request was sent to."""
    headers = _headers(scope)
    origin = headers.get(b"origin", b"").decode("latin-1")
    host = headers.get(b"host", b"").decode("latin-1")
    if not origin or not host:
        return False
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()


class Guard:
    """ASGI middleware: refuse requests without ``token`` (when set) and WebSockets from another origin."""

    def __init__(self, app: ASGIApp, *, token: str | None) -> None:
        self.app = app
        self.token = token

    def _token_ok(self, scope: Scope) -> bool:
        return self.token is None or secrets.compare_digest(presented_token(scope), self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http" and not self._token_ok(scope):
            response = PlainTextResponse("403: this console needs the token printed by hanoibot serve\n", 403)
            await response(scope, receive, send)
            return
        if kind == "websocket" and not (self._token_ok(scope) and origin_matches_host(scope)):
            await send({"type": "websocket.close", "code": 1008, "reason": "token or origin refused"})
            return
        await self.app(scope, receive, _with_cookie(send, self.token) if kind == "http" else send)


def _with_cookie(send: Send, token: str | None) -> Send:
    """``send`` that sets the token cookie on each response, so the page's own requests carry it."""
    if token is None:
        return send

    async def send_with_cookie(message: Any) -> None:
        if message["type"] == "http.response.start":
            cookie = f"{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict".encode("latin-1")
            message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
        await send(message)

    return send_with_cookie
