"""The recovery matrix on ``hanoibot emulate`` (the CPython firmware): every way a run ends x every next command,
each cell on a freshly started emulator with 3 disks; the body is :func:`recovery_matrix.check_cell`, shared with
the virtual Pico's matrix (tests/hil/test_recovery_matrix_vpico.py). The robot's servos are :data:`FASTER` times
as fast as the default robot's, for the emulator and every command alike (the arm's paths are the same).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.sim.spawn import EmulatorProcess
from recovery_matrix import CELLS, Bench, check_cell
from robot_configs import speed_scaled_config

#: Longest any next command may take, in s (servos at 20x speed; a real arm needs a few times more).
BOUND_S = 40.0
#: Servo speed factor of the emulated board.
SPEED = "20"
#: Every servo of the robot (host and board) this many times as fast as the default robot's: a 3-disk run in ~5 s.
FASTER = 3.0


@pytest.mark.slow
@pytest.mark.parametrize(("row", "column"), CELLS)
def test_every_way_a_run_ends_leaves_a_board_the_next_command_can_use(row: str, column: str, tmp_path: Path) -> None:
    disks = "CAA" if row == "fault" else "AAA"
    config = str(speed_scaled_config(tmp_path, FASTER))
    with EmulatorProcess("--speed", SPEED, "--config", config, "--board", disks, "--seed", "1") as emulator:
        bench = Bench(emulator, disks, BOUND_S, stop_at_pick=2, config=config)
        check_cell(bench, row, column, tmp_path / "run.journal")
