"""Receive-window tests (also run under MicroPython)."""

from hanoifw.protocol import SEQ_MOD
from hanoifw.rxwindow import AHEAD, DUPLICATE, IN_ORDER, NO_SESSION, RxWindow


def test_nothing_is_in_order_before_sync():
    rx = RxWindow()
    assert rx.classify(0) == NO_SESSION and rx.ack == SEQ_MOD - 1


def test_window_classifies_around_the_wrap():
    rx = RxWindow()
    assert rx.sync(SEQ_MOD - 2, "a")
    assert rx.ack == SEQ_MOD - 2 and rx.classify(SEQ_MOD - 1) == IN_ORDER
    rx.take()
    assert rx.classify(0) == IN_ORDER
    rx.take()
    assert rx.ack == 0
    assert rx.classify(SEQ_MOD - 1) == DUPLICATE and rx.classify(SEQ_MOD - 2) == DUPLICATE
    assert rx.classify(1) == IN_ORDER and rx.classify(2) == AHEAD
    assert rx.classify(SEQ_MOD // 2) == AHEAD and rx.classify(SEQ_MOD // 2 + 1) == DUPLICATE
    assert (rx.duplicates, rx.out_of_order) == (3, 2)


def test_a_repeated_sync_is_a_duplicate_only_with_the_same_token_and_seq():
    rx = RxWindow()
    assert rx.sync(10, "tok")
    rx.take()
    assert not rx.sync(10, "tok") and rx.expected_seq == 12
    assert rx.sync(10, "other") and rx.expected_seq == 11
    assert rx.sync(10, "") and rx.sync(10, "")  # without a token every SYNC starts a session
