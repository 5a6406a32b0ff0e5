"""The flight recorder (hanoibot.link.trace): the last frames both ways with times, damaged lines as they came,
bounded."""

from __future__ import annotations

from hanoibot.link.trace import FrameTrace


def test_frames_both_ways_are_kept_in_order_with_their_times() -> None:
    trace = FrameTrace()
    trace.wrote(0.5, b"PING,1,0,1*00000000\n")
    trace.read(0.51, b"PONG,7,1,1*0000")
    trace.read(0.52, b"0000\nST\x01ATUS")  # a line completed, a damaged one begun
    trace.read(0.53, b",x\n")
    assert trace.lines() == (
        "0.500000 > PING,1,0,1*00000000",
        "0.520000 < PONG,7,1,1*00000000",
        "0.530000 < ST\\x01ATUS,x",
    )


def test_only_the_last_frames_are_kept() -> None:
    trace = FrameTrace(size=3)
    for k in range(10):
        trace.wrote(float(k), f"F{k}\n".encode())
    assert [line.split()[-1] for line in trace.lines()] == ["F7", "F8", "F9"]
