"""Bytes in flight (hanoibot.link.flight): counted when written, dropped when an answer proves them read or, for a
question, when its answer is a resend timeout overdue, counted from the last proof."""

from __future__ import annotations

import math

from hanoibot.link.flight import MAX_IN_FLIGHT_BYTES, Lifetimes, UnreadBytes
from hanoifw import protocol

#: The esp32 REPL's serial input ring, in bytes: the smallest input of a board we support.
BOARD_INPUT_BYTES = 260


def test_the_budget_and_one_more_question_fit_the_input_of_a_small_board() -> None:
    longest_question = max(
        len(protocol.encode(kind, protocol.SEQ_MOD - 1, protocol.SEQ_MOD - 1, fields))
        for kind, fields in ((protocol.PING, ["9999999"]), (protocol.STATUS, []), (protocol.SYNC, ["ffffffff"]))
    )
    assert MAX_IN_FLIGHT_BYTES + longest_question < BOARD_INPUT_BYTES
    move = protocol.encode(protocol.MOVE, protocol.SEQ_MOD - 1, 9999, [99999, 1, 1999, 1999, 1999, 1999, 1999])
    assert 3 * len(move) + 40 <= MAX_IN_FLIGHT_BYTES, "three plain MOVEs and a question go back to back"


def test_frames_fit_until_the_budget_and_a_lone_frame_always_fits() -> None:
    flight = UnreadBytes(max_bytes=100)
    assert flight.has_room(150), "nothing in flight: even a long frame may go"
    flight.written(1, 60, now_s=0.0)
    assert flight.has_room(40) and not flight.has_room(41)
    assert not flight.has_room(30, keep_bytes=20), "room kept for a question is not given to data"
    flight.written(2, 40, now_s=0.0)
    assert flight.bytes == 100


def test_an_answer_proves_every_frame_up_to_the_one_it_answers() -> None:
    flight = UnreadBytes()
    for order in (1, 2, 3):
        flight.written(order, 30, now_s=0.0)
    flight.read_up_to(2, now_s=0.01)
    assert flight.bytes == 30
    flight.read_up_to(1, now_s=0.02)  # an older answer proves nothing new
    assert flight.bytes == 30


def test_an_answer_s_byte_count_proves_every_frame_that_ends_before_it() -> None:
    flight = UnreadBytes()
    for order in (1, 2, 3):
        flight.written(order, 30, now_s=0.0)
    assert flight.bytes_written == 90
    flight.read_through(59, now_s=0.01)  # the board read part of frame 2
    assert flight.bytes == 60 and flight.oldest_order == 2
    flight.read_through(90, now_s=0.02)
    assert flight.bytes == 0 and flight.oldest_order is None


def test_questions_expire_a_timeout_after_they_were_written_or_after_the_last_proof() -> None:
    flight = UnreadBytes()
    flight.written(1, 30, now_s=0.0)
    flight.written(2, 30, now_s=0.0)
    flight.written(3, 30, now_s=0.05)
    lives = Lifetimes(question_s=0.1)
    assert flight.oldest_expires_s(lives) == 0.1
    flight.read_up_to(1, now_s=0.08)  # the board is reading: frame 2 waited behind frame 1, it is not late
    assert flight.oldest_expires_s(lives) == 0.18
    flight.expire(now_s=0.179, lives=lives)
    assert flight.bytes == 60
    flight.expire(now_s=0.18, lives=lives)
    assert flight.bytes == 0, "frames 2 and 3: no proof for a timeout since the last one"
    assert flight.oldest_expires_s(lives) == math.inf


def test_a_reliable_frame_counts_until_proved_read_or_until_the_board_is_heard_and_leaves_it_unproved() -> None:
    flight = UnreadBytes(max_bytes=100)
    flight.written(1, 60, now_s=0.0, reliable=True)
    flight.written(2, 30, now_s=0.01)
    silent = Lifetimes(question_s=0.1, reliable_s=0.2, heard_s=-math.inf)
    assert flight.oldest_expires_s(silent) == 0.11, "the question behind it is not held up"
    flight.expire(now_s=5.0, lives=silent)
    assert flight.bytes == 60 and not flight.has_room(41), "a silent board is never sent more than the budget"
    assert flight.oldest_expires_s(silent) == math.inf
    heard = Lifetimes(question_s=0.1, reliable_s=0.2, heard_s=4.0)  # a line came after it was written
    assert flight.oldest_expires_s(heard) == 0.2
    flight.expire(now_s=5.0, lives=heard)
    assert flight.bytes == 0, "every answer since it was written was spoiled: it was lost, or they were"


def test_clear_forgets_everything() -> None:
    flight = UnreadBytes()
    flight.written(1, 30, now_s=0.0)
    flight.clear()
    assert flight.bytes == 0 and flight.has_room(MAX_IN_FLIGHT_BYTES)
