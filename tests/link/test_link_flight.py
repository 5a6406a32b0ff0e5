"""Bytes in flight (hanoibot.link.flight): counted when written, dropped when an answer proves them read or when
their answer is a resend timeout overdue, counted from the last proof."""

from __future__ import annotations

import math

from hanoibot.link.flight import MAX_IN_FLIGHT_BYTES, UnreadBytes


def test_the_budget_stays_below_the_200_bytes_a_small_board_input_holds() -> None:
    assert MAX_IN_FLIGHT_BYTES < 200


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


def test_frames_expire_a_timeout_after_they_were_written_or_after_the_last_proof() -> None:
    flight = UnreadBytes()
    flight.written(1, 30, now_s=0.0)
    flight.written(2, 30, now_s=0.0)
    flight.written(3, 30, now_s=0.05)
    assert flight.oldest_expires_s(0.1) == 0.1
    flight.read_up_to(1, now_s=0.08)  # the board is reading: frame 2 waited behind frame 1, it is not late
    assert flight.oldest_expires_s(0.1) == 0.18
    flight.expire(now_s=0.179, max_age_s=0.1)
    assert flight.bytes == 60
    flight.expire(now_s=0.18, max_age_s=0.1)
    assert flight.bytes == 0, "frames 2 and 3: no proof for a timeout since the last one"
    assert flight.oldest_expires_s(0.1) == math.inf


def test_clear_forgets_everything() -> None:
    flight = UnreadBytes()
    flight.written(1, 30, now_s=0.0)
    flight.clear()
    assert flight.bytes == 0 and flight.has_room(MAX_IN_FLIGHT_BYTES)
