"""Questions to the board (hanoibot.link.probe): a PONG names the PING it answers, STATUS answers the oldest open
request, and a heartbeat is due a period after the last frame, or a resend timeout after an unanswered question."""

from __future__ import annotations

import pytest
from hanoibot.link.probe import MAX_PINGS, PingSent, Questions


def test_a_pong_answers_its_own_ping_once() -> None:
    questions = Questions(heartbeat_s=0.075, status_every_s=0.25)
    token = questions.new_ping_token()
    questions.asked(False, order=3, now_s=1.0)
    questions.ping_sent(token, PingSent(1.0, 3, 40))
    assert questions.pong("no such token", 1.01) is None
    assert questions.pong(token, 1.02) == PingSent(1.0, 3, 40)
    assert questions.pong(token, 1.03) is None, "a duplicated PONG proves nothing more"
    assert questions.take_pong_rtt_s(token) == pytest.approx(0.02)
    assert questions.answered_order == 3


def test_only_the_last_pings_are_remembered() -> None:
    questions = Questions(heartbeat_s=0.075, status_every_s=0.25)
    tokens = [questions.new_ping_token() for _ in range(MAX_PINGS + 1)]
    for order, token in enumerate(tokens):
        questions.ping_sent(token, PingSent(0.0, order, 30 * order))
        questions.new_ping_token()
    assert questions.pong(tokens[0], 1.0) is None and questions.pong(tokens[-1], 1.0) is not None


def test_a_status_answers_the_oldest_open_request() -> None:
    questions = Questions(heartbeat_s=0.075, status_every_s=0.25)
    questions.asked(True, order=4, now_s=0.0)
    questions.asked(True, order=9, now_s=0.1)
    assert questions.status_came(0.2) == 4
    assert questions.status_came(0.3) == 9
    assert questions.status_came(0.4) is None


def test_only_a_status_after_a_pings_pong_counts_as_made_after_that_ping() -> None:
    questions = Questions(heartbeat_s=0.075, status_every_s=0.25)
    questions.asked(True, order=1, now_s=0.0)  # a heartbeat's STATUS request
    token = questions.new_ping_token()
    questions.ping_sent(token, PingSent(0.1, 2, 60))
    questions.asked(True, order=3, now_s=0.1)
    assert not questions.status_came_after_pong(token), "no PONG yet"
    questions.status_came(0.2)  # the heartbeat's answer, made before the board read the PING
    assert not questions.status_came_after_pong(token)
    questions.pong(token, 0.3)
    assert not questions.status_came_after_pong(token), "the STATUS before the PONG is older than the PING"
    questions.status_came(0.3)
    assert questions.status_came_after_pong(token)
    questions.forget_pong(token)
    assert not questions.status_came_after_pong(token) and questions.take_pong_rtt_s(token) is None


def test_heartbeats_wait_a_period_or_a_resend_timeout_after_an_open_question() -> None:
    questions = Questions(heartbeat_s=0.075, status_every_s=0.25)
    questions.fit_watchdog(200)  # a quarter of a 200 ms watchdog: 50 ms
    assert questions.heartbeat_due_s(1.0, rto_s=0.03, measured_rto_s=0.03) == pytest.approx(1.05)
    questions.asked(False, order=1, now_s=2.0)  # unanswered: asked again a resend timeout later
    assert questions.heartbeat_due_s(2.0, rto_s=0.03, measured_rto_s=0.03) == pytest.approx(2.03)
    # A slow board's measured round trip is waited for, up to the resend timeout.
    assert questions.heartbeat_due_s(2.0, rto_s=0.4, measured_rto_s=0.3) == pytest.approx(2.3)


def test_a_heartbeat_is_a_status_when_the_last_one_is_old_or_a_reboot_is_suspected() -> None:
    questions = Questions(heartbeat_s=0.075, status_every_s=0.25)
    questions.asked(True, order=1, now_s=1.0)
    questions.status_came(1.01)
    assert not questions.heartbeat_is_status(1.1, suspect_reset=False)
    assert questions.heartbeat_is_status(1.1, suspect_reset=True)
    assert questions.heartbeat_is_status(1.3, suspect_reset=False)


def test_status_requests_a_handshake_outlived_are_not_waited_for_after_it() -> None:
    """STATUS requests written before a handshake (a board reset, then SYNC) had their answers dropped while the
    handshake waited for the HELLO, or never got one. Counted open, the next STATUS would be taken for the answer
    to the oldest of them, the request it answers would stay open, and every heartbeat after it would wait a resend
    timeout: on the virtual Pico, 0.49 s of silence against a 300 ms watchdog, and HOST_LOST while the outputs
    switched on (benchmarks/campaign.py, seed 61003, a reset mid-carry then resume --board)."""
    questions = Questions(heartbeat_s=0.075, status_every_s=0.25)
    questions.fit_watchdog(300)
    questions.asked(True, order=5, now_s=1.0)  # asked of the old boot: answered during the handshake, dropped
    questions.asked(True, order=7, now_s=1.1)
    questions.answered_before(10)  # the SYNC of the handshake was frame 10
    questions.asked(True, order=12, now_s=3.0)
    assert questions.status_came(3.01) == 12, "the new STATUS answers the request asked after the handshake"
    assert questions.heartbeat_due_s(3.0, rto_s=0.49, measured_rto_s=0.49) == pytest.approx(3.075)
