"""Runs on the virtual Pico through faults, judged from its virtual disks: bits flipped between host and board
(flip=1e-3 per byte, both ways), and ``hanoibot run`` killed with SIGKILL mid-run, twice, then ``hanoibot resume``
with the board (``hanoibot emulate --pico`` in its own process) running on. Either way the arm makes every planned
move exactly once, in order (the world's pick and place events paired up), with no drop or collision, and the
disks end on the goal. The chip is capped at 1/CHIP_SLOW of a real RP2040 and the host has a user's link bounds.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from cli_runner import HANOIBOT
from hanoibot.config import load_config
from hanoibot.errors import JournalError
from hanoibot.planner import make_plan
from hanoibot.run.journal import load_journal
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from robot_configs import speed_scaled_config
from vpico_checks import CHIP_SLOW, require_machine_sustains_the_cap, vpico_url
from world_events import moves_made, world_moves

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

#: Bound on each wait for the host or the board, in s of wall time (a run of a few moves takes a minute or two).
WAIT_S = 600


#: Every arm joint this many times faster than the default robot's (a shorter run; no risk to the virtual arm). The
#: gripper keeps its speed (see test_vpico_smoke.FASTER: fingers told to close faster than the servo turns are read
#: as empty and let the disk go).
FASTER = 2.0


# Not in make test's covering set: it fails about 1 run in 3 here, at this session's start (a0353e9) as at its end.
# The first grip verdict after a grip now and then reads "empty" with a disk held (raw ~30000 against the 32768
# threshold); the run retries the pick and puts the disk back on its peg first, which this oracle counts as a move.
def test_a_run_with_flipped_bits_makes_every_move_once(tmp_path: Path) -> None:
    require_machine_sustains_the_cap()
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


def moves_journaled(journal: Path) -> int:
    """Moves the journal records as done (-1 while it holds no complete record yet)."""
    try:
        return load_journal(journal).moves_done
    except (JournalError, OSError):
        return -1


def start_pico(tmp_path: Path, config: Path, board: str) -> subprocess.Popen[bytes]:
    """``hanoibot emulate --pico`` (capped at 1/CHIP_SLOW) with its port symlink and event log in ``tmp_path``;
    returns once it printed the port (the firmware said HELLO)."""
    link, out_path = tmp_path / "board", tmp_path / "board.out"
    args = ["emulate", "--pico", "--slow", str(CHIP_SLOW), "--link", str(link), "--log", str(tmp_path / "board.jsonl")]
    args += ["--config", str(config), "--board", board]
    with open(out_path, "w") as out:
        process = subprocess.Popen([*HANOIBOT, *args], stdout=out, stderr=subprocess.STDOUT)
    deadline_s = time.monotonic() + WAIT_S
    while not out_path.read_text().strip() and time.monotonic() < deadline_s and process.poll() is None:
        time.sleep(0.1)
    assert out_path.read_text().strip() == str(link), out_path.read_text()
    return process


def test_resume_after_the_host_is_killed_makes_every_move_once(tmp_path: Path) -> None:
    require_machine_sustains_the_cap()
    disks = 2
    config = speed_scaled_config(tmp_path, FASTER, gripper=False)
    journal = tmp_path / "run.journal"
    board = start_pico(tmp_path, config, "A" * disks)
    try:
        run = [*HANOIBOT, "run", "--plain", "--port", str(tmp_path / "board"), "--config", str(config)]
        command = [*run, "-n", str(disks), "--journal", str(journal)]
        for kill_after_moves in (1, 2):  # SIGKILL the host once the journal has this many moves, then resume
            host = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline_s = time.monotonic() + WAIT_S
            while moves_journaled(journal) < kill_after_moves and host.poll() is None:
                assert time.monotonic() < deadline_s, f"{kill_after_moves} moves were not journaled in {WAIT_S} s"
                time.sleep(0.05)
            assert host.poll() is None, f"the host ended before it was killed: {host.communicate()[1]!r}"
            host.send_signal(signal.SIGKILL)
            host.wait(timeout=10)
            command = [*HANOIBOT, "resume", "--plain", "--journal", str(journal)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=WAIT_S)
        assert done.returncode == 0, done.stderr
    finally:
        board.send_signal(signal.SIGTERM)
        try:
            board.wait(timeout=30)
        except subprocess.TimeoutExpired:
            board.kill()
            board.wait()
    events = [json.loads(line) for line in (tmp_path / "board.jsonl").read_text().splitlines()]
    plan = make_plan(disks)
    assert world_moves(events) == list(plan)
    assert [event["cause"] for event in events if event.get("event") == "boot"] == ["power"], "no reset"
    assert load_journal(journal).end_status == "done"
