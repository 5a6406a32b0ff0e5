"""The README's First run section: a section of its own, from a clone to a calibrated arm, for a real board and
for the virtual Pico in at most five commands after starting it, every command one hanoibot accepts, and the grip
step's ``skip`` said where calibrate is. (tests/hil/test_vpico_first_hour.py plays the virtual Pico's part.)"""

from __future__ import annotations

import pytest
from hanoibot.cli import build_parser
from readme_first_run import first_run_section, real_board_first_run, virtual_pico_first_run


def parses(argv: list[str]) -> None:
    """``argv`` (``hanoibot ...``) is a command line hanoibot accepts (SystemExit otherwise)."""
    assert argv[0] == "hanoibot", argv
    build_parser(argv[1]).parse_args(argv[1:])


def test_the_virtual_pico_first_run_is_at_most_five_commands_after_starting_it() -> None:
    start, after = virtual_pico_first_run()
    assert start[:3] == ["hanoibot", "emulate", "--pico"] and "--link" in start, start
    parses(start)
    assert 1 <= len(after) <= 5, after
    assert [argv[1] for argv in after] == ["init", "deploy", "calibrate", "run"], after
    link = start[start.index("--link") + 1]
    assert after[0] == ["hanoibot", "init", "--port", link], "init remembers the board the emulator serves"
    for argv in after:
        parses(argv)


def test_the_real_board_first_run_names_its_commands() -> None:
    commands = real_board_first_run()
    assert [argv[1] for argv in commands] == ["init", "deploy", "calibrate", "run"], commands
    for argv in commands:
        parses(argv)


def test_the_section_starts_at_the_clone_and_says_how_to_skip_the_grip_step() -> None:
    section = first_run_section()
    assert "make setup" in section and "skip" in section and "calibrate" in section


@pytest.mark.parametrize("option", ["--pico", "--blank", "--slow", "--chip-time"])
def test_the_emulate_synopsis_shows_the_virtual_picos_options(option: str) -> None:
    from readme_first_run import README

    text = README.read_text(encoding="utf-8")
    synopsis = text.split("```\nhanoibot emulate [", 1)[1].split("```", 1)[0]
    assert f"[{option}" in synopsis or f"{option} " in synopsis or f"{option}]" in synopsis, synopsis
