"""The link's timers as numbers (hanoibot.link.timers): resend and probe counted from when the frame should have
arrived, a probe asked again only at twice its delay, and reads that block until the first timer, in steps."""

from __future__ import annotations

import math

import pytest
from hanoibot.link.timers import MIN_REPROBE_S, TIMEOUT_STEP_S, Deadlines, read_wait_s, resend_timing


def test_resend_and_probe_count_from_the_same_moment() -> None:
    timing = resend_timing(since_s=2.0, rto_s=0.2, probe_after_s=0.02, probed_s=None, query_room_s=-math.inf)
    assert timing.retransmit_s == pytest.approx(2.2) and timing.probe_s == pytest.approx(2.02)


def test_a_probe_already_asked_is_asked_again_at_twice_its_delay() -> None:
    timing = resend_timing(since_s=2.0, rto_s=0.2, probe_after_s=0.02, probed_s=2.02, query_room_s=-math.inf)
    assert timing.probe_s == pytest.approx(2.06)
    instant = resend_timing(since_s=2.0, rto_s=0.2, probe_after_s=0.0, probed_s=2.0, query_room_s=-math.inf)
    assert instant.probe_s == pytest.approx(2.0 + MIN_REPROBE_S), "a zero round trip must not spin"


def test_no_probe_before_a_question_has_room() -> None:
    timing = resend_timing(since_s=2.0, rto_s=0.2, probe_after_s=0.02, probed_s=None, query_room_s=2.1)
    assert timing.probe_s == 2.1


def test_a_read_blocks_until_the_first_timer_in_whole_steps() -> None:
    due = Deadlines(math.inf, 1.0043, math.inf, 5.0, math.inf, math.inf)
    assert due.earliest_s == 1.0043
    wait_s = read_wait_s(due, now_s=1.0, quantum_s=0.01)
    assert wait_s >= 0.0043 and wait_s / TIMEOUT_STEP_S == pytest.approx(round(wait_s / TIMEOUT_STEP_S))
    assert read_wait_s(due, now_s=0.0, quantum_s=0.01) == pytest.approx(0.01)
    assert read_wait_s(due, now_s=2.0, quantum_s=0.01) == 0.0
