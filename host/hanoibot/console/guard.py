"""Who may talk to the console: an ASGI middleware for the access token and the WebSocket Origin check.

Bound to a loopback address the console needs no token. Bound elsewhere, every HTTP request and WebSocket must
carry the random token printed with the URL (``?token=``, header ``X-Hanoibot-Token`` or the cookie), compared in
constant time; a missing, wrong or malformed one (non-ASCII, a broken cookie) is a 403. The page's first load
(``GET /?token=``) is answered by a redirect to the same address without it that sets the token as an ``HttpOnly``,
``SameSite=Strict`` cookie, so the token leaves the address bar and the history. A WebSocket is accepted only
when its ``Origin`` is this server (same scheme-less host and port as the ``Host`` header), so another site open
in the browser cannot drive the arm. Which ``Host`` names are answered at all is Starlette's
``TrustedHostMiddleware``'s job (:func:`hanoibot.console.addresses.allowed_hosts`).
"""

from __future__ import annotations

import ipaddress
import secrets
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qsl, urlencode, urlsplit

from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_HEADER = b"x-hanoibot-token"
#: The token cookie's name is this plus the server's port: cookies are not kept apart by port, two consoles are.
TOKEN_COOKIE_PREFIX = "hanoibot_token_"


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


def cookie_name(scope: Scope) -> str:
    """The token cookie's name for the server this request reached (its port in the name)."""
    server = scope.get("server") or ("", 0)
    return f"{TOKEN_COOKIE_PREFIX}{server[1]}"


def presented_token(scope: Scope) -> str:
    """The token a request carries in its query, header or cookie ('' when none or when the cookie is broken)."""
    query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
    if query.get("token"):
        return query["token"]
    headers = _headers(scope)
    if TOKEN_HEADER in headers:
        return headers[TOKEN_HEADER].decode("latin-1")
    cookie: SimpleCookie = SimpleCookie()
    try:
        cookie.load(headers.get(b"cookie", b"").decode("latin-1"))
    except CookieError:
        return ""
    morsel = cookie.get(cookie_name(scope))
    return morsel.value if morsel is not None else ""


def origin_matches_host(scope: Scope) -> bool:
    """True when the WebSocket's Origin names the host and port the request was sent to."""
    headers = _headers(scope)
    origin = headers.get(b"origin", b"").decode("latin-1")
    host = headers.get(b"host", b"").decode("latin-1")
    if not origin or not host:
        return False
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()


def _token_in_query(scope: Scope) -> bool:
    return any(key == "token" for key, _ in parse_qsl(scope.get("query_string", b"").decode("latin-1")))


def _clean_location(scope: Scope) -> str:
    """The request's path and query without the token (a relative URL for the redirect)."""
    kept = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1")) if k != "token"]
    return scope.get("path", "/") + (f"?{urlencode(kept)}" if kept else "")


class Guard:
    """ASGI middleware: refuse requests without ``token`` (when set) and WebSockets from another origin."""

    def __init__(self, app: ASGIApp, *, token: str | None) -> None:
        self.app = app
        self.token = token

    def _token_ok(self, scope: Scope) -> bool:
        """True when no token is needed or the request carries it; any malformed token is simply not it."""
        if self.token is None:
            return True
        presented = presented_token(scope).encode("utf-8", "surrogateescape")
        return secrets.compare_digest(presented, self.token.encode("ascii"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http" and not self._token_ok(scope):
            response = PlainTextResponse("403: this console needs the token printed by hanoibot serve\n", 403)
            await response(scope, receive, send)
            return
        if kind == "websocket" and not (self._token_ok(scope) and origin_matches_host(scope)):
            await send({"type": "websocket.close", "code": 1008, "reason": "token or origin refused"})
            return
        if kind == "http" and self._is_first_page_load(scope):
            await self._move_token_to_cookie(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _is_first_page_load(self, scope: Scope) -> bool:
        """True for a GET of the page (``/``) with the token in its address (other paths keep answering tools)."""
        return (
            self.token is not None
            and scope.get("method") == "GET"
            and scope.get("path") == "/"
            and _token_in_query(scope)
        )

    async def _move_token_to_cookie(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a GET that has the (right) token in its address with a redirect to the address without it,
        setting the token cookie: the address bar and the history never keep it."""
        assert self.token is not None
        redirect = RedirectResponse(_clean_location(scope), status_code=303, headers={"Cache-Control": "no-store"})
        redirect.set_cookie(cookie_name(scope), self.token, path="/", httponly=True, samesite="strict")
        await redirect(scope, receive, send)
