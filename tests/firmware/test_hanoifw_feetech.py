"""The Feetech STS/SCS frames against the protocol's published examples (also run under MicroPython).

Oracle: Feetech's "Communication Protocol User Manual" (SCS/STS/SMS series), section 1.3: each instruction comes
with a worked example, command and answer, byte for byte; the bytes below are those examples. The signs: the
vendor SDK's SMS_STS.cpp (ReadPos and ReadSpeed test bit 15, ReadLoad bit 10, WritePosEx sets bit 15).
"""

import binascii

from hanoifw import feetech as f


def hexbytes(text):
    return binascii.unhexlify(text.replace(" ", ""))


def frame(encode, *args):
    buf = bytearray(f.MAX_PACKET_BYTES)
    n = encode(buf, *args)
    return bytes(buf[:n])


def read_all(reader, data):
    """Every frame ``reader`` completes in ``data``, as bytes."""
    out = []
    for byte in data:
        if reader.take(byte):
            out.append(bytes(reader.buf[: reader.size]))
    return out


def test_ping_is_the_manuals_example():
    # 1.3.1: query ID 1
    assert frame(f.encode_ping, 1) == hexbytes("FF FF 01 02 01 FB")


def test_read_is_the_manuals_example():
    # 1.3.2: read the position (2 bytes at 0x38) of ID 1
    assert frame(f.encode_read, 1, 0x38, 2) == hexbytes("FF FF 01 04 02 38 02 BE")
    assert f.PRESENT_POSITION == 0x38


def test_write_is_the_manuals_example():
    # 1.3.3, example 2: ID 1 to position 2048 at speed 1000, from address 0x2A (position, time, speed)
    data = bytearray(6)
    f.put_u16(data, 0, 2048)
    f.put_u16(data, 2, 0)
    f.put_u16(data, 4, 1000)
    assert frame(f.encode_write, 1, f.GOAL_POSITION, data) == hexbytes("FF FF 01 09 03 2A 00 08 00 00 E8 03 D5")
    # 1.3.3, example 1: set ID to 1 through the broadcast id
    assert frame(f.encode_write, f.BROADCAST_ID, f.ID, b"\x01") == hexbytes("FF FF FE 04 03 05 01 F4")


def test_sync_write_is_the_manuals_example():
    # 1.3.6: position 2048, time 0, speed 1000 for IDs 1-4, in one frame to the broadcast id
    row = hexbytes("00 08 00 00 E8 03")
    expected = hexbytes(
        "FF FF FE 20 83 2A 06 01 00 08 00 00 E8 03 02 00 08 00 00 E8 0303 00 08 00 00 E8 03 04 00 08 00 00 E8 03 58"
    )
    assert frame(f.encode_sync_write, 0x2A, 6, [(1, row), (2, row), (3, row), (4, row)]) == expected


def test_sync_write_rows_filled_in_place_make_the_same_frame():
    """The bus driver fills a SYNC WRITE's rows in a buffer made once, then seals it."""
    buf = bytearray(64)
    at = f.begin_sync_write(buf, f.GOAL_POSITION, 6, 4)
    for servo_id in (1, 2, 3, 4):
        buf[at] = servo_id
        f.put_u16(buf, at + 1, 2048)
        f.put_u16(buf, at + 3, 0)
        f.put_u16(buf, at + 5, 1000)
        at += 7
    n = f.seal(buf)
    assert n == at + 1 and buf[n - 1] == 0x58


def test_sync_read_is_the_manuals_example():
    # 1.3.7: read 8 bytes from 0x38 of IDs 1 and 2
    assert frame(f.encode_sync_read, 0x38, 8, [1, 2]) == hexbytes("FF FF FE 06 82 38 08 01 02 36")


def test_the_manuals_answers_read_back():
    reader = f.PacketReader()
    # 1.3.2's answer: position 0x0518, low byte first
    assert read_all(reader, hexbytes("FF FF 01 04 00 18 05 DD")) == [hexbytes("FF FF 01 04 00 18 05 DD")]
    assert reader.servo_id == 1 and reader.code == 0 and reader.params == 2
    assert f.get_u16(reader.buf, 5) == 1304
    # 1.3.7's answers: 8 bytes from 0x38 of IDs 1 and 2 (position, speed, load, voltage, temperature)
    answers = hexbytes("FF FF 01 0A 00 00 08 00 00 00 00 79 1E 55 FF FF 02 0A 00 FF 07 00 00 00 00 77 23 53")
    got = read_all(reader, answers)
    assert len(got) == 2
    assert f.get_u16(got[0], 5) == 2048 and got[0][11] == 0x79 and got[0][12] == 0x1E
    assert f.get_u16(got[1], 5) == 2047 and got[1][11] == 0x77
    # 1.3.1's answer: no error
    assert read_all(reader, hexbytes("FF FF 01 02 00 FC")) == [hexbytes("FF FF 01 02 00 FC")]


def test_the_reader_resynchronises_and_counts_bad_frames():
    reader = f.PacketReader()
    good = hexbytes("FF FF 01 04 00 18 05 DD")
    corrupted = bytearray(good)
    corrupted[5] ^= 0x10  # one flipped bit in the position: the checksum catches it
    noise = hexbytes("00 FF 12 FF FF FF")  # a lone FF, then three in a row before the real header
    got = read_all(reader, bytes(corrupted) + noise + good)
    assert got == [good]
    assert reader.bad_checksum == 1
    bad_length = hexbytes("FF FF 01 01 00")  # a length below 2 cannot be
    assert read_all(reader, bad_length + good) == [good] and reader.malformed == 1


def test_sign_magnitude_as_the_sdk_reads_it():
    # SMS_STS.cpp ReadPos: bit 15 set means negative
    assert f.from_sign_magnitude(0x8000 | 100, f.POSITION_SIGN_BIT) == -100
    assert f.from_sign_magnitude(100, f.POSITION_SIGN_BIT) == 100
    # ReadLoad: bit 10 (0x400); the magnitude is at most 1000 (0x3E8)
    assert f.from_sign_magnitude(0x400 | 1000, f.LOAD_SIGN_BIT) == -1000
    assert f.from_sign_magnitude(523, f.LOAD_SIGN_BIT) == 523
    # WritePosEx: a negative position is its magnitude with bit 15 set
    assert f.to_sign_magnitude(-100, f.POSITION_SIGN_BIT) == 0x8064
    assert f.to_sign_magnitude(2048, f.POSITION_SIGN_BIT) == 2048


def test_the_registers_are_lerobots_sts_control_table():
    """Addresses from lerobot's STS_SMS_SERIES_CONTROL_TABLE (src/lerobot/motors/feetech/tables.py, commit
    0558acc97b50, itself from Feetech's STS/SMS manual), written out here by name; the baud rate value 0 is 1 Mbps
    (its STS_SMS_SERIES_BAUDRATE_TABLE)."""
    table = {
        "ID": (f.ID, 5),
        "Baud_Rate": (f.BAUD_RATE, 6),
        "Return_Delay_Time": (f.RETURN_DELAY_TIME, 7),
        "Response_Status_Level": (f.RESPONSE_STATUS_LEVEL, 8),
        "Min_Position_Limit": (f.MIN_POSITION_LIMIT, 9),
        "Max_Position_Limit": (f.MAX_POSITION_LIMIT, 11),
        "Homing_Offset": (f.HOMING_OFFSET, 31),
        "Torque_Enable": (f.TORQUE_ENABLE, 40),
        "Acceleration": (f.ACCELERATION, 41),
        "Goal_Position": (f.GOAL_POSITION, 42),
        "Goal_Time": (f.GOAL_TIME, 44),
        "Goal_Velocity": (f.GOAL_SPEED, 46),
        "Torque_Limit": (f.TORQUE_LIMIT, 48),
        "Lock": (f.LOCK, 55),
        "Present_Position": (f.PRESENT_POSITION, 56),
        "Present_Velocity": (f.PRESENT_SPEED, 58),
        "Present_Load": (f.PRESENT_LOAD, 60),
        "Present_Voltage": (f.PRESENT_VOLTAGE, 62),
        "Present_Temperature": (f.PRESENT_TEMPERATURE, 63),
        "Status": (f.STATUS, 65),
        "Moving": (f.MOVING, 66),
        "Present_Current": (f.PRESENT_CURRENT, 69),
    }
    wrong = [name for name, (ours, theirs) in table.items() if ours != theirs]
    assert wrong == [], wrong
    assert f.STEPS_PER_TURN_STS == 4096 and f.STEPS_PER_TURN_SCS == 1024  # its MODEL_RESOLUTION


def test_the_feedback_block_spans_position_to_current():
    """One READ gives position, speed, load, voltage, temperature, status, moving and current (56..70)."""
    assert f.FEEDBACK_ADDRESS == 56 and f.FEEDBACK_BYTES == 15
    assert f.PRESENT_CURRENT + 2 - f.FEEDBACK_ADDRESS == f.FEEDBACK_BYTES
    for register in (f.PRESENT_SPEED, f.PRESENT_LOAD, f.STATUS, f.MOVING):
        assert f.FEEDBACK_ADDRESS <= register < f.FEEDBACK_ADDRESS + f.FEEDBACK_BYTES
