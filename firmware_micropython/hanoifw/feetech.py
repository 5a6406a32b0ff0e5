"""The Feetech STS/SCS serial bus servo protocol: frames, instructions and the registers hanoibot uses.

Sources: Feetech's "Communication Protocol User Manual" (SCS/STS/SMS series), section 1 (the frame, the checksum,
the instructions PING, READ, WRITE, SYNC WRITE, SYNC READ, each with a worked example: the tests hold this module to
those bytes); the STS/SMS memory table as lerobot transcribes it (``src/lerobot/motors/feetech/tables.py``,
``STS_SMS_SERIES_CONTROL_TABLE``); the vendor SDK's ``SMS_STS.cpp`` (``ReadPos``, ``ReadLoad``, ``ReadSpeed``,
``ReadCurrent``, ``WritePosEx``) for which registers are sign-magnitude and at which bit.

* A frame is ``FF FF id len instr params... checksum``: ``len`` counts the parameters plus 2, the checksum is
  ``~(id + len + instr + params) & 0xFF``. A servo's answer (status packet) has the same layout with its error
  byte in place of the instruction. Broadcast id 0xFE: every servo acts, none answers (except PING).
* STS and SMS servos (magnetic encoder, 4096 steps a turn: the STS3215 of the SO-101) store words low byte first;
  the SCS series (potentiometer, 1024 steps) high byte first. This module writes and reads low byte first: the STS.
* Sign-magnitude: Present_Position, Present_Speed, Present_Current and Goal_Speed carry their sign in bit 15,
  Present_Load in bit 10 (its magnitude is 0..1000, 0.1 % of the stall torque).

Everything here writes into buffers the caller made once and reads in place (MicroPython on the board, allocation
free per control step); :class:`PacketReader` takes one byte at a time, resynchronising on ``FF FF``.
"""

try:
    from micropython import const
except ImportError:  # CPython (tests, the host): const() is only an optimisation hint

    def const(value: int) -> int:
        return value


HEADER = const(0xFF)
BROADCAST_ID = const(0xFE)
MAX_ID = const(0xFD)  # ids 0..253

# Instructions (manual, 1.3)
PING = const(0x01)
READ = const(0x02)
WRITE = const(0x03)
REG_WRITE = const(0x04)
ACTION = const(0x05)
SYNC_READ = const(0x82)
SYNC_WRITE = const(0x83)

# The STS/SMS memory table (lerobot tables.py STS_SMS_SERIES_CONTROL_TABLE): address, then its size in bytes
ID = const(5)  # 1
BAUD_RATE = const(6)  # 1: 0 = 1 Mbps (lerobot STS_SMS_SERIES_BAUDRATE_TABLE)
RETURN_DELAY_TIME = const(7)  # 1: in 2 us units; the factory's 250 is 500 us, lerobot writes 0
RESPONSE_STATUS_LEVEL = const(8)  # 1
MIN_POSITION_LIMIT = const(9)  # 2
MAX_POSITION_LIMIT = const(11)  # 2
HOMING_OFFSET = const(31)  # 2, sign at bit 11
TORQUE_ENABLE = const(40)  # 1
ACCELERATION = const(41)  # 1
GOAL_POSITION = const(42)  # 2
GOAL_TIME = const(44)  # 2
GOAL_SPEED = const(46)  # 2, steps/s, sign at bit 15
TORQUE_LIMIT = const(48)  # 2
LOCK = const(55)  # 1
PRESENT_POSITION = const(56)  # 2, sign at bit 15
PRESENT_SPEED = const(58)  # 2, sign at bit 15
PRESENT_LOAD = const(60)  # 2, sign at bit 10
PRESENT_VOLTAGE = const(62)  # 1, 0.1 V
PRESENT_TEMPERATURE = const(63)  # 1, deg C
STATUS = const(65)  # 1: the servo's error flags
MOVING = const(66)  # 1
PRESENT_CURRENT = const(69)  # 2, sign at bit 15

#: What the bus driver reads of a servo in one READ: Present_Position (56) .. Present_Current (69, 70).
FEEDBACK_ADDRESS = PRESENT_POSITION
FEEDBACK_BYTES = PRESENT_CURRENT + 2 - PRESENT_POSITION  # 15

STEPS_PER_TURN_STS = 4096
STEPS_PER_TURN_SCS = 1024
POSITION_SIGN_BIT = const(15)
SPEED_SIGN_BIT = const(15)
LOAD_SIGN_BIT = const(10)
CURRENT_SIGN_BIT = const(15)
MAX_LOAD = 1000  # Present_Load's magnitude at stall: 100.0 %

FRAME_OVERHEAD = 6  # FF FF id len instr|error checksum
MAX_PACKET_BYTES = 96  # the longest frame a PacketReader keeps (a SYNC WRITE of 12 servos x 6 bytes is 95)


def checksum(buf, start: int, end: int) -> int:
    """``~(sum of buf[start:end]) & 0xFF``: the checksum of a frame whose id is at ``start`` and whose checksum
    byte is at ``end``."""
    total = 0
    for i in range(start, end):
        total += buf[i]
    return ~total & 0xFF


def begin(buf, servo_id: int, instruction: int, params: int) -> int:
    """Write the head of a frame of ``params`` parameter bytes into ``buf`` (header, id, length, instruction);
    returns the offset of the first parameter. The caller fills the parameters, then calls :func:`seal`."""
    buf[0] = HEADER
    buf[1] = HEADER
    buf[2] = servo_id
    buf[3] = params + 2
    buf[4] = instruction
    return 5


def seal(buf) -> int:
    """Write the checksum of the frame begun in ``buf`` (its length byte says where); returns the frame's length."""
    end = 3 + buf[3]
    buf[end] = checksum(buf, 2, end)
    return end + 1


def put_u16(buf, offset: int, value: int) -> None:
    """``value`` (0..65535) at ``buf[offset]`` low byte first, as STS servos store words."""
    buf[offset] = value & 0xFF
    buf[offset + 1] = (value >> 8) & 0xFF


def get_u16(buf, offset: int) -> int:
    """The word at ``buf[offset]``, low byte first."""
    return buf[offset] | (buf[offset + 1] << 8)


def to_sign_magnitude(value: int, sign_bit: int) -> int:
    """``value`` as the register stores it: its magnitude with bit ``sign_bit`` set when negative."""
    if value < 0:
        return -value | (1 << sign_bit)
    return value


def from_sign_magnitude(raw: int, sign_bit: int) -> int:
    """The signed value of register contents ``raw`` whose sign is bit ``sign_bit`` (the SDK's ReadPos)."""
    bit = 1 << sign_bit
    if raw & bit:
        return -(raw & (bit - 1))
    return raw & (bit - 1)


def encode_ping(buf, servo_id: int) -> int:
    """PING ``servo_id`` into ``buf``; returns the frame's length (6)."""
    begin(buf, servo_id, PING, 0)
    return seal(buf)


def encode_read(buf, servo_id: int, address: int, length: int) -> int:
    """READ ``length`` bytes from ``address`` of ``servo_id`` into ``buf``; returns the frame's length (8)."""
    at = begin(buf, servo_id, READ, 2)
    buf[at] = address
    buf[at + 1] = length
    return seal(buf)


def encode_write(buf, servo_id: int, address: int, data) -> int:
    """WRITE ``data`` (bytes) at ``address`` of ``servo_id`` into ``buf``; returns the frame's length."""
    at = begin(buf, servo_id, WRITE, 1 + len(data))
    buf[at] = address
    for i in range(len(data)):
        buf[at + 1 + i] = data[i]
    return seal(buf)


def begin_sync_write(buf, address: int, length: int, count: int) -> int:
    """The head of a SYNC WRITE of ``length`` bytes at ``address`` to ``count`` servos (broadcast, no answer);
    returns the offset of the first row. Row k (``1 + length`` bytes: the servo's id, then its data) starts at
    ``offset + k * (1 + length)``; :func:`seal` closes the frame."""
    at = begin(buf, BROADCAST_ID, SYNC_WRITE, 2 + count * (1 + length))
    buf[at] = address
    buf[at + 1] = length
    return at + 2


def encode_sync_write(buf, address: int, length: int, rows) -> int:
    """SYNC WRITE of ``rows`` (pairs of servo id and ``length`` data bytes) into ``buf``; returns its length."""
    at = begin_sync_write(buf, address, length, len(rows))
    for servo_id, data in rows:
        buf[at] = servo_id
        for i in range(length):
            buf[at + 1 + i] = data[i]
        at += 1 + length
    return seal(buf)


def encode_sync_read(buf, address: int, length: int, ids) -> int:
    """SYNC READ of ``length`` bytes from ``address`` of each servo in ``ids`` (each answers in turn, in this order)
    into ``buf``; returns the frame's length."""
    at = begin(buf, BROADCAST_ID, SYNC_READ, 2 + len(ids))
    buf[at] = address
    buf[at + 1] = length
    for i in range(len(ids)):
        buf[at + 2 + i] = ids[i]
    return seal(buf)


class PacketReader:
    """Reads frames (instruction or status packets) one byte at a time into a buffer made once.

    :meth:`take` returns True when a whole frame with a good checksum has been read: it then lies in
    ``buf[:size]`` (header included), with :attr:`servo_id`, :attr:`code` (the instruction, or a status packet's
    error byte) and :attr:`params` parameter bytes from ``buf[5]``; it stays there until the next byte is taken.
    A frame whose checksum is wrong is dropped and counted (:attr:`bad_checksum`), as is a length byte that cannot
    be (:attr:`malformed`); either way reading starts over at the next ``FF FF``.
    """

    def __init__(self, max_bytes: int = MAX_PACKET_BYTES) -> None:
        self.buf = bytearray(max_bytes)
        self.size = 0  # bytes of the frame just read (0 while none is complete)
        self._fill = 0  # bytes of the frame being read
        self._need = 0  # its total bytes, once its length byte came
        self.bad_checksum = 0
        self.malformed = 0

    @property
    def servo_id(self) -> int:
        """The id of the frame just read."""
        return self.buf[2]

    @property
    def code(self) -> int:
        """The instruction (instruction packet) or error byte (status packet) of the frame just read."""
        return self.buf[4]

    @property
    def params(self) -> int:
        """How many parameter bytes the frame just read carries (they start at ``buf[5]``)."""
        return self.buf[3] - 2

    def reset(self) -> None:
        """Forget a frame half read."""
        self._fill = 0
        self.size = 0

    def take(self, byte: int) -> bool:
        """Read one byte; True when it completes a frame with a good checksum (then in ``buf[:size]``)."""
        buf = self.buf
        fill = self._fill
        self.size = 0
        if fill < 2:  # the header: FF FF
            if byte == HEADER:
                buf[fill] = byte
                self._fill = fill + 1
            else:
                self._fill = 0
            return False
        if fill == 2:
            if byte != HEADER:  # FF FF FF: the first FF was noise before the header
                buf[2] = byte
                self._fill = 3
            return False
        if fill == 3:
            if byte < 2 or byte + 4 > len(buf):
                self.malformed += 1
                self._fill = 1 if byte == HEADER else 0  # it may start the next header
                return False
            buf[3] = byte
            self._need = byte + 4
            self._fill = 4
            return False
        buf[fill] = byte
        fill += 1
        if fill < self._need:
            self._fill = fill
            return False
        self._fill = 0
        if checksum(buf, 2, fill - 1) != byte:
            self.bad_checksum += 1
            return False
        self.size = fill
        return True

    def is_frame(self, frame, length: int) -> bool:
        """True when the frame just read is the first ``length`` bytes of ``frame`` (the echo of one we sent)."""
        if self.size != length:
            return False
        buf = self.buf
        for i in range(length):
            if buf[i] != frame[i]:
                return False
        return True
