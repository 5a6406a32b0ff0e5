"""Field parsing and validation of the CONFIG and MOVE commands.

Each parser returns ``(code, text, value)``: ``value`` is None when the command is refused, and then ``code`` is
an ERROR code of :mod:`hanoifw.protocol` and ``text`` says which value is bad and what was expected.
"""

from hanoifw import protocol as p


def parse_config(fields: "list[str]", channels: int, hard_min_us: int, hard_max_us: int) -> tuple:
    """Parse CONFIG fields ``min_us,max_us,start_us`` per channel (3 x ``channels`` numbers).

    Each channel needs ``hard_min_us <= min_us < max_us <= hard_max_us`` and ``min_us <= start_us <= max_us``.
    The value is ``(mins_us, maxs_us, starts_us)``.
    """
    if len(fields) != 3 * channels:
        return p.E_BAD_CHANNELS, "CONFIG has %d values: expected 3 x %d channels" % (len(fields), channels), None
    mins = []
    maxs = []
    starts = []
    for ch in range(channels):
        values = []
        for text in fields[3 * ch : 3 * ch + 3]:
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
                "channel %d min %d max %d start %d: expected min < max, start within"
                % (
                    ch,
                    low,
                    high,
                    start,
                ),
                None,
            )
        mins.append(low)
        maxs.append(high)
        starts.append(start)
    return "", "", (mins, maxs, starts)


def parse_move(
    fields: "list[str]", channels: int, mins_us: "list[int]", maxs_us: "list[int]", max_duration_ms: int
) -> tuple:
    """Parse MOVE fields ``cmd_id,duration_ms,pulse_us...`` (one pulse per channel) against the limits.

    ``duration_ms`` must be 1..``max_duration_ms``; a pulse outside ``mins_us..maxs_us`` of its channel is
    refused (never clamped). The value is ``(duration_ms, targets_us)``.
    """
    if len(fields) != 2 + channels:
        return p.E_BAD_CHANNELS, "MOVE has %d pulses: expected %d" % (len(fields) - 2, channels), None
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
                "channel %d pulse %s us: expected %d..%d"
                % (
                    ch,
                    text[:8],
                    mins_us[ch],
                    maxs_us[ch],
                ),
                None,
            )
        targets.append(pulse_us)
    return "", "", (duration_ms, targets)
