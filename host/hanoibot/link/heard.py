"""What one session has heard from the board: its HELLO, its last STATUS, how far its commands got, and when.

One :class:`Heard` is shared by the parts of the link that read the board's frames (the handshake, the frame
dispatch) and those that act on what was read (the timers, the session's commands): each is given this record,
not the engine that holds it.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from ..errors import BoardError
from .status import Hello, Status


@dataclass
class Heard:
    """The board's side of one session. Times in s of the session clock; command ids as the host numbered them.

    ``board_seq`` is the last board seq seen (None right after opening the port); ``last_rx_s`` when the last valid
    frame came, ``heard_s`` when the board last sent a line, valid or spoiled; ``progress_s`` when an ack last
    covered a new frame. ``refused`` holds the MOVEs the board refused for a full queue (resent on the resend
    timeout), ``errors`` the board ERRORs to raise at the end of the service round.
    """

    hello: Hello | None = None
    board_seq: int | None = None
    last_rx_s: float = 0.0
    heard_s: float = -math.inf
    progress_s: float = 0.0
    last_done_cmd: int = 0
    last_sent_cmd: int = 0
    last_status: Status | None = None
    statuses: int = 0
    open_cmds: deque[int] = field(default_factory=deque)
    refused: set[int] = field(default_factory=set)
    errors: list[BoardError] = field(default_factory=list)

    def rx_ack(self) -> int:
        """Our ack of the board's frames: the last board seq seen (the board does not need it)."""
        return 0 if self.board_seq is None else self.board_seq

    def done_up_to(self, cmd_id: int) -> None:
        """Commands finish in id order: everything up to ``cmd_id`` is done."""
        if cmd_id > self.last_done_cmd:
            self.last_done_cmd = cmd_id

    def note_move_sent(self, cmd_id: int) -> None:
        """Book MOVE ``cmd_id`` as sent and not yet done."""
        self.open_cmds.append(cmd_id)
        self.last_sent_cmd = cmd_id

    def unfinished(self) -> deque[int]:
        """MOVE ids sent and not known done, oldest first."""
        while self.open_cmds and self.open_cmds[0] <= self.last_done_cmd:
            self.open_cmds.popleft()
        return self.open_cmds

    def forget_boot(self) -> tuple[int, ...]:
        """The board rebooted: forget its commands and STATUS; returns the ids whose fate is unknown (sent, not
        known done), oldest first. They are never replayed."""
        unknown = tuple(self.unfinished())
        self.open_cmds.clear()
        self.last_done_cmd = 0
        self.last_sent_cmd = 0
        self.last_status = None
        return unknown
