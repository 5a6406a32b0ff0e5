"""SendWindow: seq numbering modulo 2**16, cumulative acks, renumbering after SYNC."""

from __future__ import annotations

from hanoibot.link.window import SendWindow
from hanoifw.protocol import SEQ_MOD
from hanoifw.rxframe import FrameReader
from hypothesis import given
from hypothesis import strategies as st


def test_seqs_count_up_and_wrap() -> None:
    window = SendWindow(4, first_seq=SEQ_MOD - 2)
    seqs = [window.add("MOVE", [k], ack=0, cmd_id=k).seq for k in range(4)]
    assert seqs == [SEQ_MOD - 2, SEQ_MOD - 1, 0, 1]
    assert window.is_full


@given(
    first_seq=st.integers(0, SEQ_MOD - 1),
    steps=st.lists(st.one_of(st.just("add"), st.integers(-3, 6)), max_size=60),
)
def test_cumulative_ack_matches_a_plain_model(first_seq: int, steps: list[str | int]) -> None:
    window = SendWindow(1000, first_seq=first_seq)
    model: list[int] = []  # unacked seqs, oldest first, as plain integers that never wrap
    next_plain = first_seq
    for step in steps:
        if step == "add":
            window.add("HOLD", [], ack=0)
            model.append(next_plain)
            next_plain += 1
        else:
            # Ack the seq at this offset from the oldest unacked one (negative: an old, repeated ack).
            base = model[0] if model else next_plain
            ack_plain = base + int(step)
            acked = window.take_ack(ack_plain % SEQ_MOD)
            expected = [s for s in model if s <= ack_plain] if ack_plain >= base and ack_plain < next_plain else []
            assert [entry.seq for entry in acked] == [s % SEQ_MOD for s in expected]
            assert all(entry.acked for entry in acked)
            model = model[len(expected) :]
        assert [entry.seq for entry in window.pending()] == [s % SEQ_MOD for s in model]


def test_restart_renumbers_unacked_frames_as_unsent() -> None:
    window = SendWindow(4, first_seq=100)
    for k in range(3):
        entry = window.add("MOVE", [k + 1, 20, 1500], ack=7, cmd_id=k + 1)
        entry.transmissions = 2
    window.take_ack(100)
    window.restart(500, ack=9)
    pending = window.pending()
    assert [entry.seq for entry in pending] == [500, 501]
    assert all(entry.transmissions == 0 for entry in pending)
    frames = FrameReader().feed(b"".join(entry.frame for entry in pending))
    assert frames == [("MOVE", 500, 9, ["2", "20", "1500"]), ("MOVE", 501, 9, ["3", "20", "1500"])]
    assert window.next_seq == 502
    assert [entry.cmd_id for entry in window.clear()] == [2, 3]
    assert window.oldest is None
