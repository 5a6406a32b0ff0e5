"""The link as a console run sees it: waits cut into control periods, so an e-stop from the page acts at once.

:class:`StoppableSession` is a :class:`~hanoibot.link.session.Session` whose waits for a command are served in
slices of :data:`CONTROL_PERIOD_S`. Between slices it calls ``on_tick`` (the console's live view) and, once
``stop_event`` is set, sends ESTOP on the spot and raises a :class:`~hanoibot.errors.BoardError` with code
``ESTOP``, which the same :class:`~hanoibot.run.sequencer.Sequencer` that ``hanoibot run`` uses turns into its
ESTOPPED state. Everything else is the session's own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from ..errors import BoardError, LinkLost, LinkTimeout
from ..link.session import Session

#: Longest a wait runs before the e-stop flag and the live view are looked at again, in s (one control tick of
#: the firmware, 10 ms).
CONTROL_PERIOD_S = 0.01
ESTOP_REASON = "E-stop pressed on the console"


class StoppableSession(Session):
    """A session on ``url`` with e-stop checks between control periods; ``on_tick()`` runs between slices."""

    def __init__(self, url: str, stop_event: threading.Event, on_tick: Callable[[], None]) -> None:
        super().__init__(url)
        self._stop_event = stop_event
        self._on_tick = on_tick

    def check_estop(self) -> None:
        """If the page asked for an e-stop: latch it on the board now and raise BoardError(code ESTOP)."""
        if self._stop_event.is_set():
            self.estop()
            raise BoardError(ESTOP_REASON, code="ESTOP")

    def wait_done(self, cmd_id: int, timeout_s: float | None = None) -> None:
        """:meth:`Session.wait_done` in slices of one control period, checking the e-stop between them."""
        clock = self.clock
        deadline_s = None if timeout_s is None else clock.now_s() + timeout_s
        while True:
            self.check_estop()
            slice_s = CONTROL_PERIOD_S if deadline_s is None else min(CONTROL_PERIOD_S, deadline_s - clock.now_s())
            try:
                super().wait_done(cmd_id, timeout_s=max(slice_s, 0.0))
                return
            except LinkLost:
                raise
            except LinkTimeout:
                if deadline_s is not None and clock.now_s() >= deadline_s:
                    raise
            self._on_tick()

    def send_move(
        self, cmd_id: int, pulses_us: Sequence[int], duration_ms: int, *, ramp_ms: int | None = None, blend_ms: int = 0
    ) -> None:
        """:meth:`Session.send_move`, refused once an e-stop was asked for."""
        self.check_estop()
        super().send_move(cmd_id, pulses_us, duration_ms, ramp_ms=ramp_ms, blend_ms=blend_ms)
