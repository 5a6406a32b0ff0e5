"""The WebSocket clients of one console: who controls the arm, who watches, and what each is sent.

The first client to connect controls; the others watch read-only and are told who controls; when the controller
leaves, the longest-connected watcher takes over. E-stop is accepted from every client (a watcher who sees
trouble must be able to stop the arm). Robot snapshots are coalesced per client: a slow page gets the newest
state, never a backlog. A malformed message gets an ``error`` reply and the console keeps serving.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from itertools import count
from typing import Any

#: Commands the page may send, with the option names and types each takes.
COMMANDS: dict[str, dict[str, type]] = {
    "connect": {"state": str, "pegs": int},
    "run": {"rules": str, "goal": str, "pegs": int},
    "play_move": {"disk": int, "src": int, "dst": int, "rules": str},
    "pause": {},
    "continue": {},
    "stop": {},
    "resume": {},
    "answer": {"peg": str},
    "home": {},
    "clear": {},
    "estop": {},
    "disconnect": {},
    "calibrate": {"action": str, "peg": int, "axis": str, "direction": int, "step_mm": float, "restart": int},
}
#: Most characters one message from a page may have.
MAX_MESSAGE_CHARS = 4096

_STATE = object()  # an outbox marker: send the newest robot snapshot


class MessageError(ValueError):
    """A page message that does not fit the protocol (the text says what was expected)."""


def parse_command(text: str) -> tuple[str, dict[str, Any]]:
    """``(name, options)`` of a ``{"type": "command", "name": ..., "options": {...}}`` message; MessageError."""
    if len(text) > MAX_MESSAGE_CHARS:
        raise MessageError(f"message of {len(text)} characters: expected at most {MAX_MESSAGE_CHARS}")
    try:
        message = json.loads(text)
    except ValueError:
        raise MessageError(f"message {text[:40]!r} is not JSON: expected a JSON object") from None
    if not isinstance(message, dict) or message.get("type") != "command":
        raise MessageError('message is not a command: expected {"type": "command", "name": ..., "options": {...}}')
    name = message.get("name")
    if name not in COMMANDS:
        raise MessageError(f"unknown command {name!r}: expected one of {', '.join(COMMANDS)}")
    options = message.get("options", {})
    if not isinstance(options, dict):
        raise MessageError(f"options of {name} must be a JSON object, got {type(options).__name__}")
    wanted = COMMANDS[name]
    for key, value in options.items():
        if key not in wanted:
            raise MessageError(f"{name} takes no option {key!r}: expected {', '.join(wanted) or 'none'}")
        number = wanted[key] is float and isinstance(value, int)  # JSON writes 2.0 as 2
        if isinstance(value, bool) or not (number or isinstance(value, wanted[key])):
            raise MessageError(f"{name} option {key} = {value!r}: expected {wanted[key].__name__}")
    return name, options


class Client:
    """One page connected over a WebSocket; ``send`` is its coroutine that sends one JSON message."""

    def __init__(self, label: str, send: Callable[[dict[str, Any]], Any]) -> None:
        self.label = label
        self._send = send
        self._outbox: asyncio.Queue[Any] = asyncio.Queue()
        self._state: dict[str, Any] | None = None
        self._state_queued = False

    def push(self, message: dict[str, Any]) -> None:
        """Queue one message for this page."""
        self._outbox.put_nowait(message)

    def push_state(self, snapshot: dict[str, Any]) -> None:
        """Make ``snapshot`` the next robot state this page gets (replacing one not yet sent)."""
        self._state = snapshot
        if not self._state_queued:
            self._state_queued = True
            self._outbox.put_nowait(_STATE)

    def close(self) -> None:
        """End :meth:`pump`."""
        self._outbox.put_nowait(None)

    async def pump(self) -> None:
        """Send queued messages until :meth:`close`."""
        while True:
            message = await self._outbox.get()
            if message is None:
                return
            if message is _STATE:
                self._state_queued = False
                message = self._state
            await self._send(message)


class Hub:
    """Every connected page; ``execute(name, options)`` runs a command, ``estop()`` the e-stop."""

    def __init__(self, execute: Callable[[str, dict[str, Any]], None], estop: Callable[[], None]) -> None:
        self._execute = execute
        self._estop = estop
        self.clients: list[Client] = []
        self._numbers = count(1)
        self.last_state: dict[str, Any] | None = None

    @property
    def controller(self) -> Client | None:
        """The client that controls the arm (the longest connected), or None."""
        return self.clients[0] if self.clients else None

    def join(self, peer: str, send: Callable[[dict[str, Any]], Any]) -> Client:
        """A new page from ``peer`` (host:port); it controls if nobody else does."""
        client = Client(f"tab {next(self._numbers)} ({peer})", send)
        self.clients.append(client)
        self._tell_roles()
        if self.last_state is not None:
            client.push_state(self.last_state)
        return client

    def leave(self, client: Client) -> None:
        """A page went away; the next one in line takes control."""
        if client in self.clients:
            self.clients.remove(client)
            client.close()
            self._tell_roles()

    def _tell_roles(self) -> None:
        controller = self.controller
        for client in self.clients:
            client.push(
                {
                    "type": "role",
                    "you": client.label,
                    "controls": client is controller,
                    "controller": controller.label if controller is not None else "",
                    "watchers": len(self.clients) - 1,
                }
            )

    def publish(self, snapshot: dict[str, Any]) -> None:
        """A robot snapshot for every page (call on the event loop)."""
        self.last_state = snapshot
        for client in self.clients:
            client.push_state(snapshot)

    def handle(self, client: Client, text: str) -> None:
        """One message from ``client``: run it, or reply with an error naming what was wrong."""
        try:
            name, options = parse_command(text)
        except MessageError as err:
            client.push({"type": "error", "message": str(err)})
            return
        if name == "estop":
            self._estop()
            return
        if client is not self.controller:
            controller = self.controller.label if self.controller is not None else "nobody"
            client.push({"type": "error", "message": f"read-only: {controller} controls the arm"})
            return
        self._execute(name, options)
