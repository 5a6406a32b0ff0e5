"""The frame kinds and the board's ERROR codes, typed: the host's view of the words :mod:`hanoifw.protocol` defines.

The codec stays MicroPython-clean (plain string constants, no :mod:`enum` on the board); each member here is made
of its constant, so the two cannot drift apart. The board's own words (mode, faults, grip, rail) are typed beside
the frames that carry them, in :mod:`hanoibot.link.status`. The host compares these members, never their text.
"""

from __future__ import annotations

from enum import StrEnum

from hanoifw import protocol


class Kind(StrEnum):
    """The kind of a frame, the first word of its line."""

    # host -> board, acted on at once whatever their seq
    SYNC = protocol.SYNC
    ESTOP = protocol.ESTOP
    STATUS = protocol.STATUS  # also the board's answer
    PING = protocol.PING
    # host -> board, reliable
    CONFIG = protocol.CONFIG
    MOVE = protocol.MOVE
    HOLD = protocol.HOLD
    RESUME = protocol.RESUME
    CLEAR = protocol.CLEAR
    RELEASE = protocol.RELEASE
    # board -> host
    HELLO = protocol.HELLO
    ACK = protocol.ACK
    DONE = protocol.DONE
    ERROR = protocol.ERROR
    PONG = protocol.PONG

    def starts(self, line: bytes) -> bool:
        """True if the raw ``line`` (a frame, whole or spoiled) begins as a frame of this kind."""
        return line.startswith(self.value.encode() + b",")


class ErrorCode(StrEnum):
    """The ``code`` of the board's ERROR frame: why it refused a frame."""

    BAD_FRAME = protocol.E_BAD_FRAME
    UNKNOWN_KIND = protocol.E_UNKNOWN_KIND
    NO_SESSION = protocol.E_NO_SESSION
    NOT_CONFIGURED = protocol.E_NOT_CONFIGURED
    BAD_CHANNELS = protocol.E_BAD_CHANNELS
    LIMIT = protocol.E_LIMIT
    BAD_DURATION = protocol.E_BAD_DURATION
    TOO_FAST = protocol.E_TOO_FAST
    REJECTED = protocol.E_REJECTED
    QUEUE_FULL = protocol.E_QUEUE_FULL  # flow control: the MOVE is resent on the resend timeout
    ESTOPPED = protocol.E_ESTOPPED
    FAULTED = protocol.E_FAULTED
    BUSY = protocol.E_BUSY
    INTERNAL = protocol.E_INTERNAL
    BOARD_CONFIG = protocol.E_BOARD_CONFIG
    SERVO_SILENT = protocol.E_SERVO_SILENT


#: Error codes that are flow control, not failures.
QUIET_ERRORS = (ErrorCode.QUEUE_FULL,)
