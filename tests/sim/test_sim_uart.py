"""The paced serial line: bytes come out in order, no faster than baud / 10 per second, and never early."""

from __future__ import annotations

import pytest
from hanoibot.sim.uart import PacedLine


def test_bytes_arrive_one_byte_time_apart_in_order() -> None:
    line = PacedLine(1000)  # 100 bytes/s: one byte every 10 ms
    line.push(b"abc", now_s=1.0)
    assert line.next_due_s() == pytest.approx(1.010)
    assert line.due(1.0099) == b""
    assert line.due(1.010) == b"a"
    assert line.due(1.0299) == b"b"
    assert line.due(5.0) == b"c"
    assert line.next_due_s() is None


def test_a_busy_line_queues_and_an_idle_line_starts_at_once() -> None:
    line = PacedLine(1000)
    line.push(b"ab", now_s=0.0)
    line.push(b"cd", now_s=0.005)  # joins the queue: carried after b
    assert line.due(0.035) == b"abc"
    assert line.due(0.040) == b"d"
    line.push(b"e", now_s=0.0405)  # the line was busy until 0.040, so e starts at 0.0405
    assert line.next_due_s() == pytest.approx(0.0505)
    line.push(b"f", now_s=0.100)  # e was carried by 0.0505 (not yet collected): f starts at 0.100, not before
    assert line.due(0.1099) == b"e"
    assert line.due(0.110) == b"f"


def test_throughput_is_baud_over_ten() -> None:
    line = PacedLine(115200)
    line.push(bytes(11520), now_s=0.0)
    assert len(line.due(0.5)) == 5760
    assert len(line.due(1.0)) == 5760


def test_a_baud_rate_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="baud rate 0"):
        PacedLine(0)
