"""The link as a console run sees it: waits cut into control periods, so an e-stop from the page acts at once.

:class:`StoppableLink` wraps a :class:`~hanoibot.link.session.Session` and is handed to the same
:class:`~hanoibot.run.sequencer.Sequencer` that ``hanoibot run`` uses. Every wait for a command is served in slices
of :data:`CONTROL_PERIOD_S`; between slices it calls ``on_tick`` (the console's live view) and, once
``stop_event`` is set, sends ESTOP on the spot and raises a :class:`~hanoibot.errors.BoardError` with code
``ESTOP``, which the sequencer turns into its ESTOPPED state. Everything else is the session's own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..errors import BoardError, LinkLost, LinkTimeout

#: Longest a wait runs before the e-stop flag and the live view are looked at again, in s (the firmware's
#: control tick is 20 ms).
CONTROL_PERIOD_S = 0.02
ESTOP_REASON = "E-stop pressed on the console"


class StoppableLink:
    """``session`` with e-stop checks between control periods; ``on_tick()`` runs between slices of a wait."""

    def __init__(self, session: Any, stop_event: threading.Event, on_tick: Callable[[], None]) -> None:
        self._session = session
        self._stop_event = stop_event
        self._on_tick = on_tick

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def check_estop(self) -> None:
        """If the page asked for an e-stop: latch it on the board now and raise BoardError(code ESTOP)."""
        if self._stop_event.is_set():
            self._session.estop()
            raise BoardError(ESTOP_REASON, code="ESTOP")

    def wait_done(self, cmd_id: int, timeout_s: float | None = None) -> None:
        """The session's ``wait_done`` in slices of one control period, checking the e-stop between them."""
        clock = self._session.clock
        deadline_s = None if timeout_s is None else clock.now_s() + timeout_s
        while True:
            self.check_estop()
            slice_s = CONTROL_PERIOD_S if deadline_s is None else min(CONTROL_PERIOD_S, deadline_s - clock.now_s())
            try:
                self._session.wait_done(cmd_id, timeout_s=max(slice_s, 0.0))
                return
            except LinkLost:
                raise
            except LinkTimeout:
                if deadline_s is not None and clock.now_s() >= deadline_s:
                    raise
            self._on_tick()

    def send_move(self, cmd_id: int, pulses_us: Any, duration_ms: int) -> None:
        """The session's ``send_move``, refused once an e-stop was asked for."""
        self.check_estop()
        self._session.send_move(cmd_id, pulses_us, duration_ms)
