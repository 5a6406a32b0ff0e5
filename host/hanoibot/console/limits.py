"""How much the console reads from a page: request bodies, WebSocket messages and JSON nesting, all bounded.

A body or message over its bound, or JSON nested deeper than :data:`MAX_JSON_DEPTH`, is refused with a message
that says so before it is parsed (Python's JSON parser would recurse until ``RecursionError`` on a few thousand
brackets). The page's own requests and messages are a few hundred bytes.
"""

from __future__ import annotations

from starlette.requests import Request

#: Most bytes of one request body (``POST /api/plan``, ``/api/lock``).
MAX_BODY_BYTES = 64 * 1024
#: Most bytes of one WebSocket message the server reads (the server's frame limit; the hub checks characters).
MAX_WS_MESSAGE_BYTES = 64 * 1024
#: Deepest nesting of JSON objects and arrays in anything a page sends.
MAX_JSON_DEPTH = 8


class TooLarge(ValueError):
    """A request body over :data:`MAX_BODY_BYTES` (the text says how large)."""


def json_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in the JSON ``text`` (brackets inside strings do not count); a
    linear scan that never recurses, for text that may not even be JSON."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def too_deep(text: str) -> str | None:
    """Why ``text`` is nested too deeply to parse, or None when it is not."""
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        return f"JSON nested {depth} levels deep: expected at most {MAX_JSON_DEPTH}"
    return None


async def read_body(request: Request, limit_bytes: int = MAX_BODY_BYTES) -> bytes:
    """The request's body, read no further than ``limit_bytes``; TooLarge (the declared or read size) beyond."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit_bytes:
        raise TooLarge(f"request body of {int(declared)} bytes: expected at most {limit_bytes}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit_bytes:
            raise TooLarge(f"request body of more than {limit_bytes} bytes: expected at most {limit_bytes}")
        chunks.append(chunk)
    return b"".join(chunks)
