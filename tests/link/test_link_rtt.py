"""RttEstimator: the RFC 6298 arithmetic, back-off, and the probe delay."""

from __future__ import annotations

import pytest
from hanoibot.link.rtt import RttEstimator
from hypothesis import given
from hypothesis import strategies as st


def test_first_and_second_sample_follow_rfc_6298() -> None:
    rtt = RttEstimator(min_rto_s=0.0, max_rto_s=10.0)
    rtt.sample(0.1)
    # RFC 6298 (2.2): SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR.
    assert rtt.srtt_s == pytest.approx(0.1)
    assert rtt.rttvar_s == pytest.approx(0.05)
    assert rtt.rto_s == pytest.approx(0.3)
    rtt.sample(0.3)
    # (2.3): RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'|, then SRTT = 7/8 SRTT + 1/8 R'.
    assert rtt.rttvar_s == pytest.approx(0.75 * 0.05 + 0.25 * 0.2)
    assert rtt.srtt_s == pytest.approx(0.875 * 0.1 + 0.125 * 0.3)
    assert rtt.rto_s == pytest.approx(rtt.srtt_s + 4 * rtt.rttvar_s)


def test_back_off_doubles_up_to_the_cap_and_progress_clears_it() -> None:
    rtt = RttEstimator(initial_rto_s=0.1, min_rto_s=0.01, max_rto_s=0.5)
    seen = []
    for _ in range(5):
        rtt.back_off()
        seen.append(rtt.rto_s)
    assert seen == pytest.approx([0.2, 0.4, 0.5, 0.5, 0.5])
    rtt.clear_back_off()
    assert rtt.rto_s == pytest.approx(0.1)


def test_back_off_doubles_the_floor_when_round_trips_take_no_time() -> None:
    # On a virtual clock an answer can come in the same instant (round trip 0): the back-off must still double
    # the timeout from its floor, and stop at the cap (it once doubled a zero for ever, up to an OverflowError).
    rtt = RttEstimator(min_rto_s=0.03, max_rto_s=0.2)
    rtt.sample(0.0)
    seen = []
    for _ in range(2000):
        rtt.back_off()
        seen.append(rtt.rto_s)
    assert seen[:4] == pytest.approx([0.06, 0.12, 0.2, 0.2])
    assert seen[-1] == pytest.approx(0.2)


def test_probe_is_twice_the_recent_minimum_and_ignores_an_outlier() -> None:
    rtt = RttEstimator()
    assert rtt.probe_s == 0.0
    for sample_s in (0.002, 0.001, 0.003, 0.5):
        rtt.sample(sample_s)
    assert rtt.probe_s == pytest.approx(0.002)
    for _ in range(16):  # the old minimum falls out of the window
        rtt.sample(0.004)
    assert rtt.probe_s == pytest.approx(0.008)


@given(
    samples=st.lists(st.floats(0.0, 5.0), max_size=40),
    backoffs=st.integers(0, 10),
)
def test_rto_always_within_its_bounds(samples: list[float], backoffs: int) -> None:
    rtt = RttEstimator(min_rto_s=0.03, max_rto_s=1.0)
    for sample_s in samples:
        rtt.sample(sample_s)
        assert 0.03 <= rtt.rto_s <= 1.0
    for _ in range(backoffs):
        rtt.back_off()
        assert 0.03 <= rtt.rto_s <= 1.0


def test_a_measured_timeout_may_exceed_the_back_off_cap_up_to_its_own_bound() -> None:
    # A slow board: round trips of 0.3 s call for RFC 6298's 0.3 + 4 * 0.15 = 0.9 s, above the back-off cap of
    # 0.2 s; the measured timeout is kept up to max_measured_rto_s (0.5 s), and back-off adds nothing on top.
    rtt = RttEstimator(min_rto_s=0.03, max_rto_s=0.2, max_measured_rto_s=0.5)
    rtt.sample(0.3)
    assert rtt.measured_rto_s == pytest.approx(0.5)
    rtt.back_off()
    assert rtt.rto_s == pytest.approx(0.5)
    # A quick board is as before: back-off doubles its measured timeout up to the cap of 0.2 s.
    quick = RttEstimator(min_rto_s=0.03, max_rto_s=0.2, max_measured_rto_s=0.5)
    quick.sample(0.02)  # RTO 0.02 + 4 * 0.01 = 0.06 s
    seen = []
    for _ in range(3):
        quick.back_off()
        seen.append(quick.rto_s)
    assert seen == pytest.approx([0.12, 0.2, 0.2])


def test_without_a_measured_bound_the_back_off_cap_bounds_everything() -> None:
    rtt = RttEstimator(min_rto_s=0.03, max_rto_s=0.2)
    rtt.sample(0.3)
    assert rtt.rto_s == pytest.approx(0.2)
