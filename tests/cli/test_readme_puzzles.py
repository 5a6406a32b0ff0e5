"""The README's section "Puzzles from the seeds": every example command in it is run and prints what it shows.

A block is ``$ hanoibot ...`` followed by its output (stdout, then stderr). A ``...`` line stands for any lines;
a progress line is compared up to its ``simulated time`` (the arm's timing is the motion layer's business).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from hanoibot.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"


def puzzle_examples() -> list[tuple[str, list[str]]]:
    """(command line, expected output lines) of every ``$ hanoibot`` example in the puzzles section."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Puzzles from the seeds", 1)[1].split("\n## ", 1)[0]
    examples: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```\n(.*?)```", section, flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ hanoibot "):
                examples.append((line[2:], []))
            elif examples:
                examples[-1][1].append(line)
    return examples


def matches(expected: list[str], got: list[str]) -> bool:
    """True if ``got`` is ``expected`` with each ``...`` standing for any lines (none or more)."""
    if not expected:
        return not got
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, got[i:]) for i in range(len(got) + 1))
    if not got:
        return False
    wanted = head.split("  simulated time")[0]
    line = got[0] if wanted == head else got[0].split("  simulated time")[0]
    return line == wanted and matches(rest, got[1:])


def test_the_section_has_an_example_for_every_puzzle() -> None:
    commands = " | ".join(command for command, _ in puzzle_examples())
    for needed in ("--method turing", "hanoibot lock", "--puzzle bicolor"):
        assert needed in commands, needed


@pytest.mark.parametrize(("command", "expected"), puzzle_examples(), ids=lambda v: v if isinstance(v, str) else "")
def test_each_example_prints_what_the_readme_shows(
    capsys: pytest.CaptureFixture[str], command: str, expected: list[str]
) -> None:
    main(shlex.split(command)[1:])
    out, err = capsys.readouterr()
    got = out.splitlines() + err.splitlines()
    assert matches(expected, got), "\n".join(got)
