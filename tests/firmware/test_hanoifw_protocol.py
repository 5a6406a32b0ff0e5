"""Codec examples that must hold on the board too (also run under MicroPython). The hypothesis fuzz of the same
codec is tests/link/test_protocol.py (CPython only)."""

from fwfakes import Rng
from hanoifw import protocol as p
from hanoifw.rxframe import FrameReader


def crc32_bitwise(data):
    """Independent oracle: reflected CRC-32 (poly 0xEDB88320), bit by bit."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def test_oracle_matches_the_published_crc32_check_value():
    assert crc32_bitwise(b"123456789") == 0xCBF43926


def test_encode_writes_the_documented_layout():
    frame = p.encode(p.MOVE, 65537, 3, [12, 800, 1500, "x y"])
    body = b"MOVE,1,3,12,800,1500,x y"
    assert frame == body + (f"*{crc32_bitwise(body):08x}\n").encode()


def test_round_trip_of_every_kind():
    reader = FrameReader()
    sent = []
    for kind in p.IMMEDIATE_KINDS + p.RELIABLE_KINDS + (p.HELLO, p.ACK, p.DONE, p.ERROR, p.PONG):
        sent.append((kind, len(sent), 65535 - len(sent), ["a", "0", "-1", ""]))
    stream = b"".join(p.encode(*frame) for frame in sent)
    assert reader.feed(stream) == sent
    assert (reader.frames, reader.bad_crc, reader.malformed, reader.oversized) == (len(sent), 0, 0, 0)


def test_frames_split_across_feeds_are_reassembled():
    frame = p.encode(p.PING, 1, 2, ["tok"])
    reader = FrameReader()
    got = []
    for i in range(len(frame)):
        got.extend(reader.feed(frame[i : i + 1]))
    assert got == [(p.PING, 1, 2, ["tok"])]


def test_reader_resynchronises_after_noise_and_counts_it():
    good = p.encode(p.STATUS, 5, 6)
    bad_crc = bytearray(good)
    bad_crc[0] = ord("X")
    stream = b"\x00\xffnoise\n" + bytes(bad_crc) + b"x" * 300 + b"\n" + b"\n" + good + b"trailing"
    reader = FrameReader()
    assert reader.feed(stream) == [(p.STATUS, 5, 6, [])]
    assert (reader.malformed, reader.bad_crc, reader.oversized) == (1, 1, 1)


def test_oversized_line_without_newline_is_dropped_once_then_reading_resumes():
    reader = FrameReader()
    for _ in range(10):
        assert reader.feed(b"y" * 100) == []
    assert reader.oversized == 1
    assert reader.feed(b"tail\n" + p.encode(p.PING, 0, 0)) == [(p.PING, 0, 0, [])]


def test_crc_valid_lines_that_break_the_grammar_are_malformed():
    def framed(body):
        return body + (f"*{crc32_bitwise(body):08x}\n").encode()

    bodies = (b"move,1,2", b"MOVE,01,2", b"MOVE,1", b"MOVE,1,65536", b"MOVE,-1,0", b"TOOLONGKIND,1,2", b"M\tV,1,2")
    reader = FrameReader()
    assert reader.feed(b"".join(framed(body) for body in bodies)) == []
    assert reader.malformed == len(bodies) and reader.bad_crc == 0
    assert reader.feed(framed(b"MOVE,1,2") + b"MOVE,1,2*0000000G\n") == [(p.MOVE, 1, 2, [])]
    assert reader.malformed == len(bodies) + 1


def test_a_carriage_return_before_the_newline_is_tolerated():
    frame = p.encode(p.ACK, 1, 1, [3, 4])
    assert FrameReader().feed(frame[:-1] + b"\r\n") == [(p.ACK, 1, 1, ["3", "4"])]


def test_single_bit_errors_are_all_caught():
    frame = p.encode(p.MOVE, 7, 0, [1, 500, 1500, 1600, 1700, 1800, 1900])
    reader = FrameReader()
    for i in range(len(frame) - 1):
        for bit in range(8):
            broken = bytearray(frame)
            broken[i] ^= 1 << bit
            assert reader.feed(bytes(broken) + b"\n") == []
    assert reader.frames == 0


def test_encode_refuses_what_it_cannot_represent():
    for kind, fields in (("move", []), ("MOVE", ["a,b"]), ("MOVE", ["a*b"]), ("MOVE", ["\n"]), ("MOVE", [1.5])):
        try:
            p.encode(kind, 0, 0, fields)
        except ValueError as err:
            assert str(err)
        else:
            raise AssertionError(f"encoded {kind!r} {fields!r}")
    try:
        p.encode(p.STATUS, 0, 0, ["x" * 300])
    except ValueError as err:
        assert "300" in str(err) or "bytes" in str(err)
    else:
        raise AssertionError("encoded an oversized frame")


def test_parse_uint_accepts_only_canonical_decimals():
    assert p.parse_uint("0", 9) == 0 and p.parse_uint("65535", 65535) == 65535
    for text in ("", "-1", "+1", "01", "1.0", " 1", "65536", "1e3", "99999999999", "1_0", "\u0663"):
        assert p.parse_uint(text, 65535) == -1, text
    assert p.parse_int("-12", -100, 100) == -12 and p.parse_int("-0", -5, 5) is None
    assert p.parse_int("7", 8, 10) is None


def test_clean_text_keeps_errors_encodable():
    text = p.clean_text("bad, value * here\n" + "z" * 100)
    assert len(text) == 60 and p.is_field_text(text)
    assert FrameReader().feed(p.encode(p.ERROR, 0, 0, ["X", 0, text]))[0][3][2] == text


def test_unpack_names_the_fields_of_board_frames():
    status = p.unpack(p.STATUS, ["b007", "IDLE", "3", "4", "7", "-", "held", "40123", "on", "1", "1500", "1600"])
    assert status == {
        "boot_id": "b007",
        "mode": "IDLE",
        "last_done_cmd": 3,
        "last_queued_cmd": 4,
        "free_slots": 7,
        "faults": "-",
        "grip": "held",
        "grip_raw": 40123,
        "rail": "on",
        "measured": 1,
        "pulses_us": [1500, 1600],
    }
    assert p.unpack(p.DONE, ["x"]) is None and p.unpack(p.DONE, ["1", "2"]) is None
    assert p.unpack(p.ERROR, ["LIMIT", "3", "text"]) == {"code": "LIMIT", "cmd_id": 3, "text": "text"}
    assert p.unpack("NOPE", []) is None


def test_unpack_fills_a_trailing_field_left_off_with_0():
    assert p.unpack(p.ACK, ["812"]) == {"rx_count": 812, "held": 0}
    assert p.unpack(p.ACK, ["812", "5"]) == {"rx_count": 812, "held": 5}
    assert p.unpack(p.ACK, []) is None and p.unpack(p.ACK, ["1", "2", "3"]) is None
    assert p.unpack(p.PONG, ["t", "9", "4"]) == {"token": "t", "rx_count": 9, "last_done_cmd": 4, "held": 0}
    assert p.unpack(p.PONG, ["t", "9"]) is None


def test_random_byte_noise_is_never_accepted():
    rng = Rng(99)
    reader = FrameReader()
    for _ in range(200):
        noise = bytes(rng.below(256) for _ in range(1 + rng.below(120)))
        assert reader.feed(noise) == []
    assert reader.frames == 0
