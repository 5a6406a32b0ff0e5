"""Adaptive retransmission timeout: Jacobson/Karels smoothed round-trip time (as in RFC 6298).

Only frames acked after a single transmission give samples (Karn's rule: the ack of a resent frame cannot be
matched to one transmission). A timeout doubles the RTO; an ack that makes progress clears the doubling (as
Linux TCP does), since frames resend so often on a noisy line that clean samples become rare. Back-off stops at
``max_rto_s``; the measured timeout may go higher, up to ``max_measured_rto_s``: a board that answers slowly (a busy
chip) is waited for as long as it takes, not asked again before it could have answered.
"""

from __future__ import annotations

from collections import deque

#: Round-trip samples kept for :attr:`RttEstimator.probe_s`.
_RECENT_SAMPLES = 16


class RttEstimator:
    """SRTT/RTTVAR estimator giving the retransmission timeout ``rto_s`` in seconds."""

    def __init__(
        self,
        *,
        initial_rto_s: float = 0.2,
        min_rto_s: float = 0.03,
        max_rto_s: float = 1.0,
        max_measured_rto_s: float | None = None,
    ) -> None:
        self.min_rto_s = min_rto_s
        self.max_rto_s = max_rto_s
        self.max_measured_rto_s = max_rto_s if max_measured_rto_s is None else max(max_rto_s, max_measured_rto_s)
        self.srtt_s: float | None = None
        self.rttvar_s = 0.0
        self._base_rto_s = initial_rto_s
        self._backoff = 1
        self._recent_s: deque[float] = deque(maxlen=_RECENT_SAMPLES)

    @property
    def measured_rto_s(self) -> float:
        """The timeout the round trips call for, in s, without back-off: within [min_rto_s, max_measured_rto_s]."""
        return min(self.max_measured_rto_s, max(self.min_rto_s, self._base_rto_s))

    @property
    def rto_s(self) -> float:
        """The current retransmission timeout in s: the measured one, doubled by back-off up to max_rto_s (or
        not at all when the measured one is longer)."""
        measured_s = self.measured_rto_s
        return min(max(self.max_rto_s, measured_s), measured_s * self._backoff)

    @property
    def probe_s(self) -> float:
        """How long after sending a frame its ack is overdue enough to ask whether it was lost, in s: twice the
        smallest of the recent round trips (0 before any sample). A PING to ask costs little, so this is
        deliberately shorter than the RTO, and one slow outlier does not stretch it."""
        return 2.0 * min(self._recent_s) if self._recent_s else 0.0

    def sample(self, rtt_s: float) -> None:
        """Fold in one round-trip time in s measured on a frame sent once; clears the back-off."""
        rtt_s = max(rtt_s, 0.0)
        self._recent_s.append(rtt_s)
        if self.srtt_s is None:
            self.srtt_s = rtt_s
            self.rttvar_s = rtt_s / 2
        else:
            self.rttvar_s = 0.75 * self.rttvar_s + 0.25 * abs(self.srtt_s - rtt_s)
            self.srtt_s = 0.875 * self.srtt_s + 0.125 * rtt_s
        self._base_rto_s = self.srtt_s + 4 * self.rttvar_s
        self._backoff = 1

    def clear_back_off(self) -> None:
        """An ack made progress: the line works again, so drop the back-off even without a clean sample."""
        self._backoff = 1

    def back_off(self) -> None:
        """A retransmission timer expired: double the timeout (up to ``max_rto_s``)."""
        if self.measured_rto_s * self._backoff < self.max_rto_s:
            self._backoff *= 2
