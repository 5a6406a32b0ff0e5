"""The SO-101 preset on ``feetech://`` against the simulated bus adapter (a pty speaking the Feetech protocol, its
servos moving the simulated arm and disks on the wall clock): ``run``, and a host killed while the arm carries a
disk, then ``resume`` or ``home``.

The board of ``feetech://`` lives in the hanoibot process and dies with it; the bus servos do not: they keep their
torque and their goal, so the arm stands where it was with the disk between its fingers. The next host's board
reads back what each servo holds; the measured positions and the gripper's load tell the host that the arm still
holds the disk of the journal's move under way, so ``resume`` finishes that move and goes on, with no ``--board``
and no disk taken out by hand. The world's log of picks and places, which the host never sees, is the judge:
every move of the plan made once, in order, nothing dropped or hit.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from cli_runner import HANOIBOT, hanoibot
from hanoibot.config import load_config
from hanoibot.link.status import Mode
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.sim.adapter import SimAdapter
from hanoibot.sim.world import SimWorld, make_world
from robot_configs import preset_speed_scaled_config
from world_events import moves_made

#: Wall-clock bound of one hanoibot command (a 3-disk run of the SO-101 below takes about 16 s).
COMMAND_S = 180.0
#: Every servo of the SO-101 (host and simulated servos alike) this many times its preset's speed.
FASTER = 3.0
#: The SO-101's six bus ids, as lerobot sets them up (shoulder_pan 1 .. gripper 6).
IDS = "1,2,3,4,5,6"
#: How long after the world's pick the host is killed, in s: the disk has left its peg and is carried.
CARRIED_S = 0.3


def so101(tmp_path: Path, disks: str) -> tuple[str, SimWorld, SimAdapter]:
    """The SO-101's config file (servos :data:`FASTER`), its world with ``disks`` and the adapter serving it."""
    config = str(preset_speed_scaled_config(tmp_path, "so101", FASTER))
    world = make_world(config, disks)
    return config, world, SimAdapter(world)


def picks(world: SimWorld) -> int:
    return sum(1 for event in world.events if event["event"] == "pick")


def kill_mid_carry(adapter: SimAdapter, argv: list[str], pick: int, after_s: float = CARRIED_S) -> None:
    """Run ``hanoibot argv`` and kill it (SIGKILL) ``after_s`` after the world's ``pick``-th pick, the disk in the
    fingers; fails with what it said if it ends first."""
    run = subprocess.Popen(
        [*HANOIBOT, *argv], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline_s = time.monotonic() + COMMAND_S
        while picks(adapter.world) < pick and run.poll() is None and time.monotonic() < deadline_s:
            time.sleep(0.002)
        time.sleep(after_s)
        assert run.poll() is None, f"the run ended before its pick {pick}: {run.communicate()[1]}"
        run.kill()
    finally:
        run.kill()
        run.communicate()
    assert run.returncode == -9
    with adapter.lock:
        assert adapter.world.held_disk is not None, "killed mid-carry: a disk is in the fingers"


def test_a_host_killed_mid_carry_leaves_the_disk_held_and_resume_finishes_its_move(tmp_path: Path) -> None:
    journal = str(tmp_path / "run.journal")
    config, world, adapter = so101(tmp_path, "A")
    with adapter:
        port = f"feetech://{adapter.device}?ids={IDS}"
        kill_mid_carry(
            adapter, ["run", "-n", "1", "--port", port, "--config", config, "--plain", "--journal", journal], 1
        )
        time.sleep(0.5)
        with adapter.lock:
            assert world.held_disk == 1, "the servos kept their torque: the disk did not fall"
        result = hanoibot("resume", "--journal", journal, "--port", port, "--plain", timeout_s=COMMAND_S)
        events = list(world.events)
    assert result.returncode == 0, result.stderr
    assert "still held disk 1" in result.stdout and "carried it on to peg C" in result.stdout, result.stdout
    assert moves_made(events) == list(make_plan(1)), "the move made once, nothing dropped or hit"


def test_a_joint_knocked_while_no_host_ran_stops_resume_naming_it(tmp_path: Path) -> None:
    journal = str(tmp_path / "run.journal")
    config, world, adapter = so101(tmp_path, "A")
    with adapter:
        port = f"feetech://{adapter.device}?ids={IDS}"
        kill_mid_carry(
            adapter, ["run", "-n", "1", "--port", port, "--config", config, "--plain", "--journal", journal], 1
        )
        with adapter.lock:  # the wrist roll is turned 120 µs (15 deg) off the pose its servo holds
            roll_us = adapter.bus.servos[4].horn_us
            world.block_joint(4, high_us=roll_us - 120)
            seen = len(world.events)
        result = hanoibot("resume", "--journal", journal, "--port", port, "--plain", timeout_s=COMMAND_S)
        with adapter.lock:
            moved = world.events[seen:]
    assert result.returncode == 2, result.stderr
    assert "wrist_roll joint stands 15.0 deg off" in result.stderr and "deg off" in result.stderr, result.stderr
    assert moved == [], "nothing moved"


@pytest.mark.slow
def test_home_after_a_host_killed_mid_carry_puts_the_disk_back(tmp_path: Path) -> None:
    journal = str(tmp_path / "run.journal")
    config, world, adapter = so101(tmp_path, "AA")
    with adapter:
        port = f"feetech://{adapter.device}?ids={IDS}"
        argv = ["run", "-n", "2", "--port", port, "--config", config, "--plain", "--journal", journal]
        kill_mid_carry(adapter, argv, 1)
        home = hanoibot("home", "--journal", journal, "--port", port, "--config", config, timeout_s=COMMAND_S)
        with adapter.lock:
            state, held = world.state, world.held_disk
        resumed = hanoibot("resume", "--journal", journal, "--port", port, "--plain", timeout_s=COMMAND_S)
        events = list(world.events)
    assert home.returncode == 0, home.stderr
    assert "put disk 1 back on peg A" in home.stdout, home.stdout
    assert held is None and state is not None and state.to_string() == "AA", "the disk is back where it came from"
    assert resumed.returncode == 0, resumed.stderr
    assert [e["event"] for e in events if e["event"] in ("drop", "fault")] == []
    assert moves_made(events)[-3:] == list(make_plan(2)), "after the put-back, the plan's moves once each"


def test_an_estop_outlives_the_process_whose_board_latched_it(tmp_path: Path) -> None:
    config, _world, adapter = so101(tmp_path, "A")
    with adapter:
        port = f"feetech://{adapter.device}?ids={IDS}"

        def mode_after(action: str) -> Mode:
            with Robot(port, load_config(config)) as robot:
                robot.open()
                mode = robot.session.status().mode
                getattr(robot.session, action)()
            return mode

        assert mode_after("estop") is Mode.UNCONFIGURED
        assert mode_after("clear") is Mode.ESTOP, "the next board on these servos is e-stopped until a CLEAR"
        assert mode_after("status") is Mode.UNCONFIGURED, "released by the CLEAR"
        estop = hanoibot("estop", "--port", port, "--config", config, timeout_s=COMMAND_S)
        status = hanoibot("status", "--port", port, "--config", config, timeout_s=COMMAND_S)
    assert estop.returncode == 0 and "latched" in estop.stdout, estop
    assert status.returncode == 0 and "ESTOP" in status.stdout, status.stdout


@pytest.mark.slow
def test_so101_run_on_feetech_makes_every_move_once(tmp_path: Path) -> None:
    config, world, adapter = so101(tmp_path, "AAA")
    with adapter:
        port = f"feetech://{adapter.device}?ids={IDS}"
        result = hanoibot(
            "run", "-n", "3", "--port", port, "--config", config, "--plain", "--journal", str(tmp_path / "j"),
            timeout_s=COMMAND_S,
        )  # fmt: skip
        events = list(world.events)
    assert result.returncode == 0, result.stderr
    assert moves_made(events) == list(make_plan(3))


@pytest.mark.slow
@pytest.mark.parametrize(("pick", "after_s"), [(2, CARRIED_S), (4, CARRIED_S), (2, 0.0)])
def test_so101_killed_mid_carry_then_resume_makes_every_move_once(tmp_path: Path, pick: int, after_s: float) -> None:
    """Killed while a disk is carried, or the moment the fingers touched it (``after_s`` 0: they may not squeeze
    it yet, and resume closes them on it first)."""
    journal = str(tmp_path / "run.journal")
    config, world, adapter = so101(tmp_path, "AAA")
    with adapter:
        port = f"feetech://{adapter.device}?ids={IDS}"
        argv = ["run", "-n", "3", "--port", port, "--config", config, "--plain", "--journal", journal]
        kill_mid_carry(adapter, argv, pick, after_s)
        result = hanoibot("resume", "--journal", journal, "--port", port, "--plain", timeout_s=COMMAND_S)
        events = list(world.events)
    assert result.returncode == 0, result.stderr
    assert "carried it on" in result.stdout, result.stdout
    assert moves_made(events) == list(make_plan(3)), "every move once, in order, nothing dropped or hit"
