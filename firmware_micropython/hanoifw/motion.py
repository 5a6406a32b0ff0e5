"""Synchronized, smooth interpolation of all servo channels through a queue of segments.

A segment is (cmd_id, duration_ms, target pulse per channel). It starts from the pose where the previous one
ended, and every channel follows the same minimum-jerk profile s(u) = 10u^3 - 15u^4 + 6u^5 (u = elapsed / duration),
so all channels start and finish together with zero velocity and acceleration at both ends.

The profile is read from a 257-entry table (made once, exactly, at import) with linear interpolation, in Q16 fixed
point: one division and a few small-integer operations per step, every intermediate value below 2**30 (a
MicroPython small int, so a step allocates nothing), and an error below 0.3 us on a 2000 us move.
"""

Q_BITS = 16
Q_ONE = 1 << Q_BITS  # 1.0 in Q16
TABLE_BITS = 8  # 256 intervals
U_BITS = 14  # resolution of u = elapsed / duration
MAX_DURATION_MS = 60000  # (MAX_DURATION_MS << U_BITS) < 2**30


def _min_jerk_table() -> "list[int]":
    """s(i / 256) in Q16 for i = 0..256, rounded exactly (integer arithmetic, done once)."""
    n = 1 << TABLE_BITS
    table = []
    for i in range(n + 1):
        numerator = i * i * i * (10 * n * n - 15 * n * i + 6 * i * i)  # s(i/n) * n**5
        table.append((numerator * Q_ONE + (n**5 >> 1)) // n**5)
    return table


_TABLE = _min_jerk_table()


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


class Motion:
    """A ring buffer of ``depth`` segments for ``channels`` servos and the segment being executed.

    The executing segment keeps its slot until it finishes, so ``free_slots`` counts it as used.
    All buffers are allocated here, once.
    """

    def __init__(self, channels: int, depth: int) -> None:
        self.channels = channels
        self.depth = depth
        self._targets_us = [[0] * channels for _ in range(depth)]
        self._durations_ms = [0] * depth
        self._cmd_ids = [0] * depth
        self._head = 0
        self._count = 0
        self._start_us = [0] * channels  # pose at which the executing segment began
        self._started = False
        self._elapsed_ms = 0

    @property
    def free_slots(self) -> int:
        """Number of segments that can still be pushed."""
        return self.depth - self._count

    @property
    def is_busy(self) -> bool:
        """True while a segment is executing or queued."""
        return self._count > 0

    def push(self, cmd_id: int, duration_ms: int, targets_us: "list[int]") -> bool:
        """Queue a segment (``duration_ms`` >= 1, one target pulse per channel); False if the queue is full."""
        if self._count >= self.depth:
            return False
        slot = (self._head + self._count) % self.depth
        row = self._targets_us[slot]
        for ch in range(self.channels):
            row[ch] = targets_us[ch]
        self._durations_ms[slot] = duration_ms
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
            self._elapsed_ms += remaining_ms
            duration_ms = self._durations_ms[slot]
            if self._elapsed_ms < duration_ms:
                s = min_jerk_q16(self._elapsed_ms, duration_ms)
                half = Q_ONE >> 1
                for ch in range(self.channels):
                    start = self._start_us[ch]
                    pose_us[ch] = start + (((targets[ch] - start) * s + half) >> Q_BITS)
                return
            remaining_ms = self._elapsed_ms - duration_ms
            for ch in range(self.channels):
                pose_us[ch] = targets[ch]
            done_ids.append(self._cmd_ids[slot])
            self._head = (slot + 1) % self.depth
            self._count -= 1
            self._started = False
