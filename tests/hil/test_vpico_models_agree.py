"""The two simulated boards agree: the same segments played on ``sim://`` (the firmware core in CPython, virtual
servos) and on the virtual Pico (the stock MicroPython image, its PWM slices read back) move the servo horns the
same way, within a stated tolerance.

Both run on virtual time from the moment every output is on; each plays the home segment and one pick-and-place
of disk 1. The boards differ where real boards do: their 10 ms control steps and 20 ms PWM frames have their own
phases (sim://'s drawn from its seed, the chip's set by when MicroPython enabled its slices), so a new pulse reaches
a servo up to a frame later on one board than on the other. The traces are therefore compared at the time shift
that fits them best, which must be under :data:`MAX_SHIFT_S` (a control step and a frame), and they must then agree
within :data:`TOLERANCE_US`: the horn's motion in half a PWM frame at the fastest speed the segments ask (the
frames' phases differ by up to half a frame after the best shift), plus 2 µs of whole-µs rounding and PWM counts.
"""

from __future__ import annotations

import bisect
from typing import Any

import pytest
from hanoibot.config import load_config
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.sim.servos import PWM_FRAME_S
from vpico_checks import vpico_url

pytestmark = [pytest.mark.slow, pytest.mark.vpico, pytest.mark.vpico_cover]

#: Largest time shift (s) allowed between the two boards' traces: a control step plus a PWM frame.
MAX_SHIFT_S = 0.03
#: Whole-µs rounding of the pulses and the PWM slices' counts (µs).
ROUNDING_US = 2.0
#: Time between two samples of a trace (the boards' control tick), in s.
TICK_S = 0.01

Trace = list[tuple[float, tuple[float, ...]]]


def horn_trace(url: str) -> tuple[Trace, float, list[tuple[str, str]]]:
    """Play the home segment and the segments of disk 1's first move on the board behind ``url``; returns the
    horns of every channel at each tick, in s since every output was on, the fastest pulse change the segments
    ask of any channel (µs/s), and what the world saw happen to the disk ((event, peg) of each pick and place)."""
    config = load_config()
    plan = make_plan(1)
    robot = Robot(url, config)
    robot.open()
    try:
        session = robot.session
        world: Any = session.port.world  # type: ignore[attr-defined]
        samples: Trace = []
        on_tick = world.on_tick

        def recording(t_s: float, horns_us: Any) -> None:
            on_tick(t_s, horns_us)
            if None not in horns_us:
                samples.append((t_s, tuple(float(h) for h in horns_us)))

        world.on_tick = recording
        session.configure(*robot.limits())
        clock = session.clock
        while not samples:  # the staggered switch-on: until every horn is driven
            session.poll()
            clock.sleep(TICK_S)
        start_s = samples[-1][0]
        home = robot.home_segment()
        segments = [home, *robot.segments_for(plan.start, plan.move_at(0), tuple(home.pulses_us))]
        fastest = 0.0
        before = samples[-1][1]
        for cmd_id, segment in enumerate(segments, start=1):
            session.send_move(cmd_id, list(segment.pulses_us), segment.duration_ms, ramp_ms=segment.ramp_ms, blend_ms=0)
            change = max(abs(a - b) for a, b in zip(segment.pulses_us, before, strict=True))
            fastest = max(fastest, change / (segment.duration_ms / 1000) * 2)  # a ramped segment peaks at 2x
            before = tuple(float(p) for p in segment.pulses_us)
            if cmd_id % 4 == 0:
                session.wait_done(cmd_id - 2, timeout_s=60)
        session.wait_done(len(segments), timeout_s=60)
        for _ in range(50):  # the horns settle (sim:// moves its board when the link reads)
            clock.sleep(TICK_S)
            session.poll()
        seen = [(e["event"], e.get("peg", "")) for e in world.events if e["event"] in ("pick", "place", "drop")]
        return [(t_s - start_s, horns) for t_s, horns in samples if t_s >= start_s], fastest, seen
    finally:
        robot.close()
        port = robot.session.port
        pico = getattr(port, "pico", None)
        if pico is not None:
            pico.close()


def horns_at(trace: Trace, t_s: float) -> tuple[float, ...]:
    """The horns of ``trace`` at ``t_s``, linearly between its samples (held at its ends)."""
    times = [t for t, _ in trace]
    i = bisect.bisect_right(times, t_s)
    if i == 0:
        return trace[0][1]
    if i == len(trace):
        return trace[-1][1]
    (t0, a), (t1, b) = trace[i - 1], trace[i]
    w = (t_s - t0) / (t1 - t0)
    return tuple(x + (y - x) * w for x, y in zip(a, b, strict=True))


def worst_gap_us(reference: Trace, other: Trace, shift_s: float) -> float:
    """The largest difference of any horn (µs) between ``reference`` and ``other`` shifted by ``shift_s``."""
    return max(
        abs(a - b) for t_s, horns in reference for a, b in zip(horns, horns_at(other, t_s + shift_s), strict=True)
    )


def test_the_same_segments_move_the_horns_alike_on_sim_and_on_the_virtual_pico() -> None:
    sim, fastest, sim_saw = horn_trace("sim://?board=A&seed=1")
    chip, _, chip_saw = horn_trace(vpico_url(board="A"))
    assert sim_saw == chip_saw == [("pick", "A"), ("place", "C")], (sim_saw, chip_saw)
    assert max(abs(a - b) for a, b in zip(sim[-1][1], chip[-1][1], strict=True)) <= ROUNDING_US  # at rest alike
    shifts_s = [k / 1000 for k in range(-round(MAX_SHIFT_S * 1000), round(MAX_SHIFT_S * 1000) + 1)]
    gaps = {shift_s: worst_gap_us(sim, chip, shift_s) for shift_s in shifts_s}
    best_s = min(gaps, key=gaps.__getitem__)
    tolerance_us = fastest * PWM_FRAME_S / 2 + ROUNDING_US
    moved_us = max(abs(a - b) for _t, horns in sim for a, b in zip(horns, sim[0][1], strict=True))
    assert moved_us > 300, "the segments hardly moved the arm: nothing was compared"
    assert gaps[best_s] <= tolerance_us, (
        f"the horns differ by {gaps[best_s]:.1f} µs at the best shift {best_s * 1000:.0f} ms "
        f"(tolerance {tolerance_us:.1f} µs)"
    )
