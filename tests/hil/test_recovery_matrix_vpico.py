"""The recovery matrix on the virtual Pico (``hanoibot emulate --pico --chip-time``: the stock MicroPython rp2 image on
an emulated RP2040 moving the simulated arm and disks): the same rows, columns and test body as on the CPython
emulator (:func:`recovery_matrix.check_cell`); only the target differs. The SO-101 on bus servos plays the same
table in test_recovery_matrix_vpico_bus.py.

The chip runs on chip time (:mod:`hanoibot.sim.vpico.attach`): every command is a host in its own process whose
clock is the chip's, so a cell is the same on every machine at any load, and a stopping row stops its run at the
same moment of the chip's time (a hold at the pick). The boards of the rows: :mod:`vpico_rows`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from recovery_matrix import CELLS, check_cell
from vpico_rows import RowBoards

pytestmark = [pytest.mark.slow, pytest.mark.vpico]


@pytest.fixture(scope="module")
def row_boards() -> Iterator[RowBoards]:
    """The boards of the rows, one at a time."""
    boards = RowBoards()
    try:
        yield boards
    finally:
        boards.close()


@pytest.mark.parametrize(("row", "column"), CELLS)
def test_every_way_a_run_ends_leaves_a_board_the_next_command_can_use(
    row: str, column: str, tmp_path: Path, row_boards: RowBoards
) -> None:
    bench = row_boards.bench(row)
    journal = tmp_path / "run.journal"
    returncode = check_cell(bench, row, column, journal)
    row_boards.passed(journal, column, returncode)
