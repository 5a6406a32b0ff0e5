"""The blend checker (motion/blends.py) and the simulated world follow the servos the same way.

Every move of a whole tower is streamed, segment by segment as the board's queue frees, into a SimBoard whose
world's servos are the ones the checker assumes; at every control tick the world's horns must be where
:func:`~hanoibot.motion.blends.horn_trace` says they are. The moves include every kind of overlap the planner uses
(blends inside a chain and hand-overs between chains), so a checker whose servo model, PWM frames, control tick or
command replay differed from the world's would fail here.
"""

from __future__ import annotations

import pytest
from board_bench import SegmentBoard
from hanoibot.config import load_config
from hanoibot.motion.blends import CONTROL_TICK_MS, Timed, horn_trace, servo_traits, start_times_ms
from hanoibot.motion.segments import segments_for_moves
from hanoibot.motion.servo_model import ServoTraits
from hanoibot.planner import make_plan

CONFIG = load_config()


def worst_disagreement_us(n_disks: int, traits: list[ServoTraits]) -> tuple[float, int]:
    """The largest difference (µs, any channel, any tick) between the checker's horns and the world's over a
    tower of ``n_disks``, and how many segments overlapped their predecessor."""
    plan = make_plan(n_disks)
    state, start_us = plan.start, CONFIG.start_pulses_us()
    worst_us, overlaps = 0.0, 0
    for move, segments in segments_for_moves(CONFIG, plan.start, list(plan)):
        timed = [Timed(s.pulses_us, s.duration_ms, s.ramp_ms, s.blend_ms) for s in segments]
        starts = start_times_ms(timed)
        overlaps += sum(1 for k in range(1, len(timed)) if starts[k] < starts[k - 1] + timed[k - 1].duration_ms)
        expected = [horns for _t, _a, horns in horn_trace(start_us, timed, traits, step_ms=CONTROL_TICK_MS)]
        world = SegmentBoard(state, start_us, traits).horns_per_tick(segments, len(expected))
        for checker_us, world_us in zip(expected, world, strict=True):
            worst_us = max(worst_us, *(abs(a - b) for a, b in zip(checker_us, world_us, strict=True)))
        state, start_us = state.apply(move), segments[-1].pulses_us
    return worst_us, overlaps


@pytest.mark.parametrize(
    "traits",
    [
        servo_traits(CONFIG),
        # A hostile servo set: direction-dependent speed sag (saturating earlier), deadband and backlash.
        [
            t._replace(speed_factor_up=0.95, speed_factor_down=0.97, deadband_us=1.0, backlash_us=2.0)
            for t in servo_traits(CONFIG)
        ],
    ],
    ids=["nominal", "hostile"],
)
def test_the_checker_sees_the_horns_where_the_world_has_them(traits: list[ServoTraits]) -> None:
    worst_us, overlaps = worst_disagreement_us(3, traits)
    assert overlaps >= 7, "the moves overlap segments (blends and hand-overs): the test would prove little otherwise"
    assert worst_us < 1e-6


def test_a_world_with_other_servos_than_the_checker_assumes_is_seen_to_differ() -> None:
    # The comparison can fail: a world whose servos sag 10 % while the checker assumes none is told apart.
    sagging = [t._replace(speed_factor_up=0.9, speed_factor_down=0.9) for t in servo_traits(CONFIG)]
    plan = make_plan(2)
    _move, segments = next(iter(segments_for_moves(CONFIG, plan.start, list(plan))))
    timed = [Timed(s.pulses_us, s.duration_ms, s.ramp_ms, s.blend_ms) for s in segments]
    start_us = CONFIG.start_pulses_us()
    expected = [h for _t, _a, h in horn_trace(start_us, timed, servo_traits(CONFIG), step_ms=CONTROL_TICK_MS)]
    world = SegmentBoard(plan.start, start_us, sagging).horns_per_tick(segments, len(expected))
    assert max(abs(a - b) for c, w in zip(expected, world, strict=True) for a, b in zip(c, w, strict=True)) > 1.0
