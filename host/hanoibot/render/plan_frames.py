"""Pictures of what a plan will do on the desk: one frame per planned arm motion, before any motion happens.

Each move is turned into its segments (as the run will send them); each segment's end pose is drawn with the
arm's joints (the chain's joint points, from the config's own forward kinematics), the disk in the gripper from the
grip to the release.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..config import RobotConfig
from ..motion.phases import MotionPhase
from ..motion.segments import segments_for_move
from ..puzzle import Move, State
from .svg import Frame

#: Phases after which the moved disk is between the fingers (from the end of grip to the end of lower).
HOLDING_PHASES = frozenset({MotionPhase.GRIP, MotionPhase.LIFT, MotionPhase.TRAVEL, MotionPhase.LOWER})


def plan_frames(config: RobotConfig, start: State, moves: Iterable[Move]) -> list[Frame]:
    """Frames of the planned arm poses (mm) for ``moves`` played from ``start``, starting at the home pose."""
    pose_us: tuple[int, ...] = config.start_pulses_us()
    frames = [_frame(config, start.stacks, pose_us, None, 0.0, f"start {start}")]
    state = start
    t_s = 0.0
    for k, move in enumerate(moves, start=1):
        segments = segments_for_move(config, state, move, from_pulses_us=pose_us)
        lifted = list(state.stacks)
        lifted[move.src] = lifted[move.src][:-1]
        landed = list(lifted)
        landed[move.dst] = (*landed[move.dst], move.disk)
        after = State(landed)  # the plan's own rules were checked by the planner (big-on-top may stack up)
        for segment in segments:
            t_s += segment.duration_ms / 1000
            holding = segment.phase in HOLDING_PHASES
            if holding:
                stacks = tuple(lifted)
            elif segment.phase in (MotionPhase.RELEASE, MotionPhase.RETREAT):
                stacks = after.stacks
            else:
                stacks = state.stacks
            caption = f"move {k}: {move.plain()} ({segment.phase})"
            frames.append(_frame(config, stacks, segment.pulses_us, move.disk if holding else None, t_s, caption))
        pose_us = segments[-1].pulses_us
        state = after
    return frames


def _frame(
    config: RobotConfig,
    stacks: tuple[tuple[int, ...], ...],
    pulses_us: tuple[int, ...],
    held_disk: int | None,
    t_s: float,
    caption: str,
) -> Frame:
    """One frame: the arm's joints (mm) for ``pulses_us`` (µs) over the given stacks."""
    points = config.arm_points(pulses_us)
    arm_mm = tuple((p.x_mm, p.y_mm, p.z_mm) for p in points)
    return Frame(stacks, arm_mm, held_disk, round(t_s, 3), caption)
