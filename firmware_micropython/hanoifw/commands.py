"""Field parsing and validation of the CONFIG and MOVE commands.

Fields are read in place from the received frame (:class:`hanoifw.rxframe.RxFrame`: ``count``, ``uint(i, max)``,
``text(i, max_len)``). A refusal is an ERROR code of :mod:`hanoifw.protocol` and a text that says which value is
bad and what was expected. A MOVE is parsed into a :class:`MoveCommand` made once, so the hot path allocates
nothing; CONFIG (rare) returns new lists.
"""

from hanoifw import protocol as p


def parse_config(fields, channels: int, hard_min_us: int, hard_max_us: int) -> tuple:
    """Parse CONFIG fields ``min_us,max_us,start_us,max_speed_us_s`` per channel, then ``grip_threshold``.

    Each channel needs ``hard_min_us <= min_us < max_us <= hard_max_us``, ``min_us <= start_us <= max_us`` and
    a speed of 1..``protocol.HARD_MAX_SPEED_US_S`` us/s; the grip threshold is a ``read_u16`` value (0 = none).
    Returns ``(code, text, value)``: ``value`` is ``(mins_us, maxs_us, starts_us, max_speeds_us_s,
    grip_threshold)``, or None when the command is refused.
    """
    if fields.count != 4 * channels + 1:
        return (
            p.E_BAD_CHANNELS,
            "CONFIG has %d values: expected 4 x %d channels + grip threshold" % (fields.count, channels),
            None,
        )
    mins = []
    maxs = []
    starts = []
    speeds = []
    for ch in range(channels):
        values = []
        for index in range(4 * ch, 4 * ch + 3):
            value = fields.uint(index, hard_max_us)
            if value < hard_min_us:
                text = fields.text(index, 8)
                return p.E_LIMIT, "channel %d value %s: expected %d..%d us" % (ch, text, hard_min_us, hard_max_us), None
            values.append(value)
        low, high, start = values
        if low >= high or not low <= start <= high:
            return (
                p.E_LIMIT,
                "channel %d min %d max %d start %d: expected min < max, start within" % (ch, low, high, start),
                None,
            )
        speed = fields.uint(4 * ch + 3, p.HARD_MAX_SPEED_US_S)
        if speed < 1:
            text = fields.text(4 * ch + 3, 8)
            return p.E_LIMIT, "channel %d speed %s: expected 1..%d us/s" % (ch, text, p.HARD_MAX_SPEED_US_S), None
        mins.append(low)
        maxs.append(high)
        starts.append(start)
        speeds.append(speed)
    threshold = fields.uint(4 * channels, p.MAX_GRIP_THRESHOLD)
    if threshold < 0:
        text = fields.text(4 * channels, 8)
        return p.E_BAD_FRAME, "grip threshold %s: expected 0..%d" % (text, p.MAX_GRIP_THRESHOLD), None
    return "", "", (mins, maxs, starts, speeds, threshold)


class MoveCommand:
    """The values of the latest MOVE of ``channels`` channels, parsed in place (made once, reused)."""

    def __init__(self, channels: int) -> None:
        self.channels = channels
        self.duration_ms = 0
        self.targets_us = [0] * channels
        self.ramp_ms = -1  # -1: minimum-jerk; else the trapezoid's ramp
        self.blend_ms = 0
        self.code = ""  # why the latest parse refused the MOVE (an ERROR code), with ``text``
        self.text = ""

    def parse(self, fields, mins_us: "list[int]", maxs_us: "list[int]", max_duration_ms: int) -> bool:
        """Parse MOVE fields ``cmd_id,duration_ms,pulse_us...[,ramp_ms,blend_ms]`` (one pulse per channel);
        False (with ``code`` and ``text``) if refused.

        ``duration_ms`` must be 1..``max_duration_ms``; a pulse outside ``mins_us..maxs_us`` of its channel is
        refused (never clamped). Without the two profile fields the segment is minimum-jerk (``ramp_ms`` -1); with
        them it is trapezoidal: ``ramp_ms`` 0..duration/2, ``blend_ms`` 0..``ramp_ms``.
        """
        channels = self.channels
        profiled = fields.count == 4 + channels
        if fields.count != 2 + channels and not profiled:
            n = fields.count - 2
            return self._refuse(
                p.E_BAD_CHANNELS, "MOVE has %d pulses: expected %d, then optionally ramp_ms,blend_ms" % (n, channels)
            )
        duration_ms = fields.uint(1, max_duration_ms)
        if duration_ms < 1:
            return self._refuse(
                p.E_BAD_DURATION, "duration %s ms: expected 1..%d" % (fields.text(1, 8), max_duration_ms)
            )
        targets = self.targets_us
        for ch in range(channels):
            pulse_us = fields.uint(2 + ch, maxs_us[ch])
            if pulse_us < mins_us[ch]:
                text = "channel %d pulse %s us: expected %d..%d" % (
                    ch,
                    fields.text(2 + ch, 8),
                    mins_us[ch],
                    maxs_us[ch],
                )
                return self._refuse(p.E_LIMIT, text)
            targets[ch] = pulse_us
        ramp_ms = -1
        blend_ms = 0
        if profiled:
            ramp_ms = fields.uint(2 + channels, duration_ms // 2)
            if ramp_ms < 0:
                text = "ramp %s ms: expected 0..%d (half the duration)" % (
                    fields.text(2 + channels, 8),
                    duration_ms // 2,
                )
                return self._refuse(p.E_BAD_DURATION, text)
            blend_ms = fields.uint(3 + channels, ramp_ms)
            if blend_ms < 0:
                text = "blend %s ms: expected 0..%d (the ramp)" % (fields.text(3 + channels, 8), ramp_ms)
                return self._refuse(p.E_BAD_DURATION, text)
        self.duration_ms = duration_ms
        self.ramp_ms = ramp_ms
        self.blend_ms = blend_ms
        return True

    def _refuse(self, code: str, text: str) -> bool:
        self.code = code
        self.text = text
        return False


# Peak over average speed of the minimum-jerk profile s(u) = 10u^3 - 15u^4 + 6u^5 (hanoifw.motion): s'(1/2) = 15/8.
# The host times its plain MOVEs with this same ratio (hanoibot.motion.timing), so the two cannot disagree.
MIN_JERK_PEAK_NUM = 15
MIN_JERK_PEAK_DEN = 8


def peak_speed_us_s(delta_us: int, duration_ms: int, ramp_ms: int = -1) -> int:
    """The peak speed in us/s (rounded up) of a ``delta_us`` move in ``duration_ms``: 15/8 of the average for the
    minimum-jerk profile (``ramp_ms`` < 0: s'(1/2) = 30/16), ``delta / (duration - ramp)`` for a trapezoid.

    Every intermediate value stays below 2**30 (pulses <= 2500 us, durations <= 60000 ms): no big ints.
    """
    if delta_us < 0:
        delta_us = -delta_us
    if ramp_ms < 0:
        divisor = MIN_JERK_PEAK_DEN * duration_ms
        return (delta_us * MIN_JERK_PEAK_NUM * 1000 + divisor - 1) // divisor
    divisor = duration_ms - ramp_ms
    return (delta_us * 1000 + divisor - 1) // divisor


def check_speeds(
    from_us: "list[int]",
    targets_us: "list[int]",
    duration_ms: int,
    max_speeds_us_s: "list[int]",
    ramp_ms: int = -1,
) -> "tuple | None":
    """None if going from ``from_us`` to ``targets_us`` in ``duration_ms`` with the profile of ``ramp_ms`` keeps
    every channel's PEAK speed (:func:`peak_speed_us_s`) within its ``max_speeds_us_s``, else ``(code, text)``
    naming the first channel that would be too fast. A servo must follow the profile's peak, not its average."""
    for ch in range(len(targets_us)):
        start = from_us[ch]
        if not start:
            continue  # not output yet: the staggered enable brings it to its start pulse first
        delta_us = targets_us[ch] - start
        limit = max_speeds_us_s[ch]
        peak = peak_speed_us_s(delta_us, duration_ms, ramp_ms)
        if peak > limit:
            return (
                p.E_TOO_FAST,
                "channel %d: %d us in %d ms peaks at %d us/s, faster than its %d us/s"
                % (ch, abs(delta_us), duration_ms, peak, limit),
            )
    return None
