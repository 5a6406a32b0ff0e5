"""Property and fuzz tests of the wire codec (hanoifw.protocol) under CPython.

The fuzz test mutates >= 10^5 frame streams (bit flips, bursts, byte insertions, deletions, duplicated and dropped
chunks, split and merged lines) and checks that the reader never raises and never yields a frame that was not
sent. Example-based tests that must also hold on the board live in tests/firmware/test_hanoifw_protocol.py.
"""

import random
import zlib
from pathlib import Path

import pytest
from hanoifw import protocol as p
from hanoifw.rxframe import FrameReader
from hypothesis import given, settings
from hypothesis import strategies as st

FIELD_ALPHABET = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) not in ",*")
MUTATIONS_PER_EXAMPLE = 500
FUZZ_EXAMPLES = 210
MIN_MUTATED_STREAMS = 100_000

kinds = st.one_of(
    st.sampled_from(p.IMMEDIATE_KINDS + p.RELIABLE_KINDS + (p.HELLO, p.ACK, p.DONE, p.ERROR, p.PONG)),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=p.MAX_KIND_LEN),
)
fields = st.lists(st.one_of(st.integers(-(2**31), 2**31), st.text(alphabet=FIELD_ALPHABET, max_size=12)), max_size=12)
frames = st.tuples(kinds, st.integers(0, p.SEQ_MOD - 1), st.integers(0, p.SEQ_MOD - 1), fields)


def as_decoded(frame: tuple[str, int, int, list[str | int]]) -> tuple[str, int, int, list[str]]:
    """The tuple the reader yields for ``frame``: fields come back as text."""
    kind, seq, ack, values = frame
    return (kind, seq, ack, [str(value) for value in values])


def feed_in_chunks(reader: FrameReader, data: bytes, rng: random.Random) -> list[tuple[str, int, int, list[str]]]:
    """Feed ``data`` in random-sized pieces, as a serial port delivers it."""
    got = []
    start = 0
    while start < len(data):
        size = rng.randint(1, 96)
        got.extend(reader.feed(data[start : start + size]))
        start += size
    return got


def mutate(data: bytearray, rng: random.Random) -> None:
    """Apply one random corruption to ``data`` in place."""
    n = len(data)
    pos = rng.randrange(n)
    choice = rng.randrange(10)
    if choice == 0:
        data[pos] ^= 1 << rng.randrange(8)  # single bit flip
    elif choice == 1:
        for i in range(pos, min(n, pos + 4)):  # burst of up to 32 bits
            data[i] ^= rng.randrange(1, 256)
    elif choice == 2:
        data[pos] = rng.randrange(256)
    elif choice == 3:
        data.insert(pos, rng.randrange(256))
    elif choice == 4:
        del data[pos]
    elif choice == 5:
        del data[pos : pos + rng.randint(1, 40)]  # dropped chunk
    elif choice == 6:
        data[pos:pos] = data[pos : pos + rng.randint(1, 40)]  # duplicated chunk
    elif choice == 7:
        data.insert(pos, 0x0A)  # a line split in two
    elif choice == 8:
        newline = data.find(b"\n", pos)
        if newline >= 0:
            del data[newline]  # two lines merged
    else:
        data[pos], data[(pos + 1) % n] = data[(pos + 1) % n], data[pos]


@given(frames)
def test_every_representable_frame_round_trips(frame: tuple[str, int, int, list[str | int]]) -> None:
    try:
        encoded = p.encode(*frame)
    except ValueError:
        text = ",".join([frame[0], str(frame[1]), str(frame[2])] + [str(v) for v in frame[3]])
        assert len(text) + 10 > p.MAX_FRAME_LEN  # only the length can be refused for these inputs
        return
    assert len(encoded) <= p.MAX_FRAME_LEN
    assert all(0x20 <= b <= 0x7E for b in encoded[:-1]) and encoded.endswith(b"\n")
    body, crc = encoded[:-1].rsplit(b"*", 1)
    assert int(crc, 16) == zlib.crc32(body)  # independent CRC implementation
    assert FrameReader().feed(encoded) == [as_decoded(frame)]


@given(st.lists(frames, min_size=1, max_size=5), st.binary(max_size=300), st.randoms(use_true_random=False))
def test_reader_resynchronises_on_the_next_newline(
    sent: list[tuple[str, int, int, list[str | int]]], garbage: bytes, rng: random.Random
) -> None:
    encoded = []
    expected = []
    for frame in sent:
        try:
            encoded.append(p.encode(*frame))
        except ValueError:
            continue
        expected.append(as_decoded(frame))
    if not encoded:
        return
    reader = FrameReader()
    got = feed_in_chunks(reader, garbage + b"\n" + b"".join(encoded), rng)
    assert got[-len(expected) :] == expected
    assert len(got) <= len(expected) + garbage.count(b"\n") + 1


@given(st.binary(max_size=2000))
def test_reader_never_raises_and_counts_every_dropped_line(data: bytes) -> None:
    reader = FrameReader()
    got = reader.feed(data)
    lines = data.count(b"\n")
    assert reader.frames == len(got)
    assert reader.frames + reader.bad_crc + reader.malformed + reader.oversized <= lines + 1


_counts = {"streams": 0, "frames": 0}


@settings(max_examples=FUZZ_EXAMPLES)
@given(st.lists(frames, min_size=1, max_size=4), st.integers(0, 2**32 - 1))
def _fuzz_mutated_streams(sent: list[tuple[str, int, int, list[str | int]]], seed: int) -> None:
    encoded = []
    originals = set()
    for frame in sent:
        try:
            encoded.append(p.encode(*frame))
        except ValueError:
            continue
        originals.add(repr(as_decoded(frame)))
    if not encoded:
        return
    stream = b"".join(encoded)
    rng = random.Random(seed)
    for _ in range(MUTATIONS_PER_EXAMPLE):
        data = bytearray(stream)
        for _ in range(rng.randint(1, 3)):
            if data:
                mutate(data, rng)
        reader = FrameReader()
        for got in feed_in_chunks(reader, bytes(data), rng):
            assert repr(got) in originals, (bytes(data), got)
        _counts["streams"] += 1
        _counts["frames"] += len(encoded)


@pytest.mark.slow  # make test / CI only: too long for the make check loop
def test_fuzz_no_mutated_frame_is_ever_accepted() -> None:
    _counts.update(streams=0, frames=0)
    _fuzz_mutated_streams()
    assert _counts["streams"] >= MIN_MUTATED_STREAMS, _counts


def test_oversized_frames_are_refused_by_encode_and_dropped_by_the_reader() -> None:
    text = "x" * (p.MAX_FRAME_LEN - 30)
    frame = p.encode(p.ERROR, 1, 2, ["CODE", text])
    assert len(frame) <= p.MAX_FRAME_LEN
    longer = frame[:-10] + b"yyyyyyyyyy" + frame[-10:]  # over the limit even before its CRC is checked
    reader = FrameReader()
    assert reader.feed(longer + frame) == [(p.ERROR, 1, 2, ["CODE", text])]
    assert reader.oversized == 1


def test_every_two_bit_error_in_a_frame_is_caught() -> None:
    frame = p.encode(p.PING, 513, 77, ["hb7"])
    bits = (len(frame) - 1) * 8  # the newline is framing, not payload
    reader = FrameReader()
    for first in range(bits):
        for second in range(first + 1, bits):
            broken = bytearray(frame)
            broken[first // 8] ^= 1 << (first % 8)
            broken[second // 8] ^= 1 << (second % 8)
            assert reader.feed(bytes(broken) + b"\n") == [], bytes(broken)
    assert reader.frames == 0


def test_the_transcript_in_docs_protocol_md_is_made_of_valid_frames() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    lines = [line[2:] for line in doc.splitlines() if line[:2] in ("> ", "< ")]
    assert len(lines) >= 8
    reader = FrameReader()
    assert len(reader.feed("".join(line + "\n" for line in lines).encode())) == len(lines)
