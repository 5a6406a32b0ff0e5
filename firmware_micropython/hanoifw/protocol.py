"""The one wire codec of hanoibot: printable-ASCII line frames with a CRC-32, used by board and host alike.

A frame is one line ``KIND,seq,ack[,field...]*crc\\n``:

* ``KIND``: 1-8 upper-case letters; ``seq`` and ``ack``: decimal 0..65535 without leading zeros;
* fields: printable ASCII (0x20-0x7E) without ``,`` and ``*``; integers are written in decimal;
* ``crc``: CRC-32 (``binascii.crc32``) of every byte before the ``*``, as 8 lower-case hex digits;
* the whole line, ``\\n`` included, is at most :data:`MAX_FRAME_LEN` bytes. One ``\\r`` right before the ``\\n``
  is tolerated (some USB stacks cook line ends) and is not covered by the CRC.

:mod:`hanoifw.rxframe` reads frames (the board's ``RxFrame`` in place, the host's ``FrameReader`` as tuples, one
grammar): it resynchronises on ``\\n``, drops empty lines silently and oversized, malformed and bad-CRC lines with a
count, and never raises. The full specification, with every frame kind, is docs/protocol.md.
"""

import binascii

TYPE_CHECKING = False  # mypy takes any name TYPE_CHECKING as true; MicroPython never imports typing
if TYPE_CHECKING:
    from collections.abc import Sequence

    Fields = Sequence[str | int]

PROTOCOL_VERSION = 5  # 5: STATUS carries each servo's measured position when the servos report one (measured);
# 4: ACK and PONG say how far the board read its input and which frames it keeps ahead of a lost one (rx_count,
# held); 3: MOVE may carry a trapezoidal profile and a blend (ramp_ms, blend_ms)
SEQ_MOD = 65536  # sequence numbers and acks count modulo 2**16
MAX_FRAME_LEN = 256  # bytes per frame including the closing newline
MAX_FIELDS = 40  # fields after KIND,seq,ack
MAX_KIND_LEN = 8
MAX_BOARD_ERROR_LEN = 180  # why a board cannot drive servos (ERROR BOARD_CONFIG): which setting, pin or address
MAX_CMD_ID = (1 << 30) - 1  # command ids stay MicroPython small ints (no heap allocation on the board)
HARD_MIN_PULSE_US = 500  # the pulse range every limit lies in, on the board and in the host config
HARD_MAX_PULSE_US = 2500
HARD_MAX_SPEED_US_S = 60000  # highest per-channel speed a CONFIG may allow (2000 us in 1/30 s)
MAX_GRIP_THRESHOLD = 65535  # grip threshold: a machine.ADC.read_u16() value
CRC_DIGITS = 8

# host -> board, acted on at once whatever their seq (idempotent)
SYNC = "SYNC"
ESTOP = "ESTOP"
STATUS = "STATUS"  # also the board's reply kind
PING = "PING"
# host -> board, reliable: taken in seq order (kept when ahead of a lost one), acked cumulatively
CONFIG = "CONFIG"
MOVE = "MOVE"
HOLD = "HOLD"
RESUME = "RESUME"
CLEAR = "CLEAR"
RELEASE = "RELEASE"
# board -> host
HELLO = "HELLO"
ACK = "ACK"
DONE = "DONE"
ERROR = "ERROR"
PONG = "PONG"

# Board words: the values of HELLO/STATUS ``mode``, the names in STATUS ``faults``, the ``grip`` and ``rail``
# words. Defined here once; the firmware reports them and the host parses them into enums (link/status.py).
MODE_UNCONFIGURED = "UNCONFIGURED"  # no CONFIG since boot (or since RELEASE/POWER_LOST): every output off
MODE_IDLE = "IDLE"
MODE_MOVING = "MOVING"
MODE_HELD = "HELD"  # HOLD: the arm keeps its pose, queued motion waits for RESUME
MODE_ESTOP = "ESTOP"  # e-stop latched: pose held, queue dropped, only CLEAR releases it
MODE_FAULT = "FAULT"  # another fault latched: pose held, queue dropped, only CLEAR releases it
MODE_BOARD_ERROR = "BOARD_ERROR"  # board_config.py does not fit the chip (or esp32 < 1.26): no output, ever
MODES = (MODE_UNCONFIGURED, MODE_IDLE, MODE_MOVING, MODE_HELD, MODE_ESTOP, MODE_FAULT, MODE_BOARD_ERROR)

FAULT_ESTOP = "ESTOP"  # ESTOP frame, Ctrl-C on the board
FAULT_HOST_LOST = "HOST_LOST"  # host silent for longer than watchdog_ms while moving
FAULT_POWER_LOST = "POWER_LOST"  # the servo rail went dead (rail sense input low)
FAULT_LIMIT = "LIMIT"  # a computed pulse left its limits
FAULT_INTERNAL = "INTERNAL"  # an exception in the controller
FAULT_REJECTED = "REJECTED"  # shown while a refused MOVE blocks the queue, until CLEAR
FAULT_COLLISION = "COLLISION"  # latched by the simulated world: the arm or its disk hit a peg or a disk
FAULT_DROP = "DROP"  # latched by the simulated world: a disk let go away from every peg
FAULT_BAD_STACK = "BAD_STACK"  # latched by the simulated world: a disk put on a smaller one
FAULT_SERVO_SILENT = "SERVO_SILENT"  # a bus servo did not answer its reads (an ERROR frame names it)
FAULTS = (
    FAULT_ESTOP,
    FAULT_HOST_LOST,
    FAULT_POWER_LOST,
    FAULT_LIMIT,
    FAULT_INTERNAL,
    FAULT_REJECTED,
    FAULT_COLLISION,
    FAULT_DROP,
    FAULT_BAD_STACK,
    FAULT_SERVO_SILENT,
)
NO_FAULTS = "-"  # STATUS ``faults`` when none is latched; several are joined by FAULT_SEPARATOR
FAULT_SEPARATOR = "|"

GRIP_NONE = "none"  # no grip sensor on this board
GRIP_UNKNOWN = "unknown"  # no verdict: gripper undriven (no current, disk or not), no whole frame sampled yet,
# no threshold from CONFIG, or the read failed
GRIP_HELD = "held"  # reading at or above the threshold: the closing servo is stalled on a disk
GRIP_EMPTY = "empty"
GRIPS = (GRIP_NONE, GRIP_UNKNOWN, GRIP_HELD, GRIP_EMPTY)

RAIL_NONE = "none"  # rail sense not wired
RAIL_ON = "on"
RAIL_OFF = "off"
RAILS = (RAIL_NONE, RAIL_ON, RAIL_OFF)

IMMEDIATE_KINDS = (SYNC, ESTOP, STATUS, PING)
RELIABLE_KINDS = (CONFIG, MOVE, HOLD, RESUME, CLEAR, RELEASE)

# ERROR codes (field "code" of an ERROR frame)
E_BAD_FRAME = "BAD_FRAME"  # a field is missing or not a number
E_UNKNOWN_KIND = "UNKNOWN_KIND"
E_NO_SESSION = "NO_SESSION"  # a reliable frame before the first SYNC of this boot
E_NOT_CONFIGURED = "NOT_CONFIGURED"
E_BAD_CHANNELS = "BAD_CHANNELS"  # wrong number of per-channel values
E_LIMIT = "LIMIT"  # a pulse outside its limits (refused, never clamped)
E_BAD_DURATION = "BAD_DURATION"
E_TOO_FAST = "TOO_FAST"  # a MOVE that would drive a channel faster than its CONFIG speed
E_REJECTED = "REJECTED"  # a MOVE after a refused MOVE, until CLEAR
E_QUEUE_FULL = "QUEUE_FULL"  # advisory: the MOVE is not acked, the host's retransmission resends it
E_ESTOPPED = "ESTOPPED"
E_FAULTED = "FAULTED"
E_BUSY = "BUSY"  # CONFIG while motion is queued
E_INTERNAL = "INTERNAL"
E_BOARD_CONFIG = "BOARD_CONFIG"  # board_config.py does not fit this chip (HELLO mode BOARD_ERROR): the text says why
E_SERVO_SILENT = "SERVO_SILENT"  # a bus servo stopped answering: the text names its channel and bus id

# Field names of the board's frames, in wire order; a name ending in "*" takes all remaining fields as a list, and
# trailing names ending in "?" may be left off (then 0). STATUS's list is the pulse of each channel, then, when
# ``measured`` is not 0, that many measured positions (one per channel, as pulses in us; -1: no reading).
FIELD_NAMES = {
    HELLO: (
        "proto",
        "fw_version",
        "boot_id",
        "reset_cause",
        "queue_depth",
        "channels",
        "min_pulse_us",
        "max_pulse_us",
        "max_duration_ms",
        "watchdog_ms",
        "max_frame_len",
        "last_done_cmd",
        "last_queued_cmd",
        "mode",
        "grip_sensor",
        "rail_sense",
    ),
    STATUS: (
        "boot_id",
        "mode",
        "last_done_cmd",
        "last_queued_cmd",
        "free_slots",
        "faults",
        "grip",
        "grip_raw",
        "rail",
        "measured",
        "pulses_us*",
    ),
    ACK: ("rx_count", "held?"),
    DONE: ("cmd_id",),
    ERROR: ("code", "cmd_id", "text"),
    PONG: ("token", "rx_count", "last_done_cmd", "held?"),
}
TEXT_FIELDS = ("fw_version", "boot_id", "reset_cause", "mode", "faults", "grip", "rail", "code", "text", "token")


def parse_uint(text: str, max_value: int) -> int:
    """Return the canonical decimal ``text`` (digits only, no sign, no leading zero) as an int in
    0..``max_value``, or -1 if it is anything else."""
    n = len(text)
    if n == 0 or n > 10 or (n > 1 and text[0] == "0"):
        return -1
    for ch in text:
        if ch < "0" or ch > "9":  # not str.isdigit(): that also takes non-ASCII digits
            return -1
    value = int(text)
    if value > max_value:
        return -1
    return value


def parse_int(text: str, min_value: int, max_value: int) -> int | None:
    """Return the canonical decimal ``text`` (optional leading ``-``) as an int in ``min_value..max_value``,
    or None if it is anything else."""
    if text[:1] == "-" and text != "-0":
        value = parse_uint(text[1:], -min_value) if min_value < 0 else -1
        return -value if value > 0 else None
    value = parse_uint(text, max_value)
    if value < 0 or value < min_value:
        return None
    return value


def is_field_text(text: str) -> bool:
    """True if ``text`` may be a field: printable ASCII without ``,`` and ``*``."""
    for ch in text:
        code = ord(ch)
        if code < 0x20 or code > 0x7E or ch == "," or ch == "*":
            return False
    return True


def clean_text(text: str, max_len: int = 60) -> str:
    """Return ``text`` cut to ``max_len`` characters with every character a field may not hold replaced by
    ``_`` (for free text such as an ERROR message)."""
    out = []
    for ch in text[:max_len]:
        out.append(ch if is_field_text(ch) else "_")
    return "".join(out)


def _is_kind(text: str) -> bool:
    if not 0 < len(text) <= MAX_KIND_LEN:
        return False
    for ch in text:
        if ch < "A" or ch > "Z":
            return False
    return True


def encode(kind: str, seq: int, ack: int, fields: "Fields" = ()) -> bytes:
    """Return the frame ``KIND,seq,ack,fields...*crc\\n`` as bytes.

    ``seq`` and ``ack`` are taken modulo 2**16; int fields are written in decimal. Raises ValueError naming the
    bad kind or field, or the length, if the frame cannot be represented.
    """
    if not _is_kind(kind):
        raise ValueError("frame kind %r: expected 1-%d upper-case letters" % (kind, MAX_KIND_LEN))
    if len(fields) > MAX_FIELDS:
        raise ValueError("%d fields: expected at most %d" % (len(fields), MAX_FIELDS))
    parts = [kind, str(seq % SEQ_MOD), str(ack % SEQ_MOD)]
    for field in fields:
        if isinstance(field, int):
            parts.append(str(field))
        elif isinstance(field, str) and is_field_text(field):
            parts.append(field)
        else:
            raise ValueError("field %r: expected an int or printable ASCII without ',' and '*'" % (field,))
    body = ",".join(parts).encode()
    if len(body) + CRC_DIGITS + 2 > MAX_FRAME_LEN:
        raise ValueError("frame of %d bytes: expected at most %d" % (len(body) + CRC_DIGITS + 2, MAX_FRAME_LEN))
    crc = binascii.crc32(body) & 0xFFFFFFFF
    return body + ("*%08x\n" % crc).encode()


def unpack(kind: str, fields: "list[str]") -> "dict[str, object] | None":
    """Return the fields of a board frame as a dict by name (see :data:`FIELD_NAMES`), numbers as int, a
    trailing ``name*`` as a list of int under ``name`` and a missing trailing ``name?`` as 0; None if the fields
    do not fit the layout of ``kind``."""
    names = FIELD_NAMES.get(kind)
    if names is None:
        return None
    rest = names[-1][-1:] == "*" if names else False
    fixed = len(names) - 1 if rest else len(names)
    optional = 0
    while optional < fixed and names[fixed - 1 - optional][-1:] == "?":
        optional += 1
    if len(fields) < fixed - optional or (not rest and len(fields) > fixed):
        return None
    out: dict[str, object] = {}
    for i in range(fixed):
        name = names[i]
        if name[-1:] == "?":
            name = name[:-1]
            if i >= len(fields):
                out[name] = 0
                continue
        if name in TEXT_FIELDS:
            out[name] = fields[i]
        else:
            value = parse_int(fields[i], -MAX_CMD_ID, MAX_CMD_ID)
            if value is None:
                return None
            out[name] = value
    if rest:
        values = []
        for text in fields[fixed:]:
            value = parse_int(text, -MAX_CMD_ID, MAX_CMD_ID)
            if value is None:
                return None
            values.append(value)
        out[names[-1][:-1]] = values
    return out
