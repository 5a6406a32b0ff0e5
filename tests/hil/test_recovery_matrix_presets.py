"""The recovery matrix (tests/hil/test_recovery_matrix.py) for each arm preset besides the default that is a whole
robot config (issue 32): the same cells, the same body (:func:`recovery_matrix.check_cell`), on ``hanoibot
emulate`` with the preset as the robot config of the emulator and of every command (the MeArm's level claw taking
each disk from the side). Its arm has its own chain,
channels and speeds (each servo :data:`FASTER` times its preset's); the simulated world judges: no collision, no
drop from the start of the row's run on, every next command in its bound with its expected code.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.sim.spawn import EmulatorProcess
from recovery_matrix import CELLS, Bench, check_cell
from robot_configs import preset_speed_scaled_config

#: Longest any next command may take, in s (as for the default robot).
BOUND_S = 40.0
#: Servo speed factor of the emulated board.
SPEED = "20"
#: Every servo of the preset (host and board) this many times as fast: a 3-disk run in seconds.
FASTER = 3.0
#: The presets that are whole robot configs, besides the default (whose matrix is test_recovery_matrix.py's).
PRESETS = ("so101", "bracket6", "mearm")


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize(("row", "column"), CELLS)
def test_every_way_a_run_ends_leaves_each_presets_board_usable(
    preset: str, row: str, column: str, tmp_path: Path
) -> None:
    disks = "CAA" if row == "fault" else "AAA"
    config = str(preset_speed_scaled_config(tmp_path, preset, FASTER))
    with EmulatorProcess("--speed", SPEED, "--config", config, "--board", disks, "--seed", "1") as emulator:
        bench = Bench(emulator, disks, BOUND_S, stop_at_pick=2, config=config)
        check_cell(bench, row, column, tmp_path / "run.journal")
