"""The recovery matrix (tests/recovery_matrix.py) for the SO-101 on ``feetech://`` against the simulated bus adapter:
the same cells and the same body (:func:`recovery_matrix.check_cell`), every command a hanoibot process driving the
servos through a pty as through a USB bus adapter.

The board of ``feetech://`` runs in each command's own process: every command meets a board that booted afresh,
whose servos held the arm since the last one (they keep their torque). So the rows that stop a run with a disk in
the fingers (stopped, Ctrl-C twice, killed) are each followed by a new boot holding that disk: ``resume`` carries it
on, ``home`` puts it back (:mod:`hanoibot.ops.held_reset`); a new ``run`` lifts the arm clear before homing.
After a fault the fingers hold nothing and the new board cannot say how far the move got: ``resume`` asks for
``--board`` (:func:`resume_after_a_fault`). An e-stop's latch outlives the process whose board it
was latched on (:mod:`hanoibot.link.urlhandler.bus_latch`): the next boot on the adapter is e-stopped, and
``resume`` and ``home`` refuse without ``--clear`` as on a board that kept running.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_runner import hanoibot
from hanoibot.sim.adapter import SimAdapter
from hanoibot.sim.world import make_world
from recovery_matrix import CELLS, Bench, check_cell, end_run
from robot_configs import preset_speed_scaled_config
from world_events import bad_events, disks_after

#: Longest any next command may take, in s (wall clock: the adapter's servos move in real time).
BOUND_S = 90.0
#: Every servo of the SO-101 (host and simulated servos) this many times its preset's speed.
FASTER = 3.0
#: The SO-101's bus ids, shoulder_pan 1 .. gripper 6.
IDS = "1,2,3,4,5,6"


class AdapterBench:
    """What :class:`recovery_matrix.Bench` asks of an emulator, for the simulated adapter: its port and its world's
    event log."""

    def __init__(self, adapter: SimAdapter) -> None:
        self.adapter = adapter
        self.port_path = f"feetech://{adapter.device}?ids={IDS}"

    def events(self) -> list[dict[str, Any]]:
        with self.adapter.lock:
            return list(self.adapter.events)


@pytest.mark.slow
@pytest.mark.parametrize(("row", "column"), CELLS)
def test_every_way_a_run_ends_leaves_the_so101_on_feetech_usable(row: str, column: str, tmp_path: Path) -> None:
    disks = "CAA" if row == "fault" else "AAA"
    config = str(preset_speed_scaled_config(tmp_path, "so101", FASTER))
    with SimAdapter(make_world(config, disks)) as adapter:
        bench = Bench(AdapterBench(adapter), disks, BOUND_S, stop_at_pick=2, config=config)  # type: ignore[arg-type]
        if (row, column) == ("fault", "resume"):
            resume_after_a_fault(bench, tmp_path / "run.journal")
        else:
            check_cell(bench, row, column, tmp_path / "run.journal")


def resume_after_a_fault(bench: Bench, journal: Path) -> None:
    """The fault row's ``resume``: the run that faulted (told a board the disks are not on) took its board with it,
    and the fingers hold nothing, so the new board cannot tell where the disks are (on a board that kept running,
    its command ids would say which piece of the move was done): ``resume`` asks for ``--board`` in words, nothing
    moves, and goes on once told (exit 0, or 1 where the disks still are not where the plan needs them)."""
    started = len(bench.emulator.events())
    end_run(bench, "fault", journal)
    seen = len(bench.emulator.events())
    argv = ["resume", "--journal", str(journal), "--plain", *bench.port_args]
    refused = hanoibot(*argv, timeout_s=bench.bound_s)
    assert refused.returncode == 2 and "confirm where the disks are with --board STATE" in refused.stderr, refused
    assert len(bench.emulator.events()) == seen, "nothing moved"
    now = disks_after(bench.disks, bench.emulator.events())
    assert now is not None, "a run that ended in fault left a disk in the air"
    result = hanoibot(*argv, "--board", now, timeout_s=bench.bound_s)
    assert result.returncode in (0, 1), result.stderr
    bad = bad_events(bench.emulator.events()[started:])
    assert bad == [], json.dumps(bad)
