"""Recovery on the virtual Pico with the SO-101's Feetech STS servos on the bus (``hanoibot emulate --pico --chip-time
--servo sts``, every command a host in its own process): ``hanoibot run`` killed (SIGKILL) mid-carry then ``hanoibot
resume``, every move once as the world saw it, the board never reset. The whole recovery table on the bus:
test_recovery_matrix_vpico_bus.py."""

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
