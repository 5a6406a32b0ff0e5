"""The sending half (hanoibot.link.sender): reliable frames wait for room beside a question, go-back-N resends
every unacked frame oldest first, an ack of a frame sent once frees its bytes, and the line's byte time is counted."""

from __future__ import annotations

from hanoibot.link.flight import MAX_IN_FLIGHT_BYTES
from hanoibot.link.sender import QUERY_BYTES, Sender
from hanoifw import protocol


class Line:
    """A fake port and clock: what was written, at which time."""

    def __init__(self) -> None:
        self.now_s = 0.0
        self.frames: list[bytes] = []

    def write(self, frame: bytes) -> None:
        self.frames.append(frame)

    def kinds(self) -> list[str]:
        return [frame.split(b",")[0].decode() for frame in self.frames]


def long_fields(nbytes: int) -> list[str]:
    return ["x" * nbytes]


def test_reliable_frames_wait_for_room_beside_a_question() -> None:
    line = Line()
    sender = Sender(line.write, lambda: line.now_s, window=8, first_seq=5)
    first = sender.add(protocol.HOLD, long_fields(45), ack=0)
    second = sender.add(protocol.RESUME, long_fields(45), ack=0)
    third = sender.add(protocol.CLEAR, long_fields(45), ack=0)
    assert [first.transmissions, second.transmissions, third.transmissions] == [1, 1, 0]
    assert sender.flight.bytes + len(third.frame) + QUERY_BYTES > MAX_IN_FLIGHT_BYTES
    assert sender.is_waiting(third) and sender.has_waiting
    sender.take_ack(first.seq, now_s=0.01)  # the board read the first: room for the third
    sender.flush()
    assert third.transmissions == 1 and line.kinds() == ["HOLD", "RESUME", "CLEAR"]


def test_go_back_n_resends_every_unacked_frame_oldest_first() -> None:
    line = Line()
    sender = Sender(line.write, lambda: line.now_s, window=4)
    entries = [sender.add(protocol.HOLD, [k], ack=0) for k in range(3)]
    sender.take_ack(entries[0].seq, now_s=0.01)
    sender.resend_all()
    assert line.frames[3:] == [entries[1].frame, entries[2].frame]
    assert sender.retransmits == 2 and entries[1].transmissions == 2


def test_only_an_ack_of_a_frame_sent_once_proves_its_bytes_read() -> None:
    line = Line()
    sender = Sender(line.write, lambda: line.now_s, window=4)
    entry = sender.add(protocol.HOLD, [], ack=0)
    sender.resend_all()
    sender.take_ack(entry.seq, now_s=0.01)
    assert sender.flight.bytes == 2 * len(entry.frame), "which copy was read is unknown: both stay counted"


def test_the_line_is_busy_for_the_bytes_written_at_its_byte_time() -> None:
    line = Line()
    sender = Sender(line.write, lambda: line.now_s, window=4, line_byte_s=0.001)
    entry = sender.add(protocol.HOLD, [], ack=0)
    assert sender.line_done_s() == len(entry.frame) * 0.001
    line.now_s = 1.0  # idle since: the next frame starts at once
    second = sender.add(protocol.RESUME, [], ack=0)
    assert sender.line_done_s() == 1.0 + len(second.frame) * 0.001
