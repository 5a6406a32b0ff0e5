"""Numeric IK for any chain: damped least squares (Levenberg-Marquardt) on the servo angles, warm-started.

The fallback for a chain no analytic family fits (a URDF's arm), and the cross-check of the analytic families in
the tests. Unknowns are the servo angles, so couplings and held joints need nothing special: the Jacobian of a
coupled joint reaches its servos through the coupling's gains, a held joint has none. The goal has four or five
rows: the grip point (3, mm) and the tool's pitch, weighted as :data:`PITCH_WEIGHT_MM` mm per radian. The
heading the tool points in is left free (the base sets it): for a level or tilted tool that leaves one row (the
turn about the horizontal axis across the tool), for a vertical one two (it must not tilt either way).
Each step is kept within the servos' travel (projected), so a seed within it finds the solution within it nearest
the seed (an elbow near its stretched limit stays on its side). Pure Python floats; a warm-started solve takes a
few steps, each one forward pass and a 3×3 to 5×5 solve.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import NamedTuple

from ..errors import UnreachableError
from . import frames
from .chain import Chain
from .linalg import solve_spd
from .planar import where_text

#: How many mm of grip-point error one radian of tool-pitch error weighs (a tool about this long).
PITCH_WEIGHT_MM = 100.0
#: A solve has converged when the grip point is this close (mm) and the pitch this close (rad): far below what
#: any hobby servo can resolve (a tenth of a degree moves the grip point by about half a millimetre).
TOLERANCE_MM = 1e-5
TOLERANCE_RAD = 1e-7
#: What a solve that can come no nearer may miss by and still count: a chain whose axes are a hair off parallel
#: (a URDF's rounded π/2) cannot point its tool exactly down, only within a few millionths of a radian.
ACCEPT_MM = 1e-4
ACCEPT_PITCH_DEG = 0.01
#: The largest step (radians) any servo takes in one iteration: keeps a far seed from leaping across branches.
MAX_STEP_RAD = 0.35


class NumericIK:
    """Damped least-squares IK of any chain (see the module docstring); ``max_steps`` bounds the iterations."""

    family = "numeric"

    def __init__(self, chain: Chain, *, max_steps: int = 60) -> None:
        self.chain = chain
        self.max_steps = max_steps
        self._moving = tuple(
            (j, chain.joints[j].axis, chain.servo_gains(j)[0])
            for j in range(len(chain.joints))
            if not chain.joints[j].is_held
        )
        self._base = next(j for j, _, _ in self._moving)
        self._travel = tuple((a.min_deg, a.max_deg) for a in chain.actuators)
        #: How many trial steps the last solve took (each one forward pass), for benchmarks and diagnostics.
        self.last_steps = 0

    def solve(self, grip: Sequence[float], pitch_deg: float, seed: Sequence[float] | None = None) -> tuple[float, ...]:
        """Joint angles (degrees, joint order) that put the grip point at ``grip`` (mm) with the tool at
        ``pitch_deg``, starting from the joint angles ``seed`` (the servos' mid-travel if None): the solution
        nearest the seed. UnreachableError names the point and how near it came, or the joint out of limits."""
        chain = self.chain
        start = chain.actuator_angles(seed if seed is not None else chain.middle_pose())
        servos = [min(max(s, low), high) for s, (low, high) in zip(start, self._travel, strict=True)]
        target = (float(grip[0]), float(grip[1]), float(grip[2]))
        pitch = math.radians(pitch_deg)
        damping = 1e-3
        state = self._evaluate(servos, target, pitch)
        cost = sum(r * r for r in state.residual)
        steps = 0
        while steps < self.max_steps and not _converged(state.residual):
            normal, gradient = _normal_equations(self._jacobian(state), state.residual)
            moved = False
            while steps < self.max_steps and damping < 1e9:
                step = _step(normal, gradient, damping)
                if max(abs(d) for d in step) < 1e-12:
                    break  # as near as the chain can come (a goal row no servo can change)
                steps += 1
                trial = [
                    min(max(s + math.degrees(d), low), high)
                    for s, d, (low, high) in zip(servos, step, self._travel, strict=True)
                ]
                trial_state = self._evaluate(trial, target, pitch)
                trial_cost = sum(r * r for r in trial_state.residual)
                if trial_cost < cost:
                    servos, state, cost, moved = trial, trial_state, trial_cost, True
                    damping = max(damping * 0.1, 1e-7)
                    break
                damping *= 10.0
            if not moved:
                break
        self.last_steps = steps
        off_mm = math.sqrt(sum(r * r for r in state.residual[:3]))
        off_deg = math.degrees(math.sqrt(sum(r * r for r in state.residual[3:])) / PITCH_WEIGHT_MM)
        if off_mm <= ACCEPT_MM and off_deg <= ACCEPT_PITCH_DEG:
            angles = chain.joint_angles(servos)
            chain.check_limits(angles, where_text(target))
            return angles
        raise UnreachableError(
            f"{where_text(target)}: the numeric IK came no nearer than {off_mm:.3f} mm with the tool "
            f"{off_deg:.3f} deg off pitch {pitch_deg:g} ({steps} steps)"
        )

    def _evaluate(self, servos: Sequence[float], target: frames.Vec3, pitch: float) -> _State:
        """The goal's residual at ``servos`` (mm, and mm-weighted radians) with what its Jacobian needs."""
        chain = self.chain
        world = chain.frames(chain.joint_angles(servos))
        tool = world[-1]
        grip = frames.origin_of(tool)
        approach = frames.turn(tool, chain.tool.approach)
        residual = [target[0] - grip[0], target[1] - grip[1], target[2] - grip[2]]
        # The tool pitch rows: which turns of the tool count (see the module docstring).
        if abs(math.sin(pitch)) > 1.0 - 1e-12:
            wanted: frames.Vec3 = (0.0, 0.0, math.copysign(1.0, pitch))
            rows: tuple[frames.Vec3, ...] = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
        else:
            hx, hy = approach[0], approach[1]
            norm = math.hypot(hx, hy)
            if norm < 1e-9:  # pointing straight up or down: head where the target lies from the base
                base = frames.origin_of(world[self._base])
                hx, hy = target[0] - base[0], target[1] - base[1]
                norm = math.hypot(hx, hy) or 1.0
            hx, hy = hx / norm, hy / norm
            wanted = (math.cos(pitch) * hx, math.cos(pitch) * hy, math.sin(pitch))
            rows = ((-hy, hx, 0.0),)
        error = frames.cross(approach, wanted)
        residual += [PITCH_WEIGHT_MM * frames.dot(row, error) for row in rows]
        return _State(residual, world, grip, rows)

    def _jacobian(self, state: _State) -> list[list[float]]:
        """The residual's Jacobian at ``state`` as columns, one per servo (mm and weighted rad per radian)."""
        columns = [[0.0] * len(state.residual) for _ in self.chain.actuators]
        gx, gy, gz = state.grip
        for j, axis, gains in self._moving:
            frame = state.world[j]
            wx, wy, wz = frames.turn(frame, axis)
            lx, ly, lz = gx - frame[3], gy - frame[7], gz - frame[11]
            values = [wy * lz - wz * ly, wz * lx - wx * lz, wx * ly - wy * lx]
            values += [PITCH_WEIGHT_MM * (r[0] * wx + r[1] * wy + r[2] * wz) for r in state.rows]
            for servo, gain in gains:
                column = columns[servo]
                for r, value in enumerate(values):
                    column[r] += gain * value
        return columns


class _State(NamedTuple):
    """One evaluation of the goal: its residual, the chain's frames, the grip point and the pitch rows used."""

    residual: list[float]
    world: tuple[frames.Transform, ...]
    grip: frames.Vec3
    rows: tuple[frames.Vec3, ...]


def _converged(residual: Sequence[float]) -> bool:
    """True when the grip point and the pitch are within the tolerances."""
    return residual[0] ** 2 + residual[1] ** 2 + residual[2] ** 2 <= TOLERANCE_MM**2 and all(
        abs(r) <= TOLERANCE_RAD * PITCH_WEIGHT_MM for r in residual[3:]
    )


def _normal_equations(columns: list[list[float]], residual: list[float]) -> tuple[list[list[float]], list[float]]:
    """``JᵀJ`` and ``Jᵀr`` for the Jacobian given as ``columns``."""
    n = len(columns)
    normal = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for k in range(i, n):
            normal[i][k] = normal[k][i] = sum(map(operator.mul, columns[i], columns[k]))
    return normal, [sum(map(operator.mul, column, residual)) for column in columns]


def _step(normal: list[list[float]], gradient: list[float], damping: float) -> list[float]:
    """The damped Gauss-Newton step (radians per servo): ``(JᵀJ + λ(diag JᵀJ + I)) Δ = Jᵀr`` (Marquardt's scaling,
    plus λ so that a servo the goal does not see stays put), shortened to :data:`MAX_STEP_RAD` at most."""
    step = solve_spd(normal, gradient, [damping * (row[i] + 1.0) for i, row in enumerate(normal)])
    longest = max(abs(d) for d in step)
    if longest > MAX_STEP_RAD:
        step = [d * MAX_STEP_RAD / longest for d in step]
    return step
