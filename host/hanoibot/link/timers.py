"""The link's timers as plain numbers: when each is due, and how long a read may block before the first of them.

The same :class:`Deadlines` decide both how long a read blocks and what fires after it, so a timer can never be due
yet not fire. All times are in s of the link clock; ``inf`` means "not armed", ``-inf`` "due now".
"""

from __future__ import annotations

import math
from typing import NamedTuple

#: Granularity of read time-outs, in s (a real port is not reconfigured for every read).
TIMEOUT_STEP_S = 0.0005
#: Shortest time between two PINGs asking about the same unacked frame, in s.
MIN_REPROBE_S = 0.001


class Deadlines(NamedTuple):
    """When each timer fires, in s of the link clock."""

    retransmit_s: float  # go back N: resend the window
    probe_s: float  # ask with a PING whether the oldest frame was lost
    heartbeat_s: float  # feed the board's watchdog (PING or STATUS)
    silence_s: float  # no valid frame for the silence bound: LinkLost
    flush_s: float  # a reliable frame waiting for room may go
    reset_check_s: float  # ask STATUS again about a suspected reboot

    @property
    def earliest_s(self) -> float:
        """The first of them."""
        return min(self)


class ResendTiming(NamedTuple):
    """When the oldest unacked frame is resent (go back N) and when it is asked about (PING), in s."""

    retransmit_s: float
    probe_s: float


def resend_timing(
    *, since_s: float, rto_s: float, probe_after_s: float, probed_s: float | None, query_room_s: float
) -> ResendTiming:
    """Timers of the oldest unacked frame, counted from ``since_s`` (when it should have reached the board, or the
    last ack that made progress if that is later: RFC 6298, 5.3): resend after ``rto_s``, ask after
    ``probe_after_s``; if it was asked about already at ``probed_s`` with no verdict yet (the PING or PONG may be
    lost too), ask again at twice that, at least :data:`MIN_REPROBE_S` later; never before a question has room in
    flight (``query_room_s``)."""
    probe_s = since_s + probe_after_s
    if probed_s is not None:
        probe_s = max(probe_s, probed_s + max(2 * probe_after_s, MIN_REPROBE_S))
    return ResendTiming(since_s + rto_s, max(probe_s, query_room_s))


def read_wait_s(deadlines: Deadlines, now_s: float, quantum_s: float) -> float:
    """How long a read may block before a timer is due, in s: 0 to ``quantum_s``, rounded up to
    :data:`TIMEOUT_STEP_S`."""
    wait_s = min(quantum_s, deadlines.earliest_s - now_s)
    return 0.0 if wait_s <= 0 else math.ceil(wait_s / TIMEOUT_STEP_S) * TIMEOUT_STEP_S
