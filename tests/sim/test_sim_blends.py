"""Blended motion on the simulated board: within joint and speed limits, out of collision, and stoppable mid-blend.

The segments of whole runs (classic towers of 3-8 disks and seeded shuffled starts) go through the real firmware
core into virtual servos that trail their commands and into the disk physics of hanoibot.sim.world, which judges
collisions. The servo outputs are read back from the servos' history.
"""

from __future__ import annotations

import random

import pytest
from hanoibot.config import load_config
from hanoibot.motion.segments import Segment, segments_for_moves
from hanoibot.planner import make_plan
from hanoibot.puzzle import State
from hanoibot.sim.board import SimBoard
from hanoibot.sim.world import SimWorld, make_world
from hanoifw import protocol

CONFIG = load_config()
#: Segments kept queued on the simulated board ahead of the one it runs.
WINDOW = 6
#: Simulated seconds between two host heartbeats.
PING_S = 0.05


class Bench:
    """A host that streams segments into a SimBoard with a world, PINGing as a real host does."""

    def __init__(self, world: SimWorld) -> None:
        self.world = world
        self.board = SimBoard(world=world, max_speed_us_per_s=world.max_speed_us_per_s)
        self.seq = 0
        self.sent = 0
        self.send("SYNC", ["t"])
        fields: list[int] = []
        speeds = [round(rate) + 1 for rate in CONFIG.max_speeds_us_s()]
        limits = zip(CONFIG.min_pulses_us(), CONFIG.max_pulses_us(), CONFIG.start_pulses_us(), speeds, strict=True)
        for low, high, start, speed in limits:
            fields += [low, high, start, speed]
        self.send("CONFIG", [*fields, CONFIG.gripper.grip_threshold_u16])

    def send(self, kind: str, fields: list[int | str]) -> None:
        self.board.feed(protocol.encode(kind, self.seq, 0, fields))
        self.board.step()
        if kind not in protocol.IMMEDIATE_KINDS or kind == "SYNC":
            self.seq += 1

    def stream(self, segments: list[Segment], *, until=None) -> None:  # type: ignore[no-untyped-def]
        """Send ``segments`` as MOVEs (profile included) and run until all are done, a fault, or ``until()``."""
        controller = self.board.controller
        while controller.last_done_cmd < len(segments) and not controller.faults:
            while self.sent < len(segments) and self.sent - controller.last_done_cmd < WINDOW:
                segment = segments[self.sent]
                self.sent += 1
                profile = [] if segment.ramp_ms is None else [segment.ramp_ms, segment.blend_ms]
                self.send("MOVE", [self.sent, segment.duration_ms, *segment.pulses_us, *profile])
            self.board.run_until(self.board.clock.now_s() + PING_S)
            self.board.feed(protocol.encode("PING", 0, 0, ["hb"]))
            if until is not None and until():
                return


def run_segments(start: State, moves: list) -> tuple[Bench, list[Segment]]:  # type: ignore[type-arg]
    world = make_world(CONFIG, start)
    bench = Bench(world)
    segments = [s for _, segs in segments_for_moves(CONFIG, start, moves) for s in segs]
    bench.stream(segments)
    return bench, segments


def assert_within_joint_limits_and_speeds(bench: Bench) -> None:
    """Every output pulse maps inside its joint's limits; between two outputs no joint beats its top speed
    (a pulse is whole µs, so each step may be 1 µs longer than the motion it stands for)."""
    last: dict[int, tuple[float, int]] = {}
    for t_s, channel, pulse_us in bench.board.servos.history:
        if pulse_us is None or channel == CONFIG.gripper_channel:
            continue
        servo = CONFIG.servos[channel]
        assert servo.min_deg - 0.1 <= servo.angle_deg(pulse_us) <= servo.max_deg + 0.1, (servo.name, pulse_us)
        if channel in last and t_s > last[channel][0]:
            t0_s, p0_us = last[channel]
            step_us = max(abs(pulse_us - p0_us) - 1, 0)
            speed = step_us * servo.calibration.max_deg_per_us(p0_us, pulse_us) / (t_s - t0_s)
            assert speed <= servo.max_speed_deg_s * 1.001, (servo.name, t_s, speed)
        last[channel] = (t_s, pulse_us)


def assert_clean(bench: Bench, goal: State) -> None:
    assert bench.world.faults() == [] and bench.board.controller.faults == []
    assert bench.world.state == goal
    assert not [e for e in bench.world.events if e["event"] == "missed_pick"]
    assert_within_joint_limits_and_speeds(bench)


def blends_in(segments: list[Segment]) -> int:
    return sum(1 for s in segments if s.blend_ms > 0)


@pytest.mark.parametrize("n_disks", [3, 4, 5, *(pytest.param(n, marks=pytest.mark.slow) for n in (6, 7, 8))])
def test_a_blended_classic_run_stays_in_limits_and_out_of_collision(n_disks: int) -> None:
    plan = make_plan(n_disks)
    bench, segments = run_segments(plan.start, list(plan))
    assert blends_in(segments) > len(segments) // 3, "the plan blends: the test would prove little otherwise"
    assert_clean(bench, plan.goal)


@pytest.mark.parametrize(
    "seed", [1, 2, 3, pytest.param(4, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow)]
)
def test_blended_runs_from_shuffled_starts_stay_in_limits_and_out_of_collision(seed: int) -> None:
    rng = random.Random(seed)
    n_disks = rng.randint(3, 6)
    stacks: list[list[int]] = [[], [], []]
    for disk in range(n_disks, 0, -1):  # a random regular start: each disk on a random peg, larger ones lower
        stacks[rng.randrange(3)].append(disk)
    start = State(stacks)
    plan = make_plan(n_disks, start=start)
    bench, _segments = run_segments(start, list(plan))
    assert_clean(bench, plan.goal)


def blending_now(bench: Bench) -> bool:
    """True while the firmware runs two segments at once (the second blending into the first)."""
    motion = bench.board.controller.motion
    return motion._overlap_ms > 0 and motion._elapsed_ms > motion._durations_ms[motion._head] - motion._overlap_ms


def queued_ms(bench: Bench) -> int:
    """Motion time left on the board's queue, in ms (blends not subtracted)."""
    motion = bench.board.controller.motion
    slots = [(motion._head + i) % motion.depth for i in range(motion._count)]
    return sum(motion._durations_ms[slot] for slot in slots) - motion._elapsed_ms


def stop_mid_blend(stop: str) -> tuple[Bench, list[int]]:
    """Run the 3-disk tower until a blend is under way, then ``stop`` the arm: ESTOP, or the host goes silent."""
    plan = make_plan(3)
    bench = Bench(make_world(CONFIG, plan.start))
    segments = [s for _, segs in segments_for_moves(CONFIG, plan.start, list(plan)) for s in segs]
    board, controller = bench.board, bench.board.controller
    next_ping_s = 0.0
    # Silence freezes the arm only if it is still moving when the watchdog (300 ms) runs out: wait for a blend
    # with more than that queued behind it.
    least_queued_ms = 400 if stop == "silence" else 0
    while not (blending_now(bench) and queued_ms(bench) > least_queued_ms):
        assert controller.last_done_cmd < len(segments), "the run ended without a blend"
        while bench.sent < len(segments) and bench.sent - controller.last_done_cmd < WINDOW:
            segment = segments[bench.sent]
            bench.sent += 1
            profile = [] if segment.ramp_ms is None else [segment.ramp_ms, segment.blend_ms]
            bench.send("MOVE", [bench.sent, segment.duration_ms, *segment.pulses_us, *profile])
        board.run_until(board.clock.now_s() + 0.002)
        if board.clock.now_s() >= next_ping_s:
            board.feed(protocol.encode("PING", 0, 0, ["hb"]))
            next_ping_s = board.clock.now_s() + PING_S
    if stop == "estop":
        bench.send("ESTOP", [])
    else:  # the link is lost: no more frames; the watchdog freezes the arm
        board.run_until(board.clock.now_s() + 0.5)
    frozen = list(controller.pulses_us)
    board.run_until(board.clock.now_s() + 1.0)
    return bench, frozen


@pytest.mark.parametrize(("stop", "fault"), [("estop", "ESTOP"), ("silence", "HOST_LOST")])
def test_a_fault_mid_blend_stops_the_arm_where_it_is(stop: str, fault: str) -> None:
    bench, frozen = stop_mid_blend(stop)
    controller = bench.board.controller
    assert fault in controller.faults
    assert list(controller.pulses_us) == frozen, "the arm moved on after the stop"
    assert not controller.motion.is_busy or fault == "HOST_LOST"
    assert [f for f in bench.world.faults() if f != fault] == []
