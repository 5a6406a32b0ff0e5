"""Planned-run frames: every planned motion drawn, the disk in the gripper between grip and release."""

from __future__ import annotations

import math

import pytest
from hanoibot.config import load_config
from hanoibot.motion.segments import segments_for_moves
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move, State
from hanoibot.render.plan_frames import plan_frames

CONFIG = load_config()


@pytest.mark.parametrize("n_disks", [1, 3])
def test_there_is_a_frame_per_planned_motion_and_the_last_shows_the_goal(n_disks: int) -> None:
    start = State.tower(n_disks)
    moves = list(make_plan(n_disks))
    frames = plan_frames(CONFIG, start, moves)
    segment_count = sum(len(segments) for _, segments in segments_for_moves(CONFIG, start, moves))
    assert len(frames) == 1 + segment_count
    assert frames[0].stacks == start.stacks and frames[0].held_disk is None
    assert State(frames[-1].stacks) == State.tower(n_disks, peg=2)
    for frame in frames:  # no disk is ever lost or doubled
        on_pegs = sorted(d for stack in frame.stacks for d in stack)
        held = [frame.held_disk] if frame.held_disk is not None else []
        assert sorted(on_pegs + held) == list(range(1, n_disks + 1))
    times = [frame.t_s for frame in frames]
    assert times == sorted(times)


def test_the_grip_frame_shows_the_fingertips_at_the_top_disk_holding_it() -> None:
    start = State.tower(3)
    frames = plan_frames(CONFIG, start, [Move(1, 0, 2)])
    grip = next(f for f in frames if f.caption.endswith("(grip)"))
    assert grip.held_disk == 1 and grip.stacks == ((3, 2), (), ())
    x_mm, y_mm, z_mm = grip.arm_points_mm[-1]
    peg_a = CONFIG.board.pegs[0]
    assert math.hypot(x_mm - peg_a.x_mm, y_mm - peg_a.y_mm) < 1.0
    assert z_mm == pytest.approx(CONFIG.board.grip_z_mm(2), abs=1.0)
    release = next(f for f in frames if f.caption.endswith("(release)"))
    assert release.held_disk is None and release.stacks == ((3, 2), (), (1,))
