"""Runs on the virtual Pico through faults, judged from its virtual disks: bits flipped between host and board
(flip=1e-3 per byte, both ways), and ``hanoibot run`` killed with SIGKILL while it carries a disk, then ``hanoibot
resume`` with the board (``hanoibot emulate --pico --chip-time`` in its own process) running on. Either way the arm
makes every planned move exactly once, in order (the world's pick and place events paired up), with no drop or
collision, and the disks end on the goal. The chip runs on chip time: the same runs, the same kill moments, on
every machine; the host has a user's link bounds.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import HANOIBOT
from hanoibot.config import load_config
from hanoibot.planner import make_plan
from hanoibot.puzzle import State
from hanoibot.run.journal import load_journal
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoibot.sim.spawn import EmulatorProcess
from hanoibot.sim.vpico.attach import ChipTimeControl
from robot_configs import speed_scaled_config
from vpico_checks import vpico_url
from world_events import bad_events, disks_after, moves_made, world_moves

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

#: Bound on each wait for the host or the board, in s of wall time (a run of a few moves takes a minute or two).
WAIT_S = 600


#: Every arm joint this many times faster than the default robot's (a shorter run; no risk to the virtual arm). The
#: gripper keeps its speed (see test_vpico_smoke.FASTER: fingers told to close faster than the servo turns are read
#: as empty and let the disk go).
FASTER = 2.0


def test_a_run_with_flipped_bits_makes_every_move_once(tmp_path: Path) -> None:
    disks = 2
    config = speed_scaled_config(tmp_path, FASTER, gripper=False)
    robot = Robot(vpico_url(board="A" * disks, config=config, flip="1e-3", seed=11), load_config(config))
    robot.open()
    port = robot.session.port
    pico = port.pico  # type: ignore[union-attr]
    try:
        plan = make_plan(disks)
        run = Run(robot, plan)
        assert run.start() is Phase.DONE, run.report()
        world = pico.world
        assert moves_made(world.events) == list(plan)
        assert world.state == plan.goal
        assert [boot["cause"] for boot in pico.boots] == ["power"] and pico.tracebacks == []
        flipped = port._to_board.counts["flip"] + port._to_host.counts["flip"]  # type: ignore[union-attr]
        assert flipped > 0, "no bit was flipped: the run showed nothing about faults"
    finally:
        robot.close()
        pico.close()


#: Where each kill lands: (the pick it follows, s of chip time after it), for each of the run's three picks: the disk
#: in the gripper, being lifted off its peg (0.1 s), carried (0.3 s) or lowered onto the next peg (0.55 s; each carry
#: of the faster arm takes 0.65 s or more). The first is where issue 33 saw the disk dropped.
KILLS = ((1, 0.15), *((pick, after_s) for pick in (1, 2, 3) for after_s in (0.1, 0.3, 0.55)))


@pytest.fixture(scope="module")
def chip_time_board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EmulatorProcess, Path]]:
    """``hanoibot emulate --pico --chip-time`` with 2 disks on A and the faster arm, and that arm's config."""
    folder = tmp_path_factory.mktemp("kills")
    config = speed_scaled_config(folder, FASTER, gripper=False)
    options = ("--pico", "--chip-time", "--seed", "7", "--config", str(config), "--board", "AA")
    with EmulatorProcess(*options, startup_s=WAIT_S) as board:
        yield board, config


def kill_param(pick: int, after_s: float) -> object:
    """A kill moment as a pytest parameter; the first one (issue 33's dropped disk) is in make test's set."""
    marks = (pytest.mark.vpico_cover,) if (pick, after_s) == KILLS[0] else ()
    return pytest.param(pick, after_s, id=f"pick{pick}+{after_s}s", marks=marks)


@pytest.mark.parametrize(("pick", "after_s"), [kill_param(p, a) for p, a in KILLS])
def test_resume_after_the_host_is_killed_mid_carry_makes_every_move_once(
    pick: int, after_s: float, tmp_path: Path, chip_time_board: tuple[EmulatorProcess, Path]
) -> None:
    """``hanoibot run`` killed (SIGKILL) while it carries a disk, at the same moment of the chip's time on every
    machine (a hold: the host is stopped there, then killed), then ``hanoibot resume``: the board ran on alone,
    its watchdog held the arm, and the resumed run makes every planned move exactly once with nothing colliding or
    dropped, as the world's own events say."""
    board, config = chip_time_board
    seen = len(board.events())
    start = disks_after("AA", board.events())
    assert start is not None and len(set(start)) == 1, f"the disks are not stacked on one peg: {start}"
    goal = "B" if start[0] != "B" else "C"
    journal = tmp_path / "run.journal"
    port = ["--port", board.port_path, "--config", str(config)]
    command = [*HANOIBOT, "run", "--plain", *port, "--from", start, "--to", goal * 2, "--journal", str(journal)]
    with ChipTimeControl(board.link_path) as control:
        control.hold("pick", pick, after_s=after_s)
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
    done = subprocess.run(
        [*HANOIBOT, "resume", "--plain", "--journal", str(journal), *port],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert done.returncode == 0, done.stderr
    events = board.events()[seen:]
    plan = make_plan(2, start=State.parse(start), goal=State.parse(goal * 2))
    assert bad_events(events) == [], bad_events(events)
    assert world_moves(events) == list(plan)
    assert not any(event.get("event") == "boot" for event in events), "the board was not reset"
    assert load_journal(journal).end_status == "done"
