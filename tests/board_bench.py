"""A SimBoard with a world, configured at a given pose and fed a move's segments as its queue frees, tick by tick.

Shared by the sim tests that compare the blend checker with the world and that stop the arm mid-move.
"""

from __future__ import annotations

from collections.abc import Sequence

from hanoibot.config import load_config
from hanoibot.motion.blends import CONTROL_TICK_MS
from hanoibot.motion.segments import Segment
from hanoibot.motion.servo_model import ServoTraits
from hanoibot.puzzle import State
from hanoibot.sim.board import SimBoard
from hanoibot.sim.world import make_world
from hanoifw import protocol

CONFIG = load_config()
#: Simulated time (s) from CONFIG until every output is on; an even number of ticks, so that a move starts where
#: the checker's PWM frames start (half a tick after the move's first tick).
ENABLED_S = 2.0


class SegmentBoard:
    """A SimBoard with a world of ``state``, configured at the pose ``start_us``; ``traits`` replace its servos."""

    def __init__(self, state: State, start_us: Sequence[int], traits: Sequence[ServoTraits] | None = None) -> None:
        self.world = make_world(CONFIG, state)
        self.board = SimBoard(world=self.world, max_speed_us_per_s=self.world.max_speed_us_per_s)
        if traits is not None:
            self.board.servos.traits = list(traits)
        self.seq = 0
        self.sent = 0
        self.send("SYNC", ["t"])
        fields: list[int] = []
        speeds = [round(rate) + 1 for rate in CONFIG.max_speeds_us_s()]
        limits = zip(CONFIG.min_pulses_us(), CONFIG.max_pulses_us(), start_us, speeds, strict=True)
        for low, high, pulse, speed in limits:
            fields += [low, high, pulse, speed]
        self.send("CONFIG", [*fields, CONFIG.gripper.grip_threshold_u16])
        self.board.run_until(ENABLED_S)

    def send(self, kind: str, fields: list[int | str]) -> None:
        """One frame to the board, handled at once."""
        self.board.feed(protocol.encode(kind, self.seq, 0, fields))
        self.board.step()
        if kind not in protocol.IMMEDIATE_KINDS or kind == "SYNC":
            self.seq += 1

    def tick(self, segments: Sequence[Segment]) -> None:
        """Queue what fits of ``segments`` and send a heartbeat (the host's part of one control tick)."""
        while self.sent < len(segments) and self.board.controller.motion.free_slots:
            segment = segments[self.sent]
            self.sent += 1
            profile = [] if segment.ramp_ms is None else [segment.ramp_ms, segment.blend_ms]
            self.send("MOVE", [self.sent, segment.duration_ms, *segment.pulses_us, *profile])
        self.board.feed(protocol.encode("PING", 0, 0, ["hb"]))

    def horns_per_tick(self, segments: Sequence[Segment], ticks: int) -> list[list[float]]:
        """The world's horns (µs) at each of ``ticks`` control ticks from now, while ``segments`` run."""
        out: list[list[float]] = []
        t0_s = self.board.clock.now_s()
        for k in range(ticks):
            self.board.run_until(t0_s + k * CONTROL_TICK_MS / 1000)
            self.tick(segments)
            horns = self.board.servos.positions_us()
            out.append([h for h in horns if h is not None])
            assert len(out[-1]) == len(horns)
        return out

    def play(self, segments: Sequence[Segment], *, until_done: int, then_ms: int) -> None:
        """Run ``segments`` until the first ``until_done`` are DONE, then ``then_ms`` ms more."""
        controller = self.board.controller
        while controller.last_done_cmd < until_done:
            assert not controller.faults, controller.faults
            self.board.run_until(self.board.clock.now_s() + CONTROL_TICK_MS / 1000)
            self.tick(segments)
        end_s = self.board.clock.now_s() + then_ms / 1000
        while self.board.clock.now_s() < end_s - 1e-9:
            self.board.run_until(self.board.clock.now_s() + CONTROL_TICK_MS / 1000)
            self.tick(segments)
