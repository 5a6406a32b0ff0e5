"""Millisecond tick arithmetic that wraps like MicroPython's ``time.ticks_ms()`` (at 2**30), with small ints only."""

TICKS_PERIOD = 1 << 30  # time.ticks_ms() wraps here on MicroPython; only differences are used
_TICKS_MAX = TICKS_PERIOD - 1  # a small int on MicroPython (TICKS_PERIOD itself is not: no arithmetic with it)
_TICKS_HALF = TICKS_PERIOD >> 1


def ticks_diff_ms(later: int, earlier: int) -> int:
    """Return ``later - earlier`` in ms for tick counts that wrap at 2**30 (like ``time.ticks_diff``),
    in -2**29 .. 2**29 - 1, without leaving MicroPython's small ints."""
    diff = (later - earlier) & _TICKS_MAX
    if diff & _TICKS_HALF:
        diff = diff - _TICKS_MAX - 1
    return diff


def ticks_add_ms(ticks: int, delta_ms: int) -> int:
    """Return the tick count ``delta_ms`` after ``ticks`` (wrapping at 2**30)."""
    return (ticks + delta_ms) & _TICKS_MAX
