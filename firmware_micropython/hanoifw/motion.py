"""Synchronized interpolation of all servo channels through a queue of segments, with blends between them.

A segment is (cmd_id, duration_ms, target pulse per channel, ramp_ms, blend_ms). It runs from the pose where the
previous one ended, and every channel follows the same time profile s(t) from 0 to 1, so all channels start and
finish together:

* ``ramp_ms`` < 0 (a MOVE without profile fields): the minimum-jerk profile s(u) = 10u^3 - 15u^4 + 6u^5
  (u = elapsed / duration), with zero velocity and acceleration at both ends;
* ``ramp_ms`` >= 0: a trapezoidal speed profile: constant acceleration for ``ramp_ms``, constant speed, constant
  deceleration for the last ``ramp_ms`` (``2 * ramp_ms <= duration_ms``; 0 is constant speed throughout).

Blending: a trapezoidal segment with ``blend_ms`` > 0 starts that long before its trapezoidal predecessor ends, from
the predecessor's target, and the two motions add up. The overlap is min(blend_ms, both ramps), so during it
one segment decelerates while the next accelerates: every channel's velocity passes linearly from the one
segment's cruise velocity to the next one's, never faster than the faster of the two. A segment blends only if it
was queued before its predecessor's overlap began; one that arrives later starts when its predecessor has
finished, from rest, so the arm follows either the planned blend or the plain corner, never something between.

Both profiles are Q16 fixed point with every intermediate value below 2**30 (a MicroPython small int, so a step
allocates nothing). The minimum-jerk profile is read from a 257-entry table (precomputed exactly, written out
below) with linear interpolation: one division and a few small-integer operations per step, an error below
0.3 us on a 2000 us move.
"""

Q_BITS = 16
Q_ONE = 1 << Q_BITS  # 1.0 in Q16
TABLE_BITS = 8  # 256 intervals
U_BITS = 14  # resolution of u = elapsed / duration
MAX_DURATION_MS = 60000  # (MAX_DURATION_MS << U_BITS) < 2**30


# s(i / 256) in Q16 for i = 0..256, rounded: (i^3 (10 n^2 - 15 n i + 6 i^2) * 65536 + n^5 / 2) // n^5 with n = 256.
# Written out here (tests/firmware/test_hanoifw_motion.py recomputes it exactly) so that importing this module on the
# board makes no 2**40 big-int temporaries.
_TABLE = (
    0,
    0,
    0,
    1,
    2,
    5,
    8,
    13,
    19,
    27,
    37,
    49,
    63,
    79,
    99,
    121,
    145,
    173,
    204,
    239,
    277,
    319,
    364,
    414,
    467,
    524,
    586,
    652,
    723,
    798,
    878,
    963,
    1052,
    1146,
    1246,
    1350,
    1460,
    1574,
    1695,
    1820,
    1951,
    2087,
    2229,
    2376,
    2529,
    2687,
    2851,
    3021,
    3196,
    3377,
    3564,
    3757,
    3955,
    4159,
    4369,
    4585,
    4806,
    5033,
    5266,
    5505,
    5749,
    5999,
    6255,
    6517,
    6784,
    7057,
    7335,
    7619,
    7909,
    8204,
    8504,
    8810,
    9121,
    9438,
    9759,
    10086,
    10418,
    10755,
    11098,
    11445,
    11797,
    12154,
    12515,
    12882,
    13253,
    13628,
    14008,
    14393,
    14781,
    15174,
    15571,
    15973,
    16378,
    16787,
    17199,
    17616,
    18036,
    18460,
    18887,
    19317,
    19751,
    20187,
    20627,
    21070,
    21515,
    21963,
    22414,
    22867,
    23323,
    23781,
    24241,
    24703,
    25168,
    25634,
    26101,
    26571,
    27042,
    27514,
    27987,
    28462,
    28938,
    29415,
    29892,
    30370,
    30849,
    31329,
    31808,
    32288,
    32768,
    33248,
    33728,
    34207,
    34687,
    35166,
    35644,
    36121,
    36598,
    37074,
    37549,
    38022,
    38494,
    38965,
    39435,
    39902,
    40368,
    40833,
    41295,
    41755,
    42213,
    42669,
    43122,
    43573,
    44021,
    44466,
    44909,
    45349,
    45785,
    46219,
    46649,
    47076,
    47500,
    47920,
    48337,
    48749,
    49158,
    49563,
    49965,
    50362,
    50755,
    51143,
    51528,
    51908,
    52283,
    52654,
    53021,
    53382,
    53739,
    54091,
    54438,
    54781,
    55118,
    55450,
    55777,
    56098,
    56415,
    56726,
    57032,
    57332,
    57627,
    57917,
    58201,
    58479,
    58752,
    59019,
    59281,
    59537,
    59787,
    60031,
    60270,
    60503,
    60730,
    60951,
    61167,
    61377,
    61581,
    61779,
    61972,
    62159,
    62340,
    62515,
    62685,
    62849,
    63007,
    63160,
    63307,
    63449,
    63585,
    63716,
    63841,
    63962,
    64076,
    64186,
    64290,
    64390,
    64484,
    64573,
    64658,
    64738,
    64813,
    64884,
    64950,
    65012,
    65069,
    65122,
    65172,
    65217,
    65259,
    65297,
    65332,
    65363,
    65391,
    65415,
    65437,
    65457,
    65473,
    65487,
    65499,
    65509,
    65517,
    65523,
    65528,
    65531,
    65534,
    65535,
    65536,
    65536,
    65536,
)


def min_jerk_q16(elapsed_ms: int, duration_ms: int) -> int:
    """Return the minimum-jerk progress at ``elapsed_ms`` of a ``duration_ms`` segment, in Q16 (0..65536).

    Non-decreasing in ``elapsed_ms``; 0 at the start and exactly 65536 from the end on.
    """
    if elapsed_ms <= 0:
        return 0
    if elapsed_ms >= duration_ms:
        return Q_ONE
    u = (elapsed_ms << U_BITS) // duration_ms
    shift = U_BITS - TABLE_BITS
    i = u >> shift
    low = _TABLE[i]
    return low + (((_TABLE[i + 1] - low) * (u & ((1 << shift) - 1))) >> shift)


def trapezoid_q16(elapsed_ms: int, duration_ms: int, ramp_ms: int) -> int:
    """Return the progress of a trapezoidal profile at ``elapsed_ms`` of a ``duration_ms`` segment that
    accelerates for ``ramp_ms`` and decelerates for the last ``ramp_ms`` (0 <= 2 * ramp_ms <= duration_ms), in
    Q16 (0..65536): 0 at the start and exactly 65536 from the end on.

    In units of u = elapsed / duration (14 bits) and r = ramp / duration: s = u^2 / (2r(1-r)) while
    accelerating, (u - r/2) / (1 - r) at constant speed, 1 - (1-u)^2 / (2r(1-r)) while decelerating.
    """
    if elapsed_ms <= 0:
        return 0
    if elapsed_ms >= duration_ms:
        return Q_ONE
    full = 1 << U_BITS
    u = (elapsed_ms << U_BITS) // duration_ms
    r = (ramp_ms << U_BITS) // duration_ms
    cruise = full - r
    if u < r:
        return (((u << 15) // cruise) * u) // r
    if u <= cruise:
        return ((2 * u - r) << 15) // cruise
    w = full - u
    return Q_ONE - (((w << 15) // cruise) * w) // r


def _progress_q16(elapsed_ms: int, duration_ms: int, ramp_ms: int) -> int:
    """Progress in Q16 of a segment: minimum jerk when ``ramp_ms`` < 0, else trapezoidal."""
    if ramp_ms < 0:
        return min_jerk_q16(elapsed_ms, duration_ms)
    return trapezoid_q16(elapsed_ms, duration_ms, ramp_ms)


class Motion:
    """A ring buffer of ``depth`` segments for ``channels`` servos and the segment being executed.

    The executing segment keeps its slot until it finishes, so ``free_slots`` counts it as used; a segment that
    has begun blending in keeps its slot too. All buffers are allocated here, once.
    """

    def __init__(self, channels: int, depth: int) -> None:
        self.channels = channels
        self.depth = depth
        self._targets_us = [[0] * channels for _ in range(depth)]
        self._durations_ms = [0] * depth
        self._ramps_ms = [0] * depth
        self._blends_ms = [0] * depth
        self._cmd_ids = [0] * depth
        self._head = 0
        self._count = 0
        self._start_us = [0] * channels  # pose at which the executing segment began
        self._started = False
        self._elapsed_ms = 0
        self._overlap_ms = -1  # how long the next segment overlaps the executing one; -1 = not decided yet

    @property
    def free_slots(self) -> int:
        """Number of segments that can still be pushed."""
        return self.depth - self._count

    @property
    def is_busy(self) -> bool:
        """True while a segment is executing or queued."""
        return self._count > 0

    def push(
        self, cmd_id: int, duration_ms: int, targets_us: "list[int]", ramp_ms: int = -1, blend_ms: int = 0
    ) -> bool:
        """Queue a segment (``duration_ms`` >= 1, one target pulse per channel); False if the queue is full.

        ``ramp_ms`` < 0 is the minimum-jerk profile; else trapezoidal with that ramp (2 * ramp_ms <= duration_ms),
        blending into its predecessor for up to ``blend_ms`` (see the module's docstring).
        """
        if self._count >= self.depth:
            return False
        slot = (self._head + self._count) % self.depth
        row = self._targets_us[slot]
        for ch in range(self.channels):
            row[ch] = targets_us[ch]
        self._durations_ms[slot] = duration_ms
        self._ramps_ms[slot] = ramp_ms
        self._blends_ms[slot] = blend_ms
        self._cmd_ids[slot] = cmd_id
        self._count += 1
        return True

    def end_pose(self, pose_us: "list[int]") -> "list[int]":
        """The pulses (us per channel) where the queue ends: the last queued targets, or ``pose_us`` if empty."""
        if self._count == 0:
            return pose_us
        return self._targets_us[(self._head + self._count - 1) % self.depth]

    def clear(self) -> None:
        """Drop the executing segment and everything queued (the pose stays where it is)."""
        self._count = 0
        self._started = False

    def _overlap_with_next(self) -> int:
        """The overlap in ms the queued next segment may have with the executing one: the smallest of its
        ``blend_ms`` and both ramps, when both are trapezoidal; 0 when there is no next segment or no blend."""
        if self._count < 2:
            return 0
        slot = self._head
        following = (slot + 1) % self.depth
        ramp_ms = self._ramps_ms[slot]
        next_ramp_ms = self._ramps_ms[following]
        overlap_ms = self._blends_ms[following]
        if ramp_ms < 0 or next_ramp_ms < 0:
            return 0
        if ramp_ms < overlap_ms:
            overlap_ms = ramp_ms
        if next_ramp_ms < overlap_ms:
            overlap_ms = next_ramp_ms
        return overlap_ms

    def advance(self, dt_ms: int, pose_us: "list[int]", done_ids: "list[int]") -> None:
        """Move ``dt_ms`` further along the queue, writing the new pulse of every channel into ``pose_us``
        in place and appending the command id of each segment that finished to ``done_ids``.

        Time left over when a segment finishes carries into the next one, so a queue plays without drift.
        """
        remaining_ms = dt_ms
        while self._count > 0:
            slot = self._head
            targets = self._targets_us[slot]
            if not self._started:
                for ch in range(self.channels):
                    self._start_us[ch] = pose_us[ch]
                self._started = True
                self._elapsed_ms = 0
                self._overlap_ms = -1
            before_ms = self._elapsed_ms
            self._elapsed_ms += remaining_ms
            remaining_ms = 0
            duration_ms = self._durations_ms[slot]
            overlap_ms = self._overlap_ms
            if overlap_ms < 0 and self._count > 1:
                # Decided once, when the next segment is first seen: blend only if the overlap has not begun yet.
                overlap_ms = self._overlap_with_next()
                if before_ms > duration_ms - overlap_ms:
                    overlap_ms = 0
                self._overlap_ms = overlap_ms
            if self._elapsed_ms < duration_ms:
                self._interpolate(slot, pose_us)
                return
            done_ids.append(self._cmd_ids[slot])
            self._head = (slot + 1) % self.depth
            self._count -= 1
            if overlap_ms > 0 and self._count > 0:
                # The next segment has run for elapsed - (duration - overlap) already, from this one's target.
                for ch in range(self.channels):
                    self._start_us[ch] = targets[ch]
                self._elapsed_ms -= duration_ms - overlap_ms
                # A segment queued behind the new one has waited since before this step: it may blend.
                self._overlap_ms = self._overlap_with_next() if self._count > 1 else -1
                continue
            remaining_ms = self._elapsed_ms - duration_ms
            for ch in range(self.channels):
                pose_us[ch] = targets[ch]
            self._started = False

    def _interpolate(self, slot: int, pose_us: "list[int]") -> None:
        """Write the pose at the executing segment's elapsed time, plus the blending next segment's share.

        Each channel is rounded once: (change * progress) of both segments is summed in Q16 first (each term
        below 2**28, so the sum stays a small int).
        """
        targets = self._targets_us[slot]
        elapsed_ms = self._elapsed_ms
        duration_ms = self._durations_ms[slot]
        s = _progress_q16(elapsed_ms, duration_ms, self._ramps_ms[slot])
        half = Q_ONE >> 1
        overlap_ms = self._overlap_ms
        if overlap_ms <= 0 or elapsed_ms <= duration_ms - overlap_ms:
            for ch in range(self.channels):
                start = self._start_us[ch]
                pose_us[ch] = start + (((targets[ch] - start) * s + half) >> Q_BITS)
            return
        following = (slot + 1) % self.depth
        next_targets = self._targets_us[following]
        s_next = _progress_q16(
            elapsed_ms - (duration_ms - overlap_ms), self._durations_ms[following], self._ramps_ms[following]
        )
        for ch in range(self.channels):
            start = self._start_us[ch]
            target = targets[ch]
            pose_us[ch] = start + (((target - start) * s + (next_targets[ch] - target) * s_next + half) >> Q_BITS)
