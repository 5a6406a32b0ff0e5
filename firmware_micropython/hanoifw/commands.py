"""Field parsing and validation of the CONFIG and MOVE commands.

Each parser returns ``(code, text, value)``: ``value`` is None when the command is refused, and then ``code`` is
an ERROR code of :mod:`hanoifw.protocol` and ``text`` says which value is bad and what was expected.
"""

from hanoifw import protocol as p


def parse_config(fields: "list[str]", channels: int, hard_min_us: int, hard_max_us: int) -> tuple:
    """Parse CONFIG fields ``min_us,max_us,start_us,max_speed_us_s`` per channel, then ``grip_threshold``.

    Each channel needs ``hard_min_us <= min_us < max_us <= hard_max_us``, ``min_us <= start_us <= max_us`` and
    a speed of 1..``protocol.HARD_MAX_SPEED_US_S`` us/s; the grip threshold is a ``read_u16`` value (0 = none).
    The value is ``(mins_us, maxs_us, starts_us, max_speeds_us_s, grip_threshold)``.
    """
    if len(fields) != 4 * channels + 1:
        return (
            p.E_BAD_CHANNELS,
            "CONFIG has %d values: expected 4 x %d channels + grip threshold" % (len(fields), channels),
            None,
        )
    mins = []
    maxs = []
    starts = []
    speeds = []
    for ch in range(channels):
        values = []
        for text in fields[4 * ch : 4 * ch + 3]:
            value = p.parse_uint(text, hard_max_us)
            if value < hard_min_us:
                return (
                    p.E_LIMIT,
                    "channel %d value %s: expected %d..%d us" % (ch, text[:8], hard_min_us, hard_max_us),
                    None,
                )
            values.append(value)
        low, high, start = values
        if low >= high or not low <= start <= high:
            return (
                p.E_LIMIT,
                "channel %d min %d max %d start %d: expected min < max, start within" % (ch, low, high, start),
                None,
            )
        speed = p.parse_uint(fields[4 * ch + 3], p.HARD_MAX_SPEED_US_S)
        if speed < 1:
            text = fields[4 * ch + 3][:8]
            return p.E_LIMIT, "channel %d speed %s: expected 1..%d us/s" % (ch, text, p.HARD_MAX_SPEED_US_S), None
        mins.append(low)
        maxs.append(high)
        starts.append(start)
        speeds.append(speed)
    threshold = p.parse_uint(fields[-1], p.MAX_GRIP_THRESHOLD)
    if threshold < 0:
        return p.E_BAD_FRAME, "grip threshold %s: expected 0..%d" % (fields[-1][:8], p.MAX_GRIP_THRESHOLD), None
    return "", "", (mins, maxs, starts, speeds, threshold)


def parse_move(
    fields: "list[str]", channels: int, mins_us: "list[int]", maxs_us: "list[int]", max_duration_ms: int
) -> tuple:
    """Parse MOVE fields ``cmd_id,duration_ms,pulse_us...[,ramp_ms,blend_ms]`` (one pulse per channel).

    ``duration_ms`` must be 1..``max_duration_ms``; a pulse outside ``mins_us..maxs_us`` of its channel is
    refused (never clamped). Without the two profile fields the segment is minimum-jerk (``ramp_ms`` -1); with
    them it is trapezoidal: ``ramp_ms`` 0..duration/2, ``blend_ms`` 0..``ramp_ms``. The value is
    ``(duration_ms, targets_us, ramp_ms, blend_ms)``.
    """
    profiled = len(fields) == 4 + channels
    if len(fields) != 2 + channels and not profiled:
        text = "MOVE has %d pulses: expected %d, then optionally ramp_ms,blend_ms" % (len(fields) - 2, channels)
        return p.E_BAD_CHANNELS, text, None
    duration_ms = p.parse_uint(fields[1], max_duration_ms)
    if duration_ms < 1:
        return p.E_BAD_DURATION, "duration %s ms: expected 1..%d" % (fields[1][:8], max_duration_ms), None
    targets = []
    for ch in range(channels):
        text = fields[2 + ch]
        pulse_us = p.parse_uint(text, maxs_us[ch])
        if pulse_us < mins_us[ch]:
            return (
                p.E_LIMIT,
                "channel %d pulse %s us: expected %d..%d" % (ch, text[:8], mins_us[ch], maxs_us[ch]),
                None,
            )
        targets.append(pulse_us)
    ramp_ms = -1
    blend_ms = 0
    if profiled:
        ramp_ms = p.parse_uint(fields[2 + channels], duration_ms // 2)
        if ramp_ms < 0:
            text = fields[2 + channels][:8]
            return p.E_BAD_DURATION, "ramp %s ms: expected 0..%d (half the duration)" % (text, duration_ms // 2), None
        blend_ms = p.parse_uint(fields[3 + channels], ramp_ms)
        if blend_ms < 0:
            return (
                p.E_BAD_DURATION,
                "blend %s ms: expected 0..%d (the ramp)" % (fields[3 + channels][:8], ramp_ms),
                None,
            )
    return "", "", (duration_ms, targets, ramp_ms, blend_ms)


def check_speeds(
    from_us: "list[int]", targets_us: "list[int]", duration_ms: int, max_speeds_us_s: "list[int]"
) -> tuple:
    """``("", "")`` if going from ``from_us`` to ``targets_us`` in ``duration_ms`` keeps every channel's average
    speed within its ``max_speeds_us_s``, else ``(code, text)`` naming the first channel that would be too fast.

    Every intermediate value stays below 2**30 (pulses <= 2500 us, durations <= 60000 ms): no big ints.
    """
    for ch in range(len(targets_us)):
        start = from_us[ch]
        if not start:
            continue  # not output yet: the staggered enable brings it to its start pulse first
        delta_us = targets_us[ch] - start
        if delta_us < 0:
            delta_us = -delta_us
        limit = max_speeds_us_s[ch]
        if (delta_us * 1000 + duration_ms - 1) // duration_ms > limit:  # ceil(average speed) > limit
            return (
                p.E_TOO_FAST,
                "channel %d: %d us in %d ms is faster than its %d us/s" % (ch, delta_us, duration_ms, limit),
            )
    return "", ""
