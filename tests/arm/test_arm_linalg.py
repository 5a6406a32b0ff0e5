"""Tests of hanoibot.arm.linalg: the small solves against hand-checked answers and each other."""

from __future__ import annotations

import pytest
from hanoibot.arm.linalg import pseudo_inverse, solve, solve_spd


def test_solve_needs_a_pivot_swap_and_finds_the_answer() -> None:
    a = [[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [2.0, 0.0, 3.0]]
    assert solve(a, [7.0, 3.0, 11.0]) == pytest.approx([1.0, 2.0, 3.0])


def test_a_singular_matrix_is_refused() -> None:
    with pytest.raises(ZeroDivisionError, match="singular"):
        solve([[1.0, 2.0], [2.0, 4.0]], [1.0, 2.0])


def test_cholesky_with_a_ridge_agrees_with_elimination() -> None:
    a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]]
    ridge = [0.1, 0.2, 0.3]
    damped = [[a[i][k] + (ridge[i] if i == k else 0.0) for k in range(3)] for i in range(3)]
    assert solve_spd(a, [1.0, 2.0, 3.0], ridge) == pytest.approx(solve(damped, [1.0, 2.0, 3.0]))
    with pytest.raises(ZeroDivisionError, match="positive definite"):
        solve_spd([[-1.0]], [1.0], [0.0])


def test_the_pseudo_inverse_recovers_servos_from_consistent_joints() -> None:
    # The MeArm's couplings: shoulder = s, elbow = f - s, wrist = -f.
    coupling = [[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]]
    inverse = pseudo_inverse(coupling)
    s, f = 40.0, -30.0
    joints = [s, f - s, -f]
    assert [sum(w * j for w, j in zip(row, joints, strict=True)) for row in inverse] == pytest.approx([s, f])
