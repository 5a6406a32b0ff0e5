"""``hanoibot estop`` while the arm carries a disk, then ``hanoibot home --clear --journal FILE`` and ``hanoibot
resume``, each in its own process against ``hanoibot emulate`` on a real pty: home says where it put the disk,
the emulator's world shows the disk back on a peg before the arm went home, and resume finishes on the goal with
no collision or drop.

The e-stop must land between the world's pick of a disk and its place. Its process is started ahead and armed
(:class:`cli_runner.ArmedCommand`): it fires the moment the world logs the pick, so the carry's length, not the
machine's load, decides whether it lands in time.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from cli_runner import HANOIBOT, ArmedCommand, hanoibot
from hanoibot.sim.spawn import EmulatorProcess
from robot_configs import speed_scaled_config
from world_events import bad_events

#: Longest any one command may take, in s.
BOUND_S = 60.0
#: Arm joints this many times slower than the default robot's (host and board alike; the gripper as it is), so
#: that a disk's carry lasts 1.5 s: many times what the armed e-stop takes to land (0.9 s at full speed).
SLOWER = 2.0


def wait_for_pick(emulator: EmulatorProcess, count: int) -> dict[str, object]:
    """The ``count``-th pick the emulator's world logs (waits at most :data:`BOUND_S`)."""
    deadline_s = time.monotonic() + BOUND_S
    while time.monotonic() < deadline_s:
        picks = [e for e in emulator.events() if e.get("event") == "pick"]
        if len(picks) >= count:
            return picks[count - 1]
        time.sleep(0.01)
    raise AssertionError(f"the arm made no pick number {count} in {BOUND_S} s")


@pytest.mark.slow
def test_home_clear_puts_the_disk_it_carried_back_and_resume_finishes(tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    config = str(speed_scaled_config(tmp_path, 1 / SLOWER, gripper=False))
    with EmulatorProcess("--config", config, "--board", "AA", "--seed", "3") as emulator:
        port = emulator.port_path
        with ArmedCommand("estop", "--port", port, timeout_s=BOUND_S) as estop:
            argv = [*HANOIBOT, "run", "-n", "2", "--plain", "--port", port, "--config", config]
            argv += ["--journal", str(journal)]
            run = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            try:
                picked = wait_for_pick(emulator, 2)  # the second move's disk has just left its peg: it is carried
                stopped = estop.fire()
                assert stopped.returncode == 0, stopped.stderr
                run.communicate(timeout=BOUND_S)
            finally:
                run.kill()
                run.wait(timeout=BOUND_S)
        seen = len(emulator.events())
        home = hanoibot(
            "home", "--clear", "--journal", str(journal), "--port", port, "--config", config, timeout_s=BOUND_S
        )
        assert home.returncode == 0, home.stderr
        assert f"home: put disk {picked['disk']} back on peg {picked['peg']} (recorded in {journal})" in home.stdout
        placed = [e for e in emulator.events()[seen:] if e.get("event") in ("place", "drop")]
        assert placed[:1] == [{**placed[0], "event": "place", "disk": picked["disk"], "peg": picked["peg"]}], placed
        resume = hanoibot(
            "resume", "--journal", str(journal), "--plain", "--port", port, "--config", config, timeout_s=BOUND_S
        )
        assert resume.returncode == 0, resume.stderr
        assert "board CC" in resume.stdout
        assert bad_events(emulator.events()) == []
