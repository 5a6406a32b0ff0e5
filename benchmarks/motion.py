"""Seconds per move of a robot against its servos' limit and the fixed-delay baseline of hobby projects.

Run from the repository root: ``.venv/bin/python benchmarks/motion.py`` (the default robot, hardware/robot.toml),
``--arm NAME`` for an arm preset (repeatable), ``--arm all`` for every preset that is a whole robot config. Each
arm is measured against its own bound: its own speed limits through its own IK (issue 32).

For 3, 6 and 8 disks (classic puzzle, all disks from A to C; an arm whose board holds fewer, at 3 and its full
board, where its goal then applies) the segments of :mod:`hanoibot.motion.segments`
are streamed into the simulated robot (the real firmware core, virtual servos that turn no faster than the
config allows, and the arm-and-disk physics of ``hanoibot.sim.world``). The figures are simulated seconds read
from the virtual clock, and the fastest commanded joint speed read from the servo history, as a fraction of
that joint's limit. The baseline is the hobby recipe measured in the same run on the same simulator: the same
eight phase targets, each given a fixed 1 s. Both are timed from the moment every output is on: the firmware
switches the servos on one at a time after the CONFIG (0.2 s apart, once per connection, not per move). The lower
bound is the physical limit of the same plan: every pose the segments go through, in turn, each joint (and the
gripper) at its configured top speed with no acceleration, no settling and no holds: the sum over the segments of
the slowest channel's travel / top speed.
Without the simulator in the tree the figures fall back to the sum
of the segment durations (said so in the output).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Iterator

from hanoibot.arm import PRESET_NAMES, preset_text
from hanoibot.config import RobotConfig, load_config, parse_config
from hanoibot.errors import ConfigError
from hanoibot.motion.segments import Segment, segments_for_moves
from hanoibot.motion.timing import channel_times_s
from hanoibot.puzzle import Move, State

#: The hobby recipe: one fixed delay per phase, eight phases per move.
BASELINE_PHASE_MS = 1000
DISK_COUNTS = (3, 6, 8)
#: The goal: seconds per move at most this many times the lower bound (6 disks and up).
LIMIT_RATIO = 1.3
#: Segments kept queued on the simulated board (its queue holds 8).
WINDOW = 4


def classic_moves(n_disks: int, src: int = 0, dst: int = 2, spare: int = 1) -> Iterator[Move]:
    """The 2**n - 1 moves of the classic tower, recursively (an independent little planner)."""
    if n_disks == 0:
        return
    yield from classic_moves(n_disks - 1, src, spare, dst)
    yield Move(n_disks, src, dst)
    yield from classic_moves(n_disks - 1, spare, dst, src)


def planned_segments(config: RobotConfig, n_disks: int) -> list[Segment]:
    """Every segment of the classic n-disk run, in order."""
    return [
        s for _, segments in segments_for_moves(config, State.tower(n_disks), classic_moves(n_disks)) for s in segments
    ]


def lower_bound_s(config: RobotConfig, segments: list[Segment]) -> float:
    """Seconds to go through every segment's target in turn with each channel at its top speed, nothing else."""
    pose: tuple[int, ...] = config.start_pulses_us()
    total_s = 0.0
    for segment in segments:
        total_s += max(channel_times_s(config, pose, segment.pulses_us))
        pose = segment.pulses_us
    return total_s


def baseline_segments(segments: list[Segment]) -> list[Segment]:
    """The hobby version: one segment per phase to the same target, each lasting a fixed second."""
    out: list[Segment] = []
    for i, segment in enumerate(segments):
        last_of_phase = i + 1 == len(segments) or segments[i + 1].phase != segment.phase
        if last_of_phase:
            out.append(Segment(segment.pulses_us, BASELINE_PHASE_MS, segment.phase))
    return out


def simulate(config: RobotConfig, n_disks: int, segments: list[Segment], *, physics: bool) -> dict[str, object]:
    """Stream ``segments`` into a simulated robot; simulated seconds, faults, final board and peak joint speeds."""
    from hanoibot.sim.board import SimBoard
    from hanoibot.sim.world import make_world
    from hanoifw.protocol import encode

    world = make_world(config, State.tower(n_disks))
    board = SimBoard(world=world if physics else None, max_speed_us_per_s=list(world.max_speed_us_per_s))
    seq = 0

    def send(kind: str, fields: list[int]) -> None:
        nonlocal seq
        board.feed(encode(kind, seq, 0, fields))
        board.step()
        seq += 1

    send("SYNC", [])
    config_fields = []
    speeds = [round(speed) for speed in config.max_speeds_us_s()]
    limits = zip(config.min_pulses_us(), config.max_pulses_us(), config.start_pulses_us(), speeds, strict=True)
    for low, high, start, speed in limits:
        config_fields += [low, high, start, speed]
    send("CONFIG", [*config_fields, config.gripper.grip_threshold_u16])
    while board.controller.outputs.is_enabling:  # the staggered switch-on, once per CONFIG: not part of any move
        board.run_until(board.next_tick_s)
    start_s = board.clock.now_s()
    limit_s = start_s + 2 * sum(s.duration_ms for s in segments) / 1000 + 10.0
    sent = 0
    while len(board.executed_cmd_ids()) < len(segments):
        while sent < len(segments) and sent - len(board.executed_cmd_ids()) < WINDOW:
            segment = segments[sent]
            sent += 1
            profile = [] if segment.ramp_ms is None else [segment.ramp_ms, segment.blend_ms]
            send("MOVE", [sent, segment.duration_ms, *segment.pulses_us, *profile])
        board.run_until(board.next_tick_s)
        board.feed(encode("PING", 0, 0, ["bench"]))  # the heartbeat that keeps the board's watchdog quiet
        board.take_output()
        problems = [e for e in board.events if e["event"] in ("error", "fault")]
        if problems or board.clock.now_s() > limit_s:
            faults = world.faults() if physics else []
            raise RuntimeError(f"the simulated run stopped: {problems[:1] or faults or 'no progress'}")
    elapsed_s = board.clock.now_s() - start_s
    return {
        "seconds": elapsed_s,
        "faults": world.faults() if physics else [],
        "final": world.state if physics else None,
        "speed_ratio": peak_speed_ratio(config, board.servos.history),
    }


def peak_speed_ratio(config: RobotConfig, history: list[tuple[float, int, int | None]]) -> float:
    """Fastest commanded speed of any channel between consecutive outputs, as a fraction of its limit.

    The firmware outputs whole microseconds, so one step between two ticks can be up to 1 µs longer than the
    motion it stands for; each step is counted 1 µs shorter to take that rounding out.
    """
    worst = 0.0
    last: dict[int, tuple[float, int]] = {}
    for t_s, channel, pulse_us in history:
        if pulse_us is None:
            last.pop(channel, None)
            continue
        if channel in last and t_s > last[channel][0]:
            t0_s, p0_us = last[channel]
            if abs(pulse_us - p0_us) > 1:
                p0_us += 1 if pulse_us > p0_us else -1
            if channel != config.gripper_channel:
                servo = config.servos[channel]
                speed = abs(servo.angle_deg(pulse_us) - servo.angle_deg(p0_us)) / (t_s - t0_s)
                worst = max(worst, speed / servo.max_speed_deg_s)
            else:
                speed = abs(pulse_us - p0_us) / config.gripper.us_per_deg / (t_s - t0_s)
                worst = max(worst, speed / config.gripper.max_speed_deg_s)
        last[channel] = (t_s, pulse_us)
    return worst


def arm_configs(names: list[str]) -> list[tuple[str, RobotConfig | None, str]]:
    """(name, robot config, why not) per arm asked for: ``robot.toml`` for none, every preset for ``all``; a
    preset that is not a whole robot config yet comes with None and the reason."""
    if not names:
        return [("default robot (hardware/robot.toml)", load_config(), "")]
    wanted = list(PRESET_NAMES) if "all" in names else names
    out: list[tuple[str, RobotConfig | None, str]] = []
    for name in wanted:
        try:
            out.append((f"preset {name}", parse_config(preset_text(name).encode("utf-8")), ""))
        except ConfigError as err:
            out.append((f"preset {name}", None, str(err)))
    return out


def main(arms: list[str] | None = None) -> int:
    """Print one table per arm, one row per disk count; 0 if every run was clean, within every speed limit, 3x
    faster than the hobby baseline and, from 6 disks on, within :data:`LIMIT_RATIO` of the arm's own lower bound."""
    ok = True
    summary = []
    for label, config, why_not in arm_configs(arms or []):
        if config is None:
            print(f"motion benchmark, {label}: not measured, it is not a whole robot config ({why_not})")
            summary.append(f"{label}: not measured")
            continue
        arm_ok, worst = bench_arm(label, config)
        ok = ok and arm_ok
        summary.append(f"{label}: {worst:.3f}x its own bound at {disk_counts(config)[-1]} disks")
        print()
    if len(summary) > 1:
        print(f"each arm against its own bound (goal <= {LIMIT_RATIO}x):")
        for line in summary:
            print(f"  {line}")
    return 0 if ok else 1


def disk_counts(config: RobotConfig) -> tuple[int, ...]:
    """The disk counts an arm is measured at: :data:`DISK_COUNTS` that its board holds, and its full board when
    that holds fewer than the largest (the MeArm's 5 disks: its ratio goal applies there)."""
    full = config.board.disk_count
    return tuple(sorted({n for n in DISK_COUNTS if n <= full} | {min(full, DISK_COUNTS[-1])}))


def bench_arm(label: str, config: RobotConfig) -> tuple[bool, float]:
    """One arm's table; whether it met every goal, and its ratio to its bound at the largest disk count."""
    have_sim = importlib.util.find_spec("hanoibot.sim.world") is not None
    source = "simulated seconds (virtual clock of sim/)" if have_sim else "sum of segment durations (no simulator)"
    print(f"motion benchmark, {label}, figures are {source}")
    print(
        f"{'disks':>5} {'moves':>5} {'s/move':>7} {'bound s/move':>12} {'/bound':>7} "
        f"{'baseline s/move':>15} {'speed-up':>8} {'peak speed':>10}  board"
    )
    ok, to_bound = True, float("nan")
    counts = disk_counts(config)
    for n_disks in counts:
        moves = 2**n_disks - 1
        segments = planned_segments(config, n_disks)
        baseline = baseline_segments(segments)
        bound_s = lower_bound_s(config, segments)
        if have_sim:
            ours = simulate(config, n_disks, segments, physics=True)
            hobby = simulate(config, n_disks, baseline, physics=False)
            ours_s, hobby_s, ratio = float(ours["seconds"]), float(hobby["seconds"]), float(ours["speed_ratio"])  # type: ignore[arg-type]
            goal = State.tower(n_disks, peg=2)
            verdict = "ok" if not ours["faults"] and ours["final"] == goal else f"FAULT {ours['faults']}"
        else:
            ours_s = sum(s.duration_ms - s.blend_ms for s in segments) / 1000
            hobby_s = sum(s.duration_ms for s in baseline) / 1000
            ratio, verdict = float("nan"), "not simulated"
        speed_up = hobby_s / ours_s
        to_bound = ours_s / bound_s
        ok = ok and speed_up >= 3.0 and verdict in ("ok", "not simulated") and not ratio > 1.0
        ok = ok and (n_disks < min(6, counts[-1]) or to_bound <= LIMIT_RATIO)
        print(
            f"{n_disks:>5} {moves:>5} {ours_s / moves:>7.3f} {bound_s / moves:>12.3f} {to_bound:>6.3f}x "
            f"{hobby_s / moves:>15.2f} {speed_up:>7.2f}x {ratio:>10.3f}  {verdict}"
        )
    print("bound = every joint at its max_speed_deg_s through the same poses (no acceleration, settling or holds)")
    print("peak speed = fastest commanded joint speed / its max_speed_deg_s (must stay <= 1)")
    return ok, to_bound


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arm", action="append", choices=[*PRESET_NAMES, "all"], help="an arm preset, or all")
    sys.exit(main(parser.parse_args().arm))
