"""Arm room benchmark, by hand: ``.venv/bin/python benchmarks/arm.py [--repeats N]``.

What planning pays for the arm as data (hanoibot.arm), each figure against today's closed-form IK of
hanoibot.motion.kinematics (the 4-joint pitch chain, gripper down) measured in the same run:

(a) the analytic IK of each preset's family (serial pitch chain: default, so101, bracket6; parallelogram: mearm)
    on the grip points of a descent onto each of its pegs (every 2 mm from above the tip to the foot);
(b) the numeric IK (damped least squares) warm-started as planning would: each point from the previous point's
    pose, 2 mm away; and cold, from the servos' mid-travel; with its mean steps per solve;
(c) forward kinematics: the chain's general form (homogeneous transforms) and its plane form, against
    motion.kinematics.forward_kinematics on the same poses.

Every figure alternates a batch of ours and a batch of the baseline, several times, and keeps the best per-call
time of each (the machine is shared: the ratio is the figure that counts). Both IKs must agree on the default arm.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from hanoibot.arm import PRESET_NAMES, NumericIK, Point, ik_numeric, load_preset, make_ik
from hanoibot.arm.planar import planar_arm
from hanoibot.config import load_config
from hanoibot.motion import kinematics


def descent_points(name: str) -> list[Point]:
    """Grip points every 2 mm from 10 mm above each peg's tip down to its foot, in the preset's grasp mode (side-on:
    at the largest disk's rim, as the reach check takes it)."""
    preset = load_preset(name)
    board = preset.board
    points = []
    for peg in board.pegs:
        x, y = peg.x_mm, peg.y_mm
        if preset.chain.grasp.value == "side":
            inward = 1.0 - (board.disk_diameters_mm[-1] / 2.0) / math.hypot(x, y)
            x, y = x * inward, y * inward
        z = peg.height_mm + 10.0
        while z >= board.grip_z_mm(0):
            points.append(Point(x, y, z))
            z -= 2.0
    return points


def best_per_call(run: Callable[[], object], calls: int, repeats: int) -> list[float]:
    """Per-call seconds of each of ``repeats`` timings of ``run`` (which makes ``calls`` calls)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) / calls)
    return times


def paired(ours: Callable[[], object], baseline: Callable[[], object], calls: int, repeats: int) -> tuple[float, float]:
    """Best per-call seconds of ``ours`` and of ``baseline``, batches alternating."""
    mine, theirs = [], []
    for _ in range(repeats):
        theirs += best_per_call(baseline, calls, 1)
        mine += best_per_call(ours, calls, 1)
    return min(mine), min(theirs)


def row(label: str, ours_s: float, base_s: float, extra: str = "") -> None:
    print(f"{label:<58} {ours_s * 1e6:9.2f} µs  {base_s * 1e6:7.2f} µs  {ours_s / base_s:7.2f}x  {extra}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="IK and FK cost of hanoibot.arm against motion.kinematics, measured in the same run.",
        epilog="See the module docstring and benchmarks/README.md.",
    )
    parser.add_argument("--repeats", type=int, default=15, help="batches of each side per figure (default 15)")
    args = parser.parse_args(argv)
    repeats = args.repeats
    arm = load_config().arm
    today_points = [kinematics.Point(*p) for p in descent_points("default")]

    def today_ik() -> None:
        for p in today_points:
            kinematics.inverse_kinematics(arm, p)

    default_ik = make_ik(load_preset("default").chain)
    for p in today_points:
        ours, theirs = default_ik.solve(p, -90.0), kinematics.inverse_kinematics(arm, p)
        assert max(abs(a - b) for a, b in zip(ours, theirs, strict=True)) < 1e-9, (p, ours, theirs)
    n_today = len(today_points)
    print(f"baseline: motion.kinematics.inverse_kinematics on {n_today} grip points of the default board's descents")
    print(f"{'figure':<58} {'ours':>12}  {'baseline':>10}  {'ratio':>8}")

    print("(a) analytic IK")
    for name in PRESET_NAMES:
        chain = load_preset(name).chain
        ik = make_ik(chain)
        points = descent_points(name)
        pitch = chain.grasp.pitch_deg

        def ours(ik=ik, points=points, pitch=pitch) -> None:  # type: ignore[no-untyped-def]
            for p in points:
                ik.solve(p, pitch)

        mine, base = paired(ours, today_ik, 1, repeats)
        row(f"{name}: {type(ik).__name__} ({len(points)} points)", mine / len(points), base / n_today)

    print("(b) numeric IK (damped least squares)")
    for name in PRESET_NAMES:
        chain = load_preset(name).chain
        numeric = NumericIK(chain)
        points = descent_points(name)
        pitch = chain.grasp.pitch_deg
        # Warm: each point from the previous point's pose (2 mm away; the first from its own analytic answer).
        seeds = [make_ik(chain).solve(points[0], pitch)]
        for p in points[:-1]:
            seeds.append(numeric.solve(p, pitch, seeds[-1]))
        warm_steps = cold_steps = 0
        for p, s in zip(points, seeds, strict=True):
            numeric.solve(p, pitch, s)
            warm_steps += numeric.last_steps
            numeric.solve(p, pitch)
            cold_steps += numeric.last_steps

        def warm(numeric=numeric, points=points, seeds=seeds, pitch=pitch) -> None:  # type: ignore[no-untyped-def]
            for p, s in zip(points, seeds, strict=True):
                numeric.solve(p, pitch, s)

        def cold(numeric=numeric, points=points, pitch=pitch) -> None:  # type: ignore[no-untyped-def]
            for p in points:
                numeric.solve(p, pitch)

        few = max(3, repeats // 3)
        mine, base = paired(warm, today_ik, 1, few)
        row(f"{name}: warm-started", mine / len(points), base / n_today, f"{warm_steps / len(points):.1f} steps")
        mine, base = paired(cold, today_ik, 1, few)
        row(
            f"{name}: cold (servos mid-travel)",
            mine / len(points),
            base / n_today,
            f"{cold_steps / len(points):.1f} steps",
        )

    print("(c) forward kinematics (baseline: motion.kinematics.forward_kinematics on the same poses)")
    chain = load_preset("default").chain
    poses = [default_ik.solve(p, -90.0) for p in today_points]
    angles = [kinematics.JointAngles(*q) for q in poses]
    plane = planar_arm(chain, "benchmark")

    def today_fk() -> None:
        for q in angles:
            kinematics.forward_kinematics(arm, q)

    def chain_fk() -> None:
        for q in poses:
            chain.grip_point(q)

    def plane_fk() -> None:
        for q in poses:
            plane.grip_point(q[0], (q[1], q[2], q[3]))

    mine, base = paired(chain_fk, today_fk, len(poses), repeats)
    row("default: Chain.grip_point (transforms)", mine, base)
    mine, base = paired(plane_fk, today_fk, len(poses), repeats)
    row("default: PlanarArm.grip_point (plane geometry)", mine, base)
    print(f"(numeric IK tolerances: {ik_numeric.TOLERANCE_MM} mm, accept {ik_numeric.ACCEPT_MM} mm)")


if __name__ == "__main__":
    main()
