"""Reboot and takeover (hanoibot.link.watch): an ack is ours only between the last ack and the last seq sent, and
the verdicts name what happened and stay."""

from __future__ import annotations

from hanoibot.errors import BoardReset, SessionTakenOver
from hanoibot.link.watch import BoardWatch
from hanoifw import protocol


def test_an_ack_is_ours_between_the_last_ack_and_the_last_seq_sent() -> None:
    watch = BoardWatch("sim://")
    watch.acked_seq = protocol.SEQ_MOD - 2
    next_seq = 3  # sent up to seq 2, across the wrap
    assert all(watch.is_ours(ack, next_seq) for ack in (protocol.SEQ_MOD - 2, protocol.SEQ_MOD - 1, 0, 1, 2))
    assert not watch.is_ours(3, next_seq) and not watch.is_ours(protocol.SEQ_MOD - 3, next_seq)


def test_a_reset_names_the_commands_whose_fate_is_unknown_and_stays() -> None:
    watch = BoardWatch("sim://")
    watch.boot_id = "aaaa0001"
    err = watch.reset("bbbb0002", "watchdog", list(range(1, 11)))
    assert isinstance(err, BoardReset) and err.unknown_cmd_ids == tuple(range(1, 11))
    assert "aaaa0001 -> bbbb0002" in str(err) and "[1, 2, 3, 4, 5, 6, 7, 8 ...]" in str(err)
    assert watch.verdict() is err


def test_a_takeover_names_the_port_and_stays() -> None:
    watch = BoardWatch("/dev/ttyACM0")
    assert watch.verdict() is None
    err = watch.taken_over()
    assert isinstance(err, SessionTakenOver) and "--port /dev/ttyACM0" in str(err)
    assert watch.verdict() is err
