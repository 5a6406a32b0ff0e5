"""The blend checker (motion/blends.py) and the simulated world follow the servos the same way.

Every move of a whole tower is streamed, segment by segment as the board's queue frees, into a SimBoard whose
world's servos are the ones the checker assumes; at every control tick the world's horns must be where
:func:`~hanoibot.motion.blends.horn_trace` says they are. The moves include every kind of overlap the planner uses
(blends inside a chain and hand-overs between chains), so a checker whose servo model, PWM frames, control tick or
command replay differed from the world's would fail here.
"""

from __future__ import annotations

import pytest
from hanoibot.config import load_config
from hanoibot.motion.blends import CONTROL_TICK_MS, Timed, horn_trace, servo_traits, start_times_ms
from hanoibot.motion.segments import Segment, segments_for_moves
from hanoibot.motion.servo_model import ServoTraits
from hanoibot.planner import make_plan
from hanoibot.puzzle import State
from hanoibot.sim.board import SimBoard
from hanoibot.sim.world import make_world
from hanoifw import protocol

CONFIG = load_config()
#: Simulated time (s) from CONFIG until every output is on; an even number of ticks, so that each move starts where
#: the checker's PWM frames start (half a tick after the move's first tick).
ENABLED_S = 2.0


class Board:
    """A SimBoard with a world, configured at the pose ``start_us`` and fed segments as its queue frees."""

    def __init__(self, state: State, start_us: tuple[int, ...], traits: list[ServoTraits]) -> None:
        self.world = make_world(CONFIG, state)
        self.board = SimBoard(world=self.world, max_speed_us_per_s=self.world.max_speed_us_per_s)
        self.board.servos.traits = list(traits)
        self.seq = 0
        self.send("SYNC", ["t"])
        fields: list[int] = []
        speeds = [round(rate) + 1 for rate in CONFIG.max_speeds_us_s()]
        limits = zip(CONFIG.min_pulses_us(), CONFIG.max_pulses_us(), start_us, speeds, strict=True)
        for low, high, pulse, speed in limits:
            fields += [low, high, pulse, speed]
        self.send("CONFIG", [*fields, CONFIG.gripper.grip_threshold_u16])
        self.board.run_until(ENABLED_S)

    def send(self, kind: str, fields: list[int | str]) -> None:
        self.board.feed(protocol.encode(kind, self.seq, 0, fields))
        self.board.step()
        if kind not in protocol.IMMEDIATE_KINDS or kind == "SYNC":
            self.seq += 1

    def horns_per_tick(self, segments: list[Segment], ticks: int) -> list[list[float]]:
        """The world's horns (µs) at each of ``ticks`` control ticks from now, while ``segments`` run."""
        sent = 0
        out: list[list[float]] = []
        t0_s = self.board.clock.now_s()
        for k in range(ticks):
            self.board.run_until(t0_s + k * CONTROL_TICK_MS / 1000)
            while sent < len(segments) and self.board.controller.motion.free_slots:
                segment = segments[sent]
                sent += 1
                profile = [] if segment.ramp_ms is None else [segment.ramp_ms, segment.blend_ms]
                self.send("MOVE", [sent, segment.duration_ms, *segment.pulses_us, *profile])
            self.board.feed(protocol.encode("PING", 0, 0, ["hb"]))
            horns = self.board.servos.positions_us()
            assert None not in horns
            out.append([h for h in horns if h is not None])
        return out


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
        world = Board(state, start_us, traits).horns_per_tick(segments, len(expected))
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
    world = Board(plan.start, start_us, sagging).horns_per_tick(segments, len(expected))
    assert max(abs(a - b) for c, w in zip(expected, world, strict=True) for a, b in zip(c, w, strict=True)) > 1.0
