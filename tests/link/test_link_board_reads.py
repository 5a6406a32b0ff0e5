"""The board's byte count put onto the host's byte numbering (hanoibot.link.board_reads): exact once a PONG has
pinned it, short (never past the truth) when the line has dropped bytes since, and right across the 16-bit wrap."""

from __future__ import annotations

from hanoibot.link.board_reads import COUNT_MOD, BoardReads


def test_nothing_is_known_before_a_pong_pins_the_count() -> None:
    reads = BoardReads()
    assert not reads.is_pinned and reads.host_offset(10, 100) is None
    reads.pin(host_end=100, rx_count=100)
    assert reads.is_pinned and reads.host_offset(40, 100) == 40
    reads.forget()
    assert reads.host_offset(40, 100) is None


def test_a_pin_carries_the_bytes_lost_before_it_and_later_losses_only_shorten_the_answer() -> None:
    reads = BoardReads()
    # The host wrote 500 bytes; 7 were lost on the line before the PING that ends at 500: the board counts 493.
    reads.pin(host_end=500, rx_count=493)
    assert reads.host_offset(493, 560) == 500
    # 3 more bytes are lost after the PING: the board has read all 560 but counts 550. The host puts it at 557,
    # short of the truth: a frame is never taken as read before it was.
    assert reads.host_offset(550, 560) == 557


def test_counts_wrap_at_16_bits_while_the_host_counts_on() -> None:
    reads = BoardReads()
    written = 3 * COUNT_MOD + 1000
    reads.pin(host_end=written - 200, rx_count=(written - 200) % COUNT_MOD)
    assert reads.host_offset((written - 10) % COUNT_MOD, written) == written - 10
    assert reads.host_offset(written % COUNT_MOD, written) == written
