"""CONFIG/MOVE field validation tests (also run under MicroPython)."""

from fwfakes import received
from hanoifw import protocol as p
from hanoifw.commands import MoveCommand, check_speeds, parse_config
from min_jerk import min_jerk_peak_ratio


def config(fields):
    return received(p.CONFIG, fields)


def parse_move(fields, mins, maxs, max_duration_ms):
    """(code, text, (duration_ms, targets_us, ramp_ms, blend_ms) or None) of a MOVE frame with ``fields``."""
    move = MoveCommand(len(mins))
    if not move.parse(received(p.MOVE, fields), mins, maxs, max_duration_ms):
        return move.code, move.text, None
    return "", "", (move.duration_ms, list(move.targets_us), move.ramp_ms, move.blend_ms)


def test_config_parses_per_channel_limits_speeds_and_the_grip_threshold():
    fields = ["1000", "2000", "1500", "3000", "600", "2400", "600", "6660", "31000"]
    code, text, value = parse_config(config(fields), 2, 500, 2500)
    assert (code, text) == ("", "") and value == ([1000, 600], [2000, 2400], [1500, 600], [3000, 6660], 31000)


def test_config_names_the_bad_channel():
    cases = (
        (["1000", "2000"], p.E_BAD_CHANNELS, "2 values"),
        (["1000", "2000", "1500", "9", "499", "2000", "1500", "9", "0"], p.E_LIMIT, "channel 1 value 499"),
        (["1000", "2000", "1500", "9", "1000", "2000", "abc", "9", "0"], p.E_LIMIT, "channel 1 value abc"),
        (["2000", "1000", "1500", "9", "1000", "2000", "1500", "9", "0"], p.E_LIMIT, "channel 0 min 2000 max 1000"),
        (["1000", "2000", "999", "9", "1000", "2000", "1500", "9", "0"], p.E_LIMIT, "start 999"),
        (["1000", "2000", "1500", "0", "1000", "2000", "1500", "9", "0"], p.E_LIMIT, "channel 0 speed 0"),
        (["1000", "2000", "1500", "9", "1000", "2000", "1500", "60001", "0"], p.E_LIMIT, "channel 1 speed 60001"),
        (["1000", "2000", "1500", "9", "1000", "2000", "1500", "9", "65536"], p.E_BAD_FRAME, "grip threshold 65536"),
    )
    for fields, code, needle in cases:
        got_code, text, value = parse_config(config(fields), 2, 500, 2500)
        assert value is None and got_code == code and needle in text, (fields, text)


def test_move_checks_duration_and_every_pulse_against_its_channel():
    mins = [1000, 1100]
    maxs = [2000, 1900]
    assert parse_move(["1", "300", "1000", "1900"], mins, maxs, 60000) == ("", "", (300, [1000, 1900], -1, 0))
    cases = (
        (["1", "300", "1000"], p.E_BAD_CHANNELS, "1 pulses"),
        (["1", "0", "1000", "1500"], p.E_BAD_DURATION, "duration 0"),
        (["1", "60001", "1000", "1500"], p.E_BAD_DURATION, "60001"),
        (["1", "300", "1000", "1901"], p.E_LIMIT, "channel 1 pulse 1901 us: expected 1100..1900"),
        (["1", "300", "999", "1500"], p.E_LIMIT, "channel 0 pulse 999"),
        (["1", "300", "1500", "-5"], p.E_LIMIT, "channel 1 pulse -5"),
    )
    for fields, code, needle in cases:
        got_code, text, value = parse_move(fields, mins, maxs, 60000)
        assert value is None and got_code == code and needle in text, (fields, text)


def test_speed_check_uses_the_peak_speed_of_the_minimum_jerk_profile():
    speeds = [1000, 2000]  # us/s
    ratio = min_jerk_peak_ratio()
    fastest_ms = int(500 * ratio + 1)  # 500 us whose peak stays at 1000 us/s
    assert check_speeds([1500, 1500], [2000, 1500], fastest_ms, speeds) is None
    code, text = check_speeds([1500, 1500], [2000, 1500], 500, speeds)  # average 1000 us/s: the peak is 1875
    assert code == p.E_TOO_FAST and "channel 0" in text and "1000 us/s" in text, text
    code, text = check_speeds([1500, 1500], [1500, 900], 299, speeds)  # 600 us down in 0.299 s
    assert code == p.E_TOO_FAST and "channel 1" in text
    assert check_speeds([0, 1500], [2500, 1500], 1, speeds) is None  # not output yet: enabled first
    assert check_speeds([500, 500], [2500, 2500], 60000, [63, 63]) is None  # 2000 us in 60 s, no overflow
    assert check_speeds([500, 500], [2500, 2500], 60000, [62, 62]) is not None  # peak 62.5 us/s


def test_speed_check_of_a_trapezoid_uses_its_cruise_speed():
    # 300 us in 400 ms with 100 ms ramps: cruise = 300 us / (400 - 100) ms = 1000 us/s
    assert check_speeds([1500], [1800], 400, [1000], 100) is None
    assert check_speeds([1500], [1800], 400, [999], 100) is not None
    assert check_speeds([1500], [1800], 300, [1000], 0) is None  # constant speed: the average


def test_move_with_a_profile_takes_ramp_and_blend_within_their_bounds():
    mins, maxs = [1000, 1100], [2000, 1900]
    assert parse_move(["1", "300", "1000", "1900", "150", "40"], mins, maxs, 60000) == (
        "",
        "",
        (300, [1000, 1900], 150, 40),
    )
    cases = (
        (["1", "300", "1000", "1500", "151", "0"], "ramp 151 ms: expected 0..150"),
        (["1", "300", "1000", "1500", "-1", "0"], "ramp -1 ms"),
        (["1", "300", "1000", "1500", "100", "101"], "blend 101 ms: expected 0..100"),
        (["1", "300", "1000", "1500", "100", "x"], "blend x ms"),
    )
    for fields, needle in cases:
        code, text, value = parse_move(fields, mins, maxs, 60000)
        assert value is None and code == p.E_BAD_DURATION and needle in text, (fields, text)
    code, _, value = parse_move(["1", "300", "1000", "1500", "100"], mins, maxs, 60000)
    assert value is None and code == p.E_BAD_CHANNELS
