"""The frame readers of hanoifw.rxframe (the board's in-place RxFrame, the host's FrameReader) against a plain
reading of the grammar (frame_grammar): the same frames and the same drop counts for any byte stream, however it is
cut into chunks. Also run under MicroPython."""

import binascii
import struct

from frame_grammar import read_stream
from fwfakes import Rng
from hanoifw import protocol as p
from hanoifw.rxframe import FrameReader, RxFrame


def rx_frames(rx, chunks):
    """Feed ``chunks`` to ``rx`` as the controller does; the frames as FrameReader gives them."""
    frames = []
    for chunk in chunks:
        pos = 0
        while pos < len(chunk):
            pos = rx.take(chunk, pos)
            if rx.is_frame():
                frames.append((rx.kind, rx.seq, rx.ack, rx.texts()))
    return frames


def counts(reader):
    return (reader.frames, reader.bad_crc, reader.malformed, reader.oversized)


def same_as_reference(chunks):
    expected, expected_counts = read_stream(b"".join(chunks))
    rx = RxFrame()
    assert rx_frames(rx, chunks) == expected, chunks
    assert counts(rx) == expected_counts, (counts(rx), expected_counts, chunks)
    reader = FrameReader()
    frames = []
    for chunk in chunks:
        frames.extend(reader.feed(chunk))
    assert frames == expected, chunks
    assert counts(reader) == expected_counts, (counts(reader), expected_counts, chunks)
    return expected


def test_every_kind_and_field_shape_is_read_as_the_reference_reads_it():
    stream = b""
    for kind in p.IMMEDIATE_KINDS + p.RELIABLE_KINDS + ("ZZTOP",):
        stream += p.encode(kind, 65535, 7, ["a b", "0", "-1", "", "1073741823", "x" * 30])
        stream += p.encode(kind, 0, 0)
    frames = same_as_reference([stream])
    assert len(frames) == 2 * (len(p.IMMEDIATE_KINDS) + len(p.RELIABLE_KINDS) + 1)


def test_a_known_kind_is_the_protocol_s_own_string():
    rx = RxFrame()
    frame = p.encode(p.MOVE, 1, 0, [1, 20])
    rx.take(frame, 0)
    assert rx.is_frame() and rx.kind is p.MOVE  # no new string per frame


def test_fields_are_read_in_place_as_canonical_decimals():
    rx = RxFrame()
    frame = p.encode(p.MOVE, 3, 4, ["12", "012", "-5", "", "1x", "2500", "2501", "0"])
    rx.take(frame, 0)
    assert [rx.uint(i, 2500) for i in range(9)] == [12, -1, -1, -1, -1, 2500, -1, 0, -1]
    assert (rx.count, rx.text(0), rx.text(5, 2), rx.text(8)) == (8, "12", "25", "")


def test_mutated_streams_in_random_chunks_match_the_reference():
    rng = Rng(1234)
    frames = [
        p.encode(p.MOVE, 9, 1, [5, 300, 1000, 1100, 1200, 1300, 1400]),
        p.encode(p.PING, 0, 0, ["hb"]),
        p.encode(p.SYNC, 4, 0, ["token"]),
        p.encode(p.CONFIG, 2, 0, [1000, 2000, 1500, 60000, 0]),
        b"\r\n",
        b"noise without a newline",
        b"MOVE,1,2,3*00000000\n",
        b"x" * 300 + b"\n",
    ]
    for _ in range(60):
        stream = bytearray()
        for _ in range(8):
            stream += frames[rng.below(len(frames))]
        for _ in range(rng.below(4)):
            i = rng.below(len(stream))
            stream[i] = stream[i] ^ (1 << rng.below(8)) if rng.below(2) else rng.below(256)
        data = bytes(stream)
        chunks = []
        pos = 0
        while pos < len(data):
            n = 1 + rng.below(70)
            chunks.append(data[pos : pos + n])
            pos += n
        same_as_reference(chunks)


def test_a_line_longer_than_a_frame_is_dropped_once_then_reading_resumes():
    good = p.encode(p.PING, 0, 0, ["ok"])
    same_as_reference([b"y" * 200, b"y" * 200, b"\n" + good])
    same_as_reference([b"y" * 255 + b"\n" + good, b"z" * 256 + b"\r\n" + good])


def test_crc_valid_lines_that_break_the_grammar_are_dropped_as_malformed():
    def framed(body):
        return body + b"*" + binascii.hexlify(struct.pack(">I", binascii.crc32(body))) + b"\n"

    bodies = (
        b"move,1,2",
        b"MOVE,01,2",
        b"MOVE,1",
        b"MOVE,1,65536",
        b"MOVE,-1,0",
        b"TOOLONGKIND,1,2",
        b"M\tV,1,2",
        b"MOVE,1,2,a*b",
        b"PING,0,0,\x7f",
        b"PING,0,0,\xe9",
        b"MOVE,1,2," + b"1," * 40 + b"1",
    )
    stream = b"".join(framed(body) for body in bodies) + framed(b"MOVE,1,2," + b"1," * 39 + b"1")
    frames = same_as_reference([stream])
    assert len(frames) == 1 and len(frames[0][3]) == p.MAX_FIELDS


def test_the_reader_keeps_the_start_of_each_dropped_line_even_across_chunks():
    reader = FrameReader()
    good = p.encode(p.DONE, 4, 2, [7])
    spoiled = bytearray(p.encode(p.DONE, 5, 2, [8]))
    spoiled[-4] ^= 0x01  # the CRC no longer matches
    stream = good + bytes(spoiled) + b"AC" + b"K\n"
    got = []
    heads = []
    for i in range(len(stream)):  # one byte at a time, as a slow line delivers them
        got += reader.feed(stream[i : i + 1])
        heads += reader.spoiled
    assert [f[0] for f in got] == [p.DONE]
    assert heads == [b"DONE,5,2", b"ACK"] and reader.bad_crc == 1 and reader.malformed == 1
