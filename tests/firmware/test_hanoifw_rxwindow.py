"""Receive-window tests (also run under MicroPython)."""

from hanoifw.protocol import SEQ_MOD
from hanoifw.rxwindow import AHEAD, DUPLICATE, HELD_FRAMES, IN_ORDER, NO_SESSION, RxWindow


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


def test_frames_ahead_are_kept_up_to_held_frames_and_given_back_in_seq_order():
    rx = RxWindow()
    rx.sync(SEQ_MOD - 3, "a")  # expects SEQ_MOD - 2; the kept seqs wrap around 0
    for k in range(1, HELD_FRAMES + 2):
        rx.hold((SEQ_MOD - 2 + k) % SEQ_MOD, b"line %d" % k)
    assert len(rx.held) == HELD_FRAMES and rx.held_mask() == (1 << HELD_FRAMES) - 1
    assert rx.take_held() is None  # the expected frame itself is not kept
    rx.take()
    taken = []
    line = rx.take_held()
    while line is not None:
        taken.append(line)
        rx.take()
        line = rx.take_held()
    assert taken == [b"line %d" % k for k in range(1, HELD_FRAMES + 1)]
    assert rx.ack == (SEQ_MOD - 2 + HELD_FRAMES) % SEQ_MOD and rx.held_mask() == 0


def test_the_held_mask_names_the_kept_frames_and_a_new_session_forgets_them():
    rx = RxWindow()
    rx.sync(100, "a")
    rx.hold(103, b"c")
    rx.hold(105, b"e")
    rx.hold(101 + HELD_FRAMES + 1, b"too far")
    assert rx.held_mask() == 0b1010  # bit i: seq ack + 2 + i
    rx.sync(100, "a")  # a repeated SYNC keeps them
    assert rx.held_mask() == 0b1010
    rx.sync(200, "b")
    assert rx.held_mask() == 0 and rx.take_held() is None
