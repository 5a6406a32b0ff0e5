"""Host-side checks of the firmware's precomputed minimum-jerk table: exact values, and nothing computed at import
(big-int arithmetic such as 256**5 = 2**40 would allocate on the board)."""

import ast
from fractions import Fraction
from pathlib import Path

from hanoifw import motion

MOTION_PY = Path(motion.__file__)


def test_the_table_is_the_exactly_rounded_profile() -> None:
    n = 256
    expected = []
    for i in range(n + 1):
        u = Fraction(i, n)
        s = 10 * u**3 - 15 * u**4 + 6 * u**5
        expected.append(int(s * 65536 + Fraction(1, 2)))  # round half up, as the firmware's integer formula
    assert tuple(motion._TABLE) == tuple(expected)


def test_importing_the_motion_module_computes_no_table() -> None:
    tree = ast.parse(MOTION_PY.read_text())
    for node in tree.body:  # module level: only constants, imports, functions, classes
        if isinstance(node, ast.Assign | ast.AnnAssign):
            value = node.value
            assert value is not None
            assert not any(isinstance(sub, ast.Call) for sub in ast.walk(value)), ast.unparse(node)[:60]
            assert not any(isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Pow) for sub in ast.walk(value))
