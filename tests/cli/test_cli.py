"""The ``hanoibot`` dispatcher: argparse's own usage errors are one line with exit code 2, like all bad input."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest
from hanoibot.cli import COMMANDS, main, terminal_columns


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "-n"], "hanoibot solve: error: argument -n/--disks: expected one argument"),
        (["count", "-n", "3", "--bogus"], "unrecognized arguments: --bogus"),
        (["resume", "--journal"], "hanoibot resume: error: argument --journal: expected one argument"),
        (["frob"], "invalid choice: 'frob'"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_usage_errors_are_one_line_and_exit_code_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.endswith("--help)\n"), err


def test_help_still_shows_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["count", "--help"])
    assert stop.value.code == 0 and capsys.readouterr().out.startswith("usage: hanoibot count")


def test_the_command_list_says_what_each_command_registers() -> None:
    full = argparse.ArgumentParser()
    sub = full.add_subparsers()
    for name in COMMANDS:
        importlib.import_module(f"hanoibot.commands.{name}").register(sub)
    registered = {action.dest: action.help for action in sub._choices_actions}
    assert registered == COMMANDS


def test_the_commands_package_holds_the_sub_commands_alone() -> None:
    from pathlib import Path

    import hanoibot.commands

    folder = Path(hanoibot.commands.__file__).parent
    modules = {path.stem for path in folder.glob("*.py")} - {"__init__"}
    packages = {path.name for path in folder.iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert (modules, packages) == (set(COMMANDS), set())


def test_top_level_help_lists_every_command_without_importing_one(capsys: pytest.CaptureFixture[str]) -> None:
    probe = (
        "import sys; from hanoibot.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('hanoibot.commands.')))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[-1] == "[]"
    for name, summary in COMMANDS.items():
        assert f"{name}" in result.stdout and summary.split()[0] in result.stdout


def test_help_is_as_wide_as_columns_says(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for columns in (60, 140):
        monkeypatch.setenv("COLUMNS", str(columns))
        with pytest.raises(SystemExit):
            main(["solve", "--help"])
        out = capsys.readouterr().out
        options = out[out.index("options:") : out.index("\n\n", out.index("options:"))].splitlines()
        assert columns - 30 < max(len(line) for line in options) <= columns


def test_terminal_columns_falls_back_to_80_without_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(sys, "__stdout__", None)
    assert terminal_columns() == 80
    monkeypatch.setenv("COLUMNS", "junk")
    assert terminal_columns() == 80
