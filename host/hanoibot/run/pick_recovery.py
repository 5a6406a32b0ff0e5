"""What the sequencer tracks about segments in flight that its state alone does not say: the grip check and the
recovery from a board that froze for host silence.

The sequencer's ``transitions`` table decides where a run goes; :class:`PickAndRecovery` only counts and remembers
(pick tries, whether a grip verdict is awaited, host-lost recoveries and which command ids they made stale).
"""

from __future__ import annotations

from ..errors import BoardError
from ..link.codes import ErrorCode


class PickAndRecovery:
    """Grip-check and host-lost recovery book-keeping of one run.

    ``max_recoveries``: how often one move may go on after the board froze for host silence (HOST_LOST).
    """

    def __init__(self, max_recoveries: int = 5) -> None:
        self.max_recoveries = max_recoveries
        self.recoveries = 0
        self.pick_tries = 0
        self.awaiting_grip = False
        self.retry_queued = False
        self._recoveries_this_move = 0
        self._renumbered_below = 0

    # --- grip check -----------------------------------------------------------------------------------
    def grip_sent(self) -> None:
        """A grip segment went out: hold back what follows its lift until the sensor confirms the disk."""
        self.awaiting_grip = True

    def grip_held(self) -> None:
        """The sensor confirmed the disk (or there is no verdict to wait for): the pick is over."""
        self.awaiting_grip = False
        self.pick_tries = 0

    def pick_missed(self) -> None:
        """The sensor found the fingers empty: one more try is spent."""
        self.pick_tries += 1
        self.awaiting_grip = False

    # --- host-lost recovery ----------------------------------------------------------------------------
    def may_recover(self) -> bool:
        """True while the current move has recoveries left."""
        return self._recoveries_this_move < self.max_recoveries

    def recovering(self) -> None:
        """Count a recovery of the current move."""
        self.recoveries += 1
        self._recoveries_this_move += 1
        self.retry_queued = False

    def renumbered_from(self, next_cmd_id: int) -> None:
        """What the board dropped goes out again from ``next_cmd_id`` on: its refusals of lower ids are stale."""
        self._renumbered_below = next_cmd_id

    def move_done(self) -> None:
        """A move finished: the next one starts with every recovery available."""
        self._recoveries_this_move = 0

    def is_stale_refusal(self, err: BoardError) -> bool:
        """True for a MOVE the board refused while frozen, which a recovery has already sent again."""
        return err.code == ErrorCode.FAULTED and err.cmd_id is not None and err.cmd_id < self._renumbered_below
