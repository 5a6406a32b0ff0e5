"""Small dense linear algebra on lists of floats: the few solves the arm needs (a 3×3 to 6×6 system), no numpy."""

from __future__ import annotations

import math
from collections.abc import Sequence

Matrix = list[list[float]]


def solve(a: Sequence[Sequence[float]], b: Sequence[float]) -> list[float]:
    """``x`` with ``a · x = b`` for a square ``a``, by Gaussian elimination with partial pivoting.

    Raises ZeroDivisionError if ``a`` is singular (a pivot smaller than 1e-12 of the largest entry).
    """
    n = len(b)
    rows = [[*a[i], b[i]] for i in range(n)]
    scale = max((abs(v) for row in a for v in row), default=0.0)
    if scale == 0.0:
        raise ZeroDivisionError("the matrix is zero")
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) <= 1e-12 * scale:
            raise ZeroDivisionError(f"the matrix is singular at column {col}")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        top = rows[col]
        inverse = 1.0 / top[col]
        for r in range(col + 1, n):
            row = rows[r]
            factor = row[col] * inverse
            if factor != 0.0:
                for c in range(col, n + 1):
                    row[c] -= factor * top[c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        row = rows[r]
        total = row[n] - sum(row[c] * x[c] for c in range(r + 1, n))
        x[r] = total / row[r]
    return x


def solve_spd(a: Sequence[Sequence[float]], b: Sequence[float], ridge: Sequence[float]) -> list[float]:
    """``x`` with ``(a + diag(ridge)) · x = b`` for a symmetric positive definite sum, by Cholesky (about half
    the work of :func:`solve`: the damped normal equations of a least-squares step). Plain loops: for the 3 to 6
    unknowns of an arm they beat generator expressions."""
    n = len(b)
    lower = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row = lower[i]
        for k in range(i + 1):
            other = lower[k]
            total = a[i][k]
            for m in range(k):
                total -= row[m] * other[m]
            if i == k:
                total += ridge[i]
                if not total > 0.0:
                    raise ZeroDivisionError(f"the matrix is not positive definite at row {i}")
                row[i] = math.sqrt(total)
            else:
                row[k] = total / other[k]
    y = [0.0] * n
    for i in range(n):
        total = b[i]
        row = lower[i]
        for m in range(i):
            total -= row[m] * y[m]
        y[i] = total / row[i]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        total = y[i]
        for m in range(i + 1, n):
            total -= lower[m][i] * x[m]
        x[i] = total / lower[i][i]
    return x


def pseudo_inverse(a: Sequence[Sequence[float]]) -> Matrix:
    """The left pseudo-inverse ``(aᵀa)⁻¹ aᵀ`` of a tall matrix with independent columns (ZeroDivisionError if
    they are not): maps joint angles back to the servo angles that make them."""
    rows, cols = len(a), len(a[0])
    normal = [[sum(a[k][i] * a[k][j] for k in range(rows)) for j in range(cols)] for i in range(cols)]
    columns = [solve(normal, [a[k][i] for i in range(cols)]) for k in range(rows)]
    return [[columns[k][i] for k in range(rows)] for i in range(cols)]
