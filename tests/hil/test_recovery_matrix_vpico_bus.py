"""The recovery matrix on the virtual Pico with the SO-101 on Feetech STS bus servos on its UART (``hanoibot emulate
--pico --chip-time --servo sts``: servos that hold their pose through a board's reset and report where they are):
every row and column of tests/recovery_matrix.py, the same test body as on the PWM board, each next command in its
bound with its expected code, nothing colliding or dropped, every move once as the world saw it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from recovery_matrix import CELLS, check_cell
from robot_configs import preset_speed_scaled_config
from vpico_rows import RowBoards

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

#: Every servo of the SO-101 preset this many times as fast, host and board alike (shorter cells).
BUS_FASTER = 3.0


@pytest.fixture(scope="module")
def bus_row_boards(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RowBoards]:
    """The boards of the rows with the SO-101 on Feetech STS bus servos (``--servo sts``), every servo of its preset
    :data:`BUS_FASTER` times as fast, host and board alike."""
    so101 = str(preset_speed_scaled_config(tmp_path_factory.mktemp("so101"), "so101", BUS_FASTER))
    boards = RowBoards(("--servo", "sts", "--config", so101), config=so101)
    try:
        yield boards
    finally:
        boards.close()


@pytest.mark.parametrize(("row", "column"), CELLS)
def test_every_way_a_run_ends_on_bus_servos_leaves_a_board_the_next_command_can_use(
    row: str, column: str, tmp_path: Path, bus_row_boards: RowBoards
) -> None:
    bench = bus_row_boards.bench(row)
    journal = tmp_path / "run.journal"
    returncode = check_cell(bench, row, column, journal)
    bus_row_boards.passed(journal, column, returncode)
