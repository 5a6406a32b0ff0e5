"""What the board says about itself: HELLO at boot or SYNC, STATUS on request, parsed into typed values.

Field layouts come from :data:`hanoifw.protocol.FIELD_NAMES` (the one codec). A frame that does not fit is a
:class:`~hanoibot.errors.ProtocolMismatch` naming what was wrong.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple, TypeVar

from hanoifw import protocol

from ..errors import ProtocolMismatch


class Mode(StrEnum):
    """The board's ``mode`` in HELLO and STATUS (words from :mod:`hanoifw.protocol`)."""

    UNCONFIGURED = protocol.MODE_UNCONFIGURED
    IDLE = protocol.MODE_IDLE
    MOVING = protocol.MODE_MOVING
    HELD = protocol.MODE_HELD
    ESTOP = protocol.MODE_ESTOP
    FAULT = protocol.MODE_FAULT
    BOARD_ERROR = protocol.MODE_BOARD_ERROR


class Fault(StrEnum):
    """A fault name in STATUS ``faults`` (latched until CLEAR; REJECTED while a refused MOVE blocks the queue)."""

    ESTOP = protocol.FAULT_ESTOP
    HOST_LOST = protocol.FAULT_HOST_LOST
    POWER_LOST = protocol.FAULT_POWER_LOST
    LIMIT = protocol.FAULT_LIMIT
    INTERNAL = protocol.FAULT_INTERNAL
    REJECTED = protocol.FAULT_REJECTED
    COLLISION = protocol.FAULT_COLLISION
    DROP = protocol.FAULT_DROP
    BAD_STACK = protocol.FAULT_BAD_STACK
    SERVO_SILENT = protocol.FAULT_SERVO_SILENT


class Grip(StrEnum):
    """The board's grip verdict: a disk held, none, no verdict (``unknown``) or no sensor (``none``)."""

    NONE = protocol.GRIP_NONE
    UNKNOWN = protocol.GRIP_UNKNOWN
    HELD = protocol.GRIP_HELD
    EMPTY = protocol.GRIP_EMPTY


class Rail(StrEnum):
    """The servo rail as the board's rail sense input sees it, or ``none`` when not wired."""

    NONE = protocol.RAIL_NONE
    ON = protocol.RAIL_ON
    OFF = protocol.RAIL_OFF


_W = TypeVar("_W", bound=StrEnum)

#: ``mode`` values of a board that will not move until the host clears it.
STOPPED_MODES = (Mode.ESTOP, Mode.FAULT, Mode.BOARD_ERROR)

#: Protocol words in the board's error texts, and what a person runs instead.
PEOPLE_WORDS = (("send CLEAR", "clear it with: hanoibot home --clear"),)


def for_people(text: str) -> str:
    """A board's error text with protocol instructions (``send CLEAR``) replaced by the command to run."""
    for board_words, command in PEOPLE_WORDS:
        text = text.replace(board_words, command)
    return text


class Status(NamedTuple):
    """One STATUS report. Pulses in µs per channel (0 = output off).

    ``grip`` is the board's verdict: ``held``, ``empty``, ``unknown`` (no threshold yet, or the read failed) or
    ``none`` (no sensor); ``grip_raw`` the grip-current ADC reading (0..65535, -1 without one; a bus gripper's
    load); ``rail`` the servo power as the rail sense input sees it: ``on``, ``off`` or ``none`` (not wired).
    ``measured_us``: where each servo is, as a pulse in µs, when the servos report it (bus servos; -1: no reading
    of that one), else empty.
    """

    boot_id: str
    mode: Mode
    last_done_cmd: int
    last_queued_cmd: int
    free_slots: int
    faults: tuple[Fault, ...]
    grip: Grip
    grip_raw: int
    rail: Rail
    pulses_us: tuple[int, ...]
    measured_us: tuple[int, ...] = ()

    @property
    def is_stopped(self) -> bool:
        """True while an e-stop or a fault is latched (only CLEAR releases it)."""
        return self.mode in STOPPED_MODES or bool(self.faults)


class Hello(NamedTuple):
    """The board's HELLO, sent at boot and in answer to SYNC: who it is and what it can take.

    ``queue_depth`` MOVEs may wait on the board; pulses in µs; ``max_duration_ms`` bounds one MOVE;
    ``watchdog_ms`` is how long host silence it tolerates before it freezes the arm; ``max_frame_len`` in bytes;
    ``grip_sensor`` and ``rail_sense`` are 1 when the board has that input wired (board_config.py), else 0.
    """

    proto: int
    fw_version: str
    boot_id: str
    reset_cause: str
    queue_depth: int
    channels: int
    min_pulse_us: int
    max_pulse_us: int
    max_duration_ms: int
    watchdog_ms: int
    max_frame_len: int
    last_done_cmd: int
    last_queued_cmd: int
    mode: Mode
    grip_sensor: int
    rail_sense: int


def parse_status(fields: list[str]) -> Status:
    """The :class:`Status` in a STATUS frame's fields; ProtocolMismatch if they do not fit."""
    values = _unpack(protocol.STATUS, fields)
    faults = str(values["faults"])
    names = () if faults in ("", protocol.NO_FAULTS) else faults.split(protocol.FAULT_SEPARATOR)
    positions = tuple(values["pulses_us"])
    measured = int(values["measured"])
    if not 0 <= measured <= len(positions) // 2:
        raise ProtocolMismatch(
            f"board sent STATUS with {measured} measured positions after {len(positions) - measured} pulses: "
            f"expected one per channel (protocol version {protocol.PROTOCOL_VERSION})"
        )
    return Status(
        boot_id=str(values["boot_id"]),
        mode=_word(Mode, values["mode"], "mode"),
        last_done_cmd=int(values["last_done_cmd"]),
        last_queued_cmd=int(values["last_queued_cmd"]),
        free_slots=int(values["free_slots"]),
        faults=tuple(_word(Fault, name, "fault") for name in names),
        grip=_word(Grip, values["grip"], "grip"),
        grip_raw=int(values["grip_raw"]),
        rail=_word(Rail, values["rail"], "rail"),
        pulses_us=positions[: len(positions) - measured],
        measured_us=positions[len(positions) - measured :],
    )


def parse_hello(fields: list[str]) -> Hello:
    """The :class:`Hello` in a HELLO frame's fields; ProtocolMismatch (one line) if the board speaks another
    protocol version or the fields do not fit."""
    proto = fields[0] if fields else "?"
    if proto != str(protocol.PROTOCOL_VERSION):
        raise ProtocolMismatch(
            f"board speaks protocol version {proto}: this host speaks version {protocol.PROTOCOL_VERSION};"
            " flash the firmware that comes with this hanoibot"
        )
    values = _unpack(protocol.HELLO, fields)
    return Hello(
        proto=int(values["proto"]),
        fw_version=str(values["fw_version"]),
        boot_id=str(values["boot_id"]),
        reset_cause=str(values["reset_cause"]),
        queue_depth=int(values["queue_depth"]),
        channels=int(values["channels"]),
        min_pulse_us=int(values["min_pulse_us"]),
        max_pulse_us=int(values["max_pulse_us"]),
        max_duration_ms=int(values["max_duration_ms"]),
        watchdog_ms=int(values["watchdog_ms"]),
        max_frame_len=int(values["max_frame_len"]),
        last_done_cmd=int(values["last_done_cmd"]),
        last_queued_cmd=int(values["last_queued_cmd"]),
        mode=_word(Mode, values["mode"], "mode"),
        grip_sensor=int(values["grip_sensor"]),
        rail_sense=int(values["rail_sense"]),
    )


def _unpack(kind: str, fields: list[str]) -> dict[str, Any]:
    """Fields of a board frame by name, or ProtocolMismatch naming the frame kind."""
    values: dict[str, Any] | None = protocol.unpack(kind, fields)
    if values is None:
        shown = ",".join(fields)[:80]
        raise ProtocolMismatch(
            f"board sent {kind} with fields {shown!r}: expected the layout of protocol version "
            f"{protocol.PROTOCOL_VERSION}"
        )
    return values


def _word(kind: type[_W], value: object, field: str) -> _W:
    """``value`` as a member of the board-word enum ``kind``, or ProtocolMismatch naming the field."""
    try:
        return kind(str(value))
    except ValueError:
        known = ", ".join(member.value for member in kind)
        raise ProtocolMismatch(
            f"board sent {field} {str(value)[:20]!r}: expected one of {known} (protocol version "
            f"{protocol.PROTOCOL_VERSION})"
        ) from None
