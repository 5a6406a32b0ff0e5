"""Oracle for the firmware's minimum-jerk profile, computed from its formula alone. Runs under CPython and
MicroPython alike (the firmware tests import it on both)."""


def min_jerk_peak_ratio(steps=2000):
    """The steepest slope of s(u) = 10u^3 - 15u^4 + 6u^5 on [0, 1] by finite differences: the profile's peak speed
    over its average (1.875 up to the step's error)."""
    best = 0.0
    for i in range(steps):
        u0, u1 = i / steps, (i + 1) / steps
        s0 = 10 * u0**3 - 15 * u0**4 + 6 * u0**5
        s1 = 10 * u1**3 - 15 * u1**4 + 6 * u1**5
        best = max(best, (s1 - s0) * steps)
    return best
