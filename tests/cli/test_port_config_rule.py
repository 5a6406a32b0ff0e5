"""One rule for every command's port and robot config: ``--port``/``--config``, else ``HANOIBOT_PORT``/
``HANOIBOT_CONFIG``, else what ``hanoibot init`` wrote, else ``sim://`` and the shipped robot. Every command that
takes them follows it (``resume`` finds its run on the rule's port), every ``--help`` states it, and ``make demo``
is the one exception: always the simulator with the shipped robot."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hanoibot.cli import COMMANDS, build_parser, fill_user_defaults, main
from hanoibot.config import default_config_path
from hanoibot.config.user import resolve_config
from hanoibot.ops.journals import new_journal

ROOT = Path(__file__).resolve().parents[2]
#: Commands whose --port is the board they talk to (runs' --port is a filter; init's is the port to remember).
TALKS_TO_A_PORT = ("run", "resume", "home", "jog", "calibrate", "status", "estop", "deploy", "serve")
#: Commands that fill --port and --config by the rule before they run (resume applies it itself).
FILLED = ("run", "home", "jog", "calibrate", "status", "estop", "deploy", "serve")


def option_help(command: str, flag: str) -> str | None:
    """The ``--help`` text of ``flag`` in ``command`` (None when the command has no such option)."""
    sub = build_parser(command)._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    for action in sub._actions:
        if flag in action.option_strings:
            return str(action.help)
    return None


def test_every_port_and_config_option_states_the_rule_in_its_help() -> None:
    for command in COMMANDS:
        port_help = option_help(command, "--port")
        if command in TALKS_TO_A_PORT:
            assert port_help is not None, command
            words = ("$HANOIBOT_PORT", "hanoibot init", "sim://")
            assert all(word in port_help for word in words), (command, port_help)
            assert "default sim://" not in port_help, (command, port_help)
        config_help = option_help(command, "--config")
        if config_help is not None and command != "resume":  # resume: the config the run's journal names
            assert all(word in config_help for word in ("$HANOIBOT_CONFIG", "init", "shipped")), (command, config_help)


@pytest.fixture
def own_robot(tmp_path: Path) -> Path:
    """A robot config of the user's own (a copy of the shipped one)."""
    path = tmp_path / "mine.toml"
    path.write_bytes(default_config_path().read_bytes())
    return path


def filled(command: str) -> tuple[str, str | None]:
    """The port and config ``hanoibot COMMAND`` (no options) would use (``deploy`` has no config: the file named
    then is the one the other commands would use)."""
    args = build_parser(command).parse_args([command])
    fill_user_defaults(args)
    if command == "deploy":
        return args.port, filled("status")[1]
    return args.port, args.config


@pytest.mark.parametrize("command", FILLED)
def test_the_environment_names_every_commands_port_and_config(
    command: str, own_robot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HANOIBOT_PORT", "/dev/ttyACM7")
    monkeypatch.setenv("HANOIBOT_CONFIG", str(own_robot))
    assert filled(command) == ("/dev/ttyACM7", str(own_robot))


@pytest.mark.parametrize("command", FILLED)
def test_inits_port_and_robot_name_every_commands_port_and_config(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--port", "/dev/ttyACM8"]) == 0
    capsys.readouterr()
    port, config = filled(command)
    assert port == "/dev/ttyACM8" and config is not None
    assert Path(config) == Path(os.environ["XDG_CONFIG_HOME"]) / "hanoibot" / "robot.toml"


def test_without_settings_every_command_is_on_the_simulator_with_the_shipped_robot() -> None:
    for command in FILLED:
        port, config = filled(command)
        assert port == "sim://" and resolve_config(config) == default_config_path(), command


def stopped_run_on(port: str) -> Path:
    """A journal in the state folder of a 3-move run on ``port`` that stopped after none."""
    with new_journal(port) as journal:
        journal.record_plan({"pegs": 3, "length": 3}, config_hash="h", boot_id="b", port=port)
        journal.record_end("stopped")
        return journal.path


@pytest.mark.parametrize("how", ["environment", "init"])
def test_plain_resume_looks_for_the_run_on_the_rules_port(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    port = str(tmp_path / "ttyACM9")  # no device: the run is found, then the port cannot be opened
    journal = stopped_run_on(port)
    if how == "environment":
        monkeypatch.setenv("HANOIBOT_PORT", port)
    else:
        assert main(["init", "--port", port]) == 0
    capsys.readouterr()
    assert main(["resume"]) == 2
    err = capsys.readouterr().err
    assert "no stopped run" not in err, err
    assert err.count("\n") == 1 and (port in err or str(journal) in err), err


def test_plain_resume_with_no_run_names_the_rules_port(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HANOIBOT_PORT", "/dev/ttyACM7")
    assert main(["resume"]) == 2
    assert "no stopped run on /dev/ttyACM7" in capsys.readouterr().err


def test_serve_uses_inits_port_and_robot(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--port", "sim://?seed=4"]) == 0
    capsys.readouterr()
    # PYTHONFAULTHANDLER: should Ctrl-C not stop it, SIGABRT makes it print every thread's stack for the report.
    server = subprocess.Popen(
        [sys.executable, "-m", "hanoibot", "serve", "--http-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.send_signal(signal.SIGABRT)
            _, stacks = server.communicate(timeout=30)
            pytest.fail(f"serve did not stop on Ctrl-C within 30 s; its threads:\n{stacks}")
    robot = Path(os.environ["XDG_CONFIG_HOME"]) / "hanoibot" / "robot.toml"
    assert f"(arm: sim://?seed=4; robot: {robot};" in first, first


def demo_argv() -> list[str]:
    """The hanoibot command line ``make demo`` runs (from ``make -n``: nothing is run)."""
    dry = subprocess.run(["make", "-s", "-n", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    lines = [line for line in dry.stdout.splitlines() if re.search(r"\bhanoibot run\b", line)]
    assert len(lines) == 1, dry.stdout
    argv = shlex.split(lines[0])
    return argv[argv.index("run") :]


def test_make_demo_is_the_simulator_and_the_shipped_robot_whatever_init_and_the_environment_say(
    own_robot: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["init", "--port", "/dev/ttyACM0"]) == 0  # a real arm remembered
    capsys.readouterr()
    argv = demo_argv()
    for env in ({}, {"HANOIBOT_PORT": "/dev/ttyACM1", "HANOIBOT_CONFIG": str(own_robot)}):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(ROOT)  # make runs it from the checkout
        args = build_parser("run").parse_args(argv)
        fill_user_defaults(args)
        assert args.port == "sim://", (env, argv)
        assert resolve_config(args.config).resolve() == default_config_path().resolve(), (env, argv)


@pytest.mark.slow
def test_make_demo_runs_on_the_simulator_after_init_named_a_real_arm(tmp_path: Path) -> None:
    env = {**os.environ, "HANOIBOT_PORT": str(tmp_path / "ttyACM0"), "HANOIBOT_CONFIG": str(tmp_path / "none.toml")}
    done = subprocess.run(
        ["make", "-s", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "done: 15 of 15 moves, board CCCC" in done.stdout
