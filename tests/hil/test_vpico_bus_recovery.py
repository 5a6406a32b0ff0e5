"""Recovery on the virtual Pico with the SO-101's Feetech STS servos on the bus (``hanoibot emulate --pico --chip-time
--servo sts``, every command a host in its own process): ``hanoibot run`` killed (SIGKILL) mid-carry then ``hanoibot
resume``, every move once as the world saw it; and cells of the recovery table (tests/recovery_matrix.py): an e-stop
mid-carry then ``home --clear`` or ``resume``, a host lost (killed) mid-carry then ``home --clear``, each next
command in its bound with its expected code and nothing colliding or dropped."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import HANOIBOT, hanoibot
from hanoibot.planner import make_plan
from hanoibot.puzzle import State
from hanoibot.run.journal import load_journal
from hanoibot.sim.spawn import EmulatorProcess
from hanoibot.sim.vpico.attach import ChipTimeControl
from recovery_matrix import Bench, check_cell
from robot_configs import preset_speed_scaled_config
from world_events import bad_events, disks_after, world_moves

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

#: Every servo of the SO-101 preset (host and board) this many times as fast: shorter runs.
FASTER = 3.0
#: Bound on each wait for a host or the board, in s of wall time (a loaded machine runs the chip at 0.1-0.4x).
WAIT_S = 600.0


@pytest.fixture(scope="module")
def so101(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SO-101 preset, every servo :data:`FASTER` times as fast."""
    return preset_speed_scaled_config(tmp_path_factory.mktemp("so101"), "so101", FASTER)


@pytest.fixture(scope="module")
def bus_board(so101: Path) -> Iterator[EmulatorProcess]:
    """``hanoibot emulate --pico --chip-time --servo sts`` with the SO-101 and 2 disks on A."""
    options = ("--pico", "--chip-time", "--servo", "sts", "--seed", "7", "--config", str(so101), "--board", "AA")
    with EmulatorProcess(*options, startup_s=WAIT_S) as board:
        yield board


def test_resume_after_the_host_is_killed_mid_carry_makes_every_move_once(
    so101: Path, bus_board: EmulatorProcess, tmp_path: Path
) -> None:
    seen = len(bus_board.events())
    start = disks_after("AA", bus_board.events())
    assert start is not None and len(set(start)) == 1, f"the disks are not stacked on one peg: {start}"
    goal = "B" if start[0] != "B" else "C"
    journal = tmp_path / "run.journal"
    port = ["--port", bus_board.port_path, "--config", str(so101)]
    command = [*HANOIBOT, "run", "--plain", *port, "--from", start, "--to", goal * 2, "--journal", str(journal)]
    with ChipTimeControl(bus_board.link_path) as control:
        control.hold("pick", 2, after_s=0.3)
        host = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            control.wait_held(WAIT_S, alive=lambda: host.poll() is None)
            assert control.disk_in_gripper() is not None, "the kill did not come while a disk was carried"
            host.send_signal(signal.SIGKILL)
            host.wait(timeout=30)
        finally:
            if host.poll() is None:
                host.kill()
            host.communicate()
    done = hanoibot("resume", "--plain", "--journal", str(journal), *port, timeout_s=WAIT_S)
    assert done.returncode == 0, done.stderr
    events = bus_board.events()[seen:]
    plan = make_plan(2, start=State.parse(start), goal=State.parse(goal * 2))
    assert bad_events(events) == [], bad_events(events)
    assert world_moves(events) == list(plan), "every move once, in order"
    assert not any(event.get("event") == "boot" for event in events), "the board was not reset"
    assert load_journal(journal).end_status == "done"


#: The recovery table's cells shown on the bus (row: how the run ends, column: the next command), in an order where
#: each leaves the board idle, fault-free and empty-handed for the next (its command exits 0: home --clear, resume).
CELLS = [("estopped", "home --clear"), ("estopped", "resume"), ("killed", "home --clear")]


@pytest.fixture(scope="module")
def cells_board(so101: Path) -> Iterator[EmulatorProcess]:
    """``hanoibot emulate --pico --chip-time --servo sts`` with the SO-101 and one disk on A, for every cell."""
    options = ("--pico", "--chip-time", "--servo", "sts", "--seed", "1", "--config", str(so101), "--board", "A")
    with EmulatorProcess(*options, startup_s=WAIT_S) as board:
        yield board


@pytest.mark.parametrize(("row", "column"), CELLS)
def test_recovery_cells_on_bus_servos_leave_a_board_the_next_command_can_use(
    row: str, column: str, so101: Path, cells_board: EmulatorProcess, tmp_path: Path
) -> None:
    disks = disks_after("A", cells_board.events())
    assert disks is not None, "the cell before left the disk in the gripper"
    bench = Bench(cells_board, disks, WAIT_S, stop_at_pick=1, config=str(so101), chip_time=True)
    check_cell(bench, row, column, tmp_path / "run.journal")
    assert disks_after("A", cells_board.events()) is not None, "no disk is left in the gripper"
