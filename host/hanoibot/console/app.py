"""The console's Starlette application: the page, its JSON endpoints and the live WebSocket.

Routes (each only for a ``Host`` of :func:`.addresses.allowed_hosts`, by Starlette's ``TrustedHostMiddleware``,
and past the token and origin checks of :mod:`.guard`): ``/`` the page; ``/static/*`` its ES modules and
stylesheet (package data, nothing from the network); ``POST /api/plan`` the planner's answer for a position
(:mod:`.planning`); ``POST /api/lock`` a press of the twin-tower lock (:mod:`.lock_game`) -- both only as
``application/json`` with the header ``X-Hanoibot-Request`` (which a cross-site form cannot send, and a cross-site
script only after a CORS preflight we never grant), bodies bounded by :data:`.limits.MAX_BODY_BYTES`;
``GET /api/layout`` the schematic board of the SVG renderer for a peg and disk count; ``/ws`` the live robot state
and the robot commands (:mod:`.hub`; messages nested deeper than :data:`.limits.MAX_JSON_DEPTH` are refused).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..errors import HanoiError
from ..render.layout import schematic_layout
from .addresses import LOOPBACK_HOSTS
from .guard import Guard
from .hub import Hub
from .limits import TooLarge, read_body, too_deep
from .lock_game import lock_answer
from .planning import MAX_CONSOLE_PEGS, MAX_DISKS, answer, colour_puzzle_json
from .robot_view import geometry_json
from .robot_worker import RobotWorker

STATIC_DIR = Path(__file__).with_name("static")


@dataclass(frozen=True)
class ConsoleSettings:
    """What ``hanoibot serve`` was told: the one port and config it may open, the token (None on loopback), the
    ``Host`` names it answers to (lower case, IPv6 in brackets; the loopback names unless bound elsewhere)."""

    port_url: str = "sim://"
    config_path: str | None = None
    token: str | None = None
    journal_dir: str | None = None
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS


#: The header every planner and lock request of the page carries (a cross-site form cannot add a header).
REQUEST_HEADER = "x-hanoibot-request"


def _bad_request(message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=400)


async def _answered(request: Request, answer_for: Callable[[dict[str, Any]], dict[str, Any]]) -> Response:
    """``answer_for(body)`` of the posted JSON object, run off the event loop; 400 with the message if it is bad,
    403 without the page's header, 413 for a body over the bound, 415 for a body that is not ``application/json``."""
    if not request.headers.get(REQUEST_HEADER):
        return JSONResponse({"error": f"the {REQUEST_HEADER} header is missing: only the console page may ask"}, 403)
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        return JSONResponse({"error": f"content type {media_type or 'none'!r}: expected application/json"}, 415)
    try:
        text = (await read_body(request)).decode("utf-8")
    except TooLarge as err:
        return JSONResponse({"error": str(err)}, 413)
    except UnicodeDecodeError:
        return _bad_request("the request body is not UTF-8 text: expected a JSON object")
    deep = too_deep(text)
    if deep is not None:
        return _bad_request(deep)
    try:
        body = json.loads(text)
    except ValueError:
        return _bad_request("the request body is not JSON: expected a JSON object")
    if not isinstance(body, dict):
        return _bad_request("the request body is not a JSON object")
    try:
        return JSONResponse(await run_in_threadpool(answer_for, body))
    except HanoiError as err:
        return _bad_request(str(err))


async def plan_endpoint(request: Request) -> Response:
    """The planner's answer (moves left, next move, up to ``limit`` moves) for the posted position."""
    return await _answered(request, answer)


async def lock_endpoint(request: Request) -> Response:
    """The twin-tower lock after the posted press, or a new lock (:mod:`.lock_game`)."""
    return await _answered(request, lock_answer)


async def layout_endpoint(request: Request) -> Response:
    """The schematic board (mm) the SVG renderer draws for ``pegs`` and ``disks``; with ``puzzle`` (bicolor,
    tricolor) the coloured board of ``disks`` sizes, with the puzzle's ``start`` and ``goal`` stacks."""
    try:
        pegs = int(request.query_params.get("pegs", "3"))
        disks = int(request.query_params.get("disks", "3"))
    except ValueError:
        return _bad_request("pegs and disks must be whole numbers")
    puzzle = request.query_params.get("puzzle")
    if puzzle is not None:
        try:
            return JSONResponse(colour_puzzle_json(puzzle, disks))
        except HanoiError as err:
            return _bad_request(str(err))
    if not (3 <= pegs <= MAX_CONSOLE_PEGS and 1 <= disks <= MAX_DISKS):
        return _bad_request(f"pegs {pegs}, disks {disks}: expected 3-{MAX_CONSOLE_PEGS} pegs and 1-{MAX_DISKS} disks")
    return JSONResponse(geometry_json(schematic_layout(pegs, disks)))


async def page_endpoint(request: Request) -> Response:
    """The console page."""
    return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-store"})


def make_app(settings: ConsoleSettings) -> Starlette:
    """The console for ``settings``; the robot worker starts with the app and stops with it."""
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        hub = Hub(execute=lambda name, options: worker.submit(name, **options), estop=lambda: worker.estop())
        worker = RobotWorker(
            settings.port_url,
            settings.config_path,
            lambda snapshot: loop.call_soon_threadsafe(hub.publish, snapshot),
            journal_dir=settings.journal_dir,
        )
        state.update(hub=hub, worker=worker)
        try:
            yield
        finally:
            await run_in_threadpool(worker.close)

    async def robot_endpoint(request: Request) -> Response:
        """The arm's port and board geometry (mm) for the robot view."""
        worker: RobotWorker = state["worker"]
        return JSONResponse({"port": settings.port_url, "geometry": worker.geometry})

    async def websocket_endpoint(websocket: WebSocket) -> None:
        """Live robot state out, commands in; one controlling page, the others watch."""
        hub: Hub = state["hub"]
        await websocket.accept()
        peer = f"{websocket.client.host}:{websocket.client.port}" if websocket.client else "unknown"
        client = hub.join(peer, websocket.send_json)
        pump = asyncio.create_task(client.pump())
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    client.push({"type": "error", "message": "binary message: expected JSON text"})
                    continue
                deep = too_deep(text)
                if deep is not None:
                    client.push({"type": "error", "message": f"message refused: {deep}"})
                    continue
                hub.handle(client, text)
        except WebSocketDisconnect:
            pass
        finally:
            hub.leave(client)
            with contextlib.suppress(Exception):
                await pump

    routes = [
        Route("/", page_endpoint),
        Route("/api/plan", plan_endpoint, methods=["POST"]),
        Route("/api/layout", layout_endpoint),
        Route("/api/lock", lock_endpoint, methods=["POST"]),
        Route("/api/robot", robot_endpoint),
        WebSocketRoute("/ws", websocket_endpoint),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    middleware = [
        Middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts), www_redirect=False),
        Middleware(Guard, token=settings.token),
    ]
    return Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
