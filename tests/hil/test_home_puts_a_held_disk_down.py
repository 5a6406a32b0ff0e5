"""``hanoibot estop`` while the arm carries a disk, then ``hanoibot home --clear --journal FILE`` and ``hanoibot
resume``, each in its own process against ``hanoibot emulate`` on a real pty: home says where it put the disk,
the emulator's world shows the disk back on a peg before the arm went home, and resume finishes on the goal with
no collision or drop.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hanoibot.config import default_config_path
from hanoibot.sim.spawn import EmulatorProcess

#: Longest any one command may take, in s.
BOUND_S = 60.0
#: Arm joints this many times slower than the default robot's (host and board alike), so that carrying a disk
#: outlasts starting `hanoibot estop` on a loaded machine.
SLOWER = 3.0


def slow_config(folder: Path) -> Path:
    """The default robot with every arm joint :data:`SLOWER` times slower (the gripper as it is)."""
    document: Any = tomlkit.parse(default_config_path().read_text(encoding="utf-8"))
    for joint in ("base", "shoulder", "elbow", "wrist"):
        document["arm"][joint]["max_speed_deg_s"] = document["arm"][joint]["max_speed_deg_s"] / SLOWER
    path = folder / "slow_robot.toml"
    path.write_text(tomlkit.dumps(document), encoding="utf-8")
    return path


def hanoibot(*argv: str) -> subprocess.CompletedProcess[str]:
    """Run ``hanoibot`` in a new process (fails the test past :data:`BOUND_S`)."""
    return subprocess.run(
        [sys.executable, "-m", "hanoibot", *argv],
        capture_output=True,
        text=True,
        timeout=BOUND_S,
        stdin=subprocess.DEVNULL,
    )


def wait_for_pick(emulator: EmulatorProcess, count: int) -> dict[str, object]:
    """The ``count``-th pick the emulator's world logs (waits at most :data:`BOUND_S`)."""
    deadline_s = time.monotonic() + BOUND_S
    while time.monotonic() < deadline_s:
        picks = [e for e in emulator.events() if e.get("event") == "pick"]
        if len(picks) >= count:
            return picks[count - 1]
        time.sleep(0.02)
    raise AssertionError(f"the arm made no pick number {count} in {BOUND_S} s")


@pytest.mark.slow
def test_home_clear_puts_the_disk_it_carried_back_and_resume_finishes(tmp_path: Path) -> None:
    journal, config = tmp_path / "run.journal", str(slow_config(tmp_path))
    with EmulatorProcess("--config", config, "--board", "AAA", "--seed", "3") as emulator:
        port = emulator.port_path
        argv = [sys.executable, "-m", "hanoibot", "run", "-n", "3", "--plain", "--port", port, "--config", config]
        argv += ["--journal", str(journal)]
        run = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            picked = wait_for_pick(emulator, 2)  # the second move's disk has just left its peg: it is being carried
            stopped = hanoibot("estop", "--port", port)
            assert stopped.returncode == 0, stopped.stderr
            run.communicate(timeout=BOUND_S)
        finally:
            run.kill()
            run.wait(timeout=BOUND_S)
        seen = len(emulator.events())
        home = hanoibot("home", "--clear", "--journal", str(journal), "--port", port, "--config", config)
        assert home.returncode == 0, home.stderr
        assert f"home: put disk {picked['disk']} back on peg {picked['peg']} (recorded in {journal})" in home.stdout
        placed = [e for e in emulator.events()[seen:] if e.get("event") in ("place", "drop")]
        assert placed[:1] == [{**placed[0], "event": "place", "disk": picked["disk"], "peg": picked["peg"]}], placed
        resume = hanoibot("resume", "--journal", str(journal), "--plain", "--port", port, "--config", config)
        assert resume.returncode == 0, resume.stderr
        assert "board CCC" in resume.stdout
        bad = [e for e in emulator.events() if e.get("event") == "fault" and e.get("fault") in ("COLLISION", "DROP")]
        assert bad == []
