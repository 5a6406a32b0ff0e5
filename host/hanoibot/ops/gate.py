"""E-stop semantics, defined once for every front end (DESIGN decision 16).

An e-stop **preempts**: it reaches the board before anything queued (the front end's link checks
:attr:`StopGate.wanted` at every control period and sends ESTOP on the spot), it **flushes** every command any
front end queued before it (each command carries the :attr:`StopGate.epoch` it was issued in; one from before the
latest e-stop is discarded, and the user is told), and **nothing moves until an explicit Clear issued after it**
(the board's latch refuses motion; a Clear or Home issued before the e-stop is one of the discarded commands).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ..errors import HanoiError


class Discarded(HanoiError):
    """A command issued before the latest e-stop: flushed, never run (the message says which, and what to do)."""


@dataclass(frozen=True)
class Ticket:
    """A command as issued: its ``name`` and the e-stop epoch it was issued in."""

    name: str
    epoch: int


class StopGate:
    """The e-stop state shared by the threads of one front end: safe to call from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._epoch = 0
        self.wanted = threading.Event()  # set from the press until the board confirmed the latch

    @property
    def epoch(self) -> int:
        """How many e-stops were pressed so far."""
        with self._lock:
            return self._epoch

    def issue(self, name: str) -> Ticket:
        """Stamp command ``name`` as issued now."""
        with self._lock:
            return Ticket(name, self._epoch)

    def press(self) -> int:
        """An e-stop was pressed: every command issued before now is stale; returns the new epoch."""
        with self._lock:
            self._epoch += 1
            self.wanted.set()
            return self._epoch

    def latched(self) -> None:
        """The board confirmed the latch: the link need not send ESTOP again."""
        self.wanted.clear()

    def is_stale(self, ticket: Ticket) -> bool:
        """True when ``ticket`` was issued before the latest e-stop."""
        with self._lock:
            return ticket.epoch < self._epoch

    def admit(self, ticket: Ticket) -> None:
        """Discarded when ``ticket`` was issued before the latest e-stop (it must not run)."""
        if self.is_stale(ticket):
            raise Discarded(
                f"{ticket.name} was sent before the E-STOP and was discarded: "
                "look at the arm, then press Clear (and Home) again"
            )
