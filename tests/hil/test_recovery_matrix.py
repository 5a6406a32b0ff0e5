"""The recovery matrix on ``hanoibot emulate`` (the CPython firmware): every way a run ends x every next command,
each cell on a freshly started emulator with 3 disks; the body is :func:`recovery_matrix.check_cell`, shared with
the virtual Pico's matrix (tests/hil/test_recovery_matrix_vpico.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.sim.spawn import EmulatorProcess
from recovery_matrix import CELLS, Bench, check_cell

#: Longest any next command may take, in s (servos at 20x speed; a real arm needs a few times more).
BOUND_S = 40.0
#: Servo speed factor of the emulated board.
SPEED = "20"


@pytest.mark.slow
@pytest.mark.parametrize(("row", "column"), CELLS)
def test_every_way_a_run_ends_leaves_a_board_the_next_command_can_use(row: str, column: str, tmp_path: Path) -> None:
    disks = "CAA" if row == "fault" else "AAA"
    with EmulatorProcess("--speed", SPEED, "--board", disks, "--seed", "1") as emulator:
        check_cell(Bench(emulator, disks, BOUND_S, stop_at_pick=2), row, column, tmp_path / "run.journal")
