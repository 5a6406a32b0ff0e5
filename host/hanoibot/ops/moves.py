"""Moving the arm one pose at a time and waiting for each, for the operations a person paces (the grip step of a
calibration; jogging): the command ids numbered on from what the board and the link have seen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..link.status import Status
    from ..run.robot import Robot

#: Time a move may take beyond its planned duration before the wait gives up, in seconds.
WAIT_MARGIN_S = 5.0


class Moves:
    """Poses sent to ``robot``'s board one at a time, each waited for until the board reports it done. Command ids
    go on from the highest the link or the board has seen (a run killed mid-plan may have queued ids the link of
    this process never sent), so none is reused. ``status``: the board's STATUS just read (None: read it now)."""

    def __init__(self, robot: Robot, *, status: Status | None = None, first_margin_s: float = WAIT_MARGIN_S) -> None:
        self.session = robot.session
        status = status if status is not None else self.session.status()
        #: The pose the board reported when the moves began, µs per channel.
        self.pulses_us: tuple[int, ...] = tuple(int(p) for p in status.pulses_us)
        self._next_cmd_id = max(self.session.last_sent_cmd, int(status.last_queued_cmd), int(status.last_done_cmd)) + 1
        self._margin_s = first_margin_s

    def move(self, pulses_us: Sequence[int], duration_ms: int) -> None:
        """Move to ``pulses_us`` (µs per channel) over ``duration_ms`` ms and wait until the board reports it done,
        up to that long and a margin (:data:`WAIT_MARGIN_S`; the first move the ``first_margin_s`` given)."""
        cmd_id = max(self._next_cmd_id, self.session.last_sent_cmd + 1)
        self.session.send_move(cmd_id, list(pulses_us), duration_ms)
        self.session.wait_done(cmd_id, timeout_s=duration_ms / 1000 + self._margin_s)
        self._margin_s = WAIT_MARGIN_S
        self._next_cmd_id = cmd_id + 1
