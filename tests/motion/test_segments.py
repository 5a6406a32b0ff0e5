"""Tests of hanoibot.motion.segments: every segment within joint and speed limits, heights from the stacks.

The checks replay the segments through the firmware's own interpolator (profiles and blends included, see
tests/motion_replay.py) and look at the joint speeds and the grip point.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pytest
from hanoibot.config import RobotConfig, load_config
from hanoibot.errors import ConfigError, IllegalMove
from hanoibot.motion.kinematics import Point
from hanoibot.motion.margins import place_gap_mm
from hanoibot.motion.paths import pulses_at
from hanoibot.motion.phases import PHASES, MotionPhase
from hanoibot.motion.segment import Segment, home_segment
from hanoibot.motion.segments import segments_for_move, segments_for_moves
from hanoibot.puzzle import Move, State
from hypothesis import given, settings
from hypothesis import strategies as st
from motion_replay import firmware_trace
from robot_configs import config_with, four_pegs

CONFIG = load_config()
#: Rounding a pulse to whole µs moves the grip point by up to about this much.
ROUNDING_MM = 0.6


FOUR_PEGS = config_with(four_pegs)


def assert_within_limits(config: RobotConfig, from_us: Sequence[int], segments: list[Segment]) -> None:
    """Every pulse inside its range, every joint inside its limits and below its top speed, at every firmware tick
    (10 ms; a commanded pulse is rounded to whole µs, so each step may be 1 µs longer than the motion)."""
    lows, highs = config.min_pulses_us(), config.max_pulses_us()
    for segment in segments:
        assert len(segment.pulses_us) == config.channels
        assert all(isinstance(p, int) for p in segment.pulses_us)
        assert all(lo <= p <= hi for lo, p, hi in zip(lows, segment.pulses_us, highs, strict=True)), segment
    trace = firmware_trace(from_us, segments, step_ms=10)
    for (t0, p0, _), (t1, p1, k) in itertools.pairwise(trace):
        config.chain.check_limits(config.joint_angles(p1), f"tick at {t1} of segment {k}")
        for ch, servo in enumerate(config.servos):
            step_us = max(abs(p1[ch] - p0[ch]) - 1, 0)
            travel_deg = step_us * servo.calibration.max_deg_per_us(p0[ch], p1[ch])
            assert travel_deg / (t1 - t0) <= servo.max_speed_deg_s * 1.001, (segments[k], servo.name)
        grip = config.gripper_channel
        gripper_deg_s = max(abs(p1[grip] - p0[grip]) - 1, 0) / config.gripper.us_per_deg / (t1 - t0)
        assert gripper_deg_s <= config.gripper.max_speed_deg_s * 1.001


def collapse(phases: list[str]) -> list[str]:
    return [p for i, p in enumerate(phases) if i == 0 or phases[i - 1] != p]


def path_of(config: RobotConfig, from_us: Sequence[int], segments: list[Segment], phases: set[str]) -> list[Point]:
    """Grip points, every firmware millisecond, while a segment of ``phases`` executes."""
    return [config.grip_point(p) for _, p, k in firmware_trace(from_us, segments) if segments[k].phase in phases]


def phase_end(config: RobotConfig, segments: list[Segment], phase: str) -> Point:
    return config.grip_point([s for s in segments if s.phase == phase][-1].pulses_us)


@st.composite
def board_moves(draw: st.DrawFn) -> tuple[RobotConfig, State, Move, tuple[int, ...]]:
    """A board, a regular state of 1..8 disks, a legal classic move from it and the arm's current pose."""
    config = draw(st.sampled_from([CONFIG, FOUR_PEGS]))
    pegs = len(config.board.pegs)
    n_disks = draw(st.integers(min_value=1, max_value=config.board.disk_count))
    state = State.from_pegs(draw(st.lists(st.integers(0, pegs - 1), min_size=n_disks, max_size=n_disks)), pegs)
    move = draw(st.sampled_from(state.legal_moves()))
    where = draw(st.sampled_from(["start", *range(pegs)]))
    if where == "start":
        pose = config.start_pulses_us()
    else:
        peg = config.board.pegs[int(where)]
        pose = pulses_at(config, Point(peg.x_mm, peg.y_mm, peg.height_mm + 8.0), config.gripper.open_us)
    return config, state, move, pose


@pytest.mark.slow  # make test / CI only: too long for the make check loop
@settings(max_examples=60)
@given(board_moves())
def test_every_segment_respects_joint_limits_speed_limits_and_clearances(
    case: tuple[RobotConfig, State, Move, tuple[int, ...]],
) -> None:
    config, state, move, pose = case
    segments = segments_for_move(config, state, move, from_pulses_us=pose)
    assert collapse([s.phase for s in segments]) == list(PHASES)
    assert_within_limits(config, pose, segments)
    board, tolerance_mm = config.board, config.motion.line_tolerance_mm
    src, dst = board.peg(move.src), board.peg(move.dst)

    # vertical phases stay on the peg axis up to clearance_mm / 2 above its tip (from there on the next phase may
    # begin: the held disk's bottom, or the empty fingertips, are clear of the tip)
    free_mm = config.motion.clearance_mm / 2
    for peg, phases in ((src, {"descend", "lift"}), (dst, {"lower", "retreat"})):
        for phase in phases:
            low_mm = board.disk_thickness_mm / 2 if phase in ("lift", "lower") else 0.0
            for point in path_of(config, pose, segments, {phase}):
                if point.z_mm - low_mm < peg.height_mm + free_mm:
                    assert peg.distance_mm(point.x_mm, point.y_mm) <= tolerance_mm + ROUNDING_MM, (phase, point)

    # the held disk never passes through a peg: below a peg's tip it is threaded on that peg
    radius_mm = board.disk_diameter_mm(move.disk) / 2
    for point in path_of(config, pose, segments, {"lift", "travel", "lower"}):
        bottom_mm = point.z_mm - board.disk_thickness_mm / 2
        for peg in board.pegs:
            apart_mm = peg.distance_mm(point.x_mm, point.y_mm)
            if apart_mm < radius_mm + board.peg_diameter_mm / 2 and bottom_mm < peg.height_mm:
                assert apart_mm <= tolerance_mm + ROUNDING_MM, (peg.name, point)

    # the empty open fingers never come down on a peg tip
    for point in path_of(config, pose, segments, {"approach", "retreat"}):
        for peg in board.pegs:
            apart_mm = peg.distance_mm(point.x_mm, point.y_mm)
            if apart_mm < config.gripper.open_width_mm / 2 + board.peg_diameter_mm / 2:
                assert point.z_mm >= peg.height_mm or apart_mm <= tolerance_mm + ROUNDING_MM, (peg.name, point)


@settings(max_examples=30)
@given(board_moves())
def test_grip_and_place_heights_come_from_the_actual_stacks(
    case: tuple[RobotConfig, State, Move, tuple[int, ...]],
) -> None:
    config, state, move, pose = case
    segments = segments_for_move(config, state, move, from_pulses_us=pose)
    thickness_mm = config.board.disk_thickness_mm
    # the grip point sits on the moved disk's mid-plane: top of the source stack, then top of the destination, with
    # the place gap over it (the arm's and the disks' height errors never press the disk into the stack)
    grip = phase_end(config, segments, "descend")
    assert grip.z_mm == pytest.approx((state.height(move.src) - 0.5) * thickness_mm, abs=ROUNDING_MM)
    place = phase_end(config, segments, "lower")
    expected_mm = (state.height(move.dst) + 0.5) * thickness_mm + place_gap_mm(config)
    assert place.z_mm == pytest.approx(expected_mm, abs=ROUNDING_MM)
    # lifted until the disk's bottom clears the tips of the pegs it leaves and reaches
    lifted = phase_end(config, segments, "lift")
    tips_mm = max(config.board.peg(move.src).height_mm, config.board.peg(move.dst).height_mm)
    assert lifted.z_mm - thickness_mm / 2 >= tips_mm + config.motion.clearance_mm - ROUNDING_MM


def test_a_taller_stack_gives_a_higher_grip_point() -> None:
    low = State.parse("A:3/B:2,1/C:", pegs=3)  # disk 3 alone on A
    high = State.parse("A:5,4,3/B:2,1/C:", pegs=3)  # disk 3 on top of two more
    z_low = phase_end(CONFIG, segments_for_move(CONFIG, low, Move(3, 0, 2)), "descend").z_mm
    z_high = phase_end(CONFIG, segments_for_move(CONFIG, high, Move(3, 0, 2)), "descend").z_mm
    assert z_high - z_low == pytest.approx(2 * CONFIG.board.disk_thickness_mm, abs=2 * ROUNDING_MM)


def test_lift_height_follows_a_taller_peg_on_the_way() -> None:
    def taller_b(document: Any) -> None:
        document["board"]["pegs"][1]["height_mm"] = 70.0
        document["gripper"]["finger_length_mm"] = 75.0

    tall_b = config_with(taller_b)
    # disk 3 (32 mm) swings from A to C right over peg B, so B's taller tip sets the lift height
    state = State.parse("A:3/B:2,1/C:", pegs=3)
    over_b = phase_end(tall_b, segments_for_move(tall_b, state, Move(3, 0, 2)), "lift").z_mm
    plain = phase_end(CONFIG, segments_for_move(CONFIG, state, Move(3, 0, 2)), "lift").z_mm
    assert over_b - plain == pytest.approx(70.0 - 55.0, abs=2 * ROUNDING_MM)


def test_durations_come_from_distances_not_fixed_delays() -> None:
    state = State.tower(3)
    near = segments_for_move(CONFIG, state, Move(1, 0, 1))
    far = segments_for_move(CONFIG, state, Move(1, 0, 2))
    travel = {
        name: sum(s.duration_ms for s in segs if s.phase == "travel") for name, segs in (("near", near), ("far", far))
    }
    assert travel["far"] > travel["near"]
    assert len({s.duration_ms for s in far}) > 3


@pytest.mark.parametrize("settle_ms", [0, 10, 40, 150])
def test_the_grip_ends_holding_still_for_the_settle_time_and_a_pwm_frame_and_the_release_does_not(
    settle_ms: int,
) -> None:
    # The gripper servo may take the closing pulse one 20 ms PWM frame late (a board's PWM latches per frame): the
    # grip sensor, read when the hold is DONE, must not be asked before the fingers can have shut. On the virtual
    # Pico, with only the settle time, picks read "empty" and were tried again.
    def change(document: Any) -> None:
        document["motion"]["settle_ms"] = settle_ms

    config = config_with(change)
    segments = segments_for_move(config, State.tower(3), Move(1, 0, 2))
    before = [tuple(config.start_pulses_us()), *(s.pulses_us for s in segments)]
    holds = [(i, s.phase, s.duration_ms) for i, s in enumerate(segments) if s.pulses_us == before[i]]
    settle_hold_ms = max(settle_ms, 20)  # at least two 10 ms firmware ticks
    grip_hold_ms = settle_hold_ms + 20  # and one PWM frame
    assert all(ms == settle_hold_ms for _, phase, ms in holds if phase != "grip")
    assert all(ms == grip_hold_ms for _, phase, ms in holds if phase == "grip") and (holds == []) == (settle_ms == 0)
    grip = [i for i, s in enumerate(segments) if s.phase == "grip"]
    assert [s.duration_ms for s in segments[grip[0] : grip[-1] + 1]][1:] == ([grip_hold_ms] if settle_ms else [])
    assert segments[grip[-1] + 1].phase == "lift" and segments[grip[-1] + 1].blend_ms == 0
    release = [s for s in segments if s.phase == "release"]
    assert len(release) == 1 and release[0].pulses_us[:4] == before[segments.index(release[0])][:4]


def test_approach_starts_from_the_current_pose() -> None:
    state = State.tower(3)
    src = CONFIG.board.peg(0)
    above_src = pulses_at(CONFIG, Point(src.x_mm, src.y_mm, src.height_mm + 8.0), CONFIG.gripper.open_us)
    from_home = segments_for_move(CONFIG, state, Move(1, 0, 2))
    from_above = segments_for_move(CONFIG, state, Move(1, 0, 2), from_pulses_us=above_src)
    approach_ms = [sum(s.duration_ms for s in segs if s.phase == "approach") for segs in (from_home, from_above)]
    assert approach_ms[1] < approach_ms[0]
    assert_within_limits(CONFIG, above_src, from_above)


def test_approach_from_a_low_pose_rises_before_moving_sideways() -> None:
    state = State.parse("A:/B:3,2,1/C:", pegs=3)
    # the arm is down at the bottom of empty peg A; the next disk waits on B
    peg_a = CONFIG.board.peg(0)
    low = pulses_at(CONFIG, Point(peg_a.x_mm, peg_a.y_mm, 3.0), CONFIG.gripper.open_us)
    segments = segments_for_move(CONFIG, state, Move(1, 1, 2), from_pulses_us=low)
    first = CONFIG.grip_point(segments[0].pulses_us)
    assert peg_a.distance_mm(first.x_mm, first.y_mm) <= CONFIG.motion.line_tolerance_mm + ROUNDING_MM
    assert first.z_mm > 3.0 + 10


def test_vertical_moves_are_split_where_one_joint_space_piece_would_wander() -> None:
    config, state, move = CONFIG, State.tower(1), Move(1, 0, 2)
    peg = config.board.peg(0)
    top_us = pulses_at(config, Point(peg.x_mm, peg.y_mm, peg.height_mm + 8.0), config.gripper.open_us)
    bottom_us = pulses_at(config, Point(peg.x_mm, peg.y_mm, config.board.grip_z_mm(0)), config.gripper.open_us)
    single = Segment(bottom_us, 1000, "descend")
    wander_mm = max(peg.distance_mm(p.x_mm, p.y_mm) for p in path_of(config, top_us, [single], {"descend"}))
    assert wander_mm > config.motion.line_tolerance_mm  # one piece would sweep sideways past the tolerance
    segments = segments_for_move(config, state, move, from_pulses_us=top_us)
    assert sum(s.phase == "descend" for s in segments) > 1
    split_mm = max(peg.distance_mm(p.x_mm, p.y_mm) for p in path_of(config, top_us, segments, {"descend"}))
    assert split_mm <= config.motion.line_tolerance_mm + ROUNDING_MM


def test_moves_chain_from_one_retreat_to_the_next_approach() -> None:
    state = State.tower(2)
    moves = [Move(1, 0, 1), Move(2, 0, 2), Move(1, 1, 2)]
    chained = list(segments_for_moves(CONFIG, state, moves))
    second = segments_for_move(CONFIG, state.apply(moves[0]), moves[1], from_pulses_us=chained[0][1][-1].pulses_us)
    assert [(s.pulses_us, s.phase) for s in chained[1][1]] == [(s.pulses_us, s.phase) for s in second]
    grip = [s.phase for s in second].index(MotionPhase.GRIP)
    assert chained[1][1][grip + 1 :] == second[grip + 1 :], "only the approach and descent may be timed anew"
    assert [m for m, _ in chained] == moves


def test_home_segment_goes_to_the_start_pose_within_the_speed_limits() -> None:
    state = State.tower(3)
    last = segments_for_move(CONFIG, state, Move(1, 0, 2))[-1].pulses_us
    home = home_segment(CONFIG, last)
    assert home.pulses_us == CONFIG.start_pulses_us()
    assert home.phase is None, "the move home belongs to no pick-and-place phase"
    assert_within_limits(CONFIG, last, [home])
    assert home_segment(CONFIG).duration_ms < home.duration_ms


@pytest.mark.parametrize(
    ("state", "move", "error", "pattern"),
    [
        (State.tower(3), Move(2, 0, 2), IllegalMove, r"disk 2 is not on top of peg A"),
        (State.tower(3), Move(1, 0, 0), IllegalMove, r"needs two different pegs"),
        (State.tower(9), Move(1, 0, 2), ConfigError, r"\[board\] disk_count = 8: the state has 9 disks"),
        (State.tower(3, pegs=4), Move(1, 0, 3), ConfigError, r"the board has 3 pegs but the state has 4"),
    ],
)
def test_bad_moves_and_boards_are_named(state: State, move: Move, error: type[Exception], pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        segments_for_move(CONFIG, state, move)
