"""The README's "First run" section read as commands: what a new user types, from starting the board to a run.

Shared by the quick check of the section (tests/cli/test_readme_first_run.py) and the test that plays it on the
virtual Pico (tests/hil/test_vpico_first_hour.py).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
#: The section's title in the README.
TITLE = "## First run: from a clone to a calibrated arm"


def first_run_section() -> str:
    """The text of the README's First run section (AssertionError when there is none)."""
    text = README.read_text(encoding="utf-8")
    assert TITLE in text, f"the README has no section {TITLE!r}"
    return text.split(TITLE, 1)[1].split("\n## ", 1)[0]


def command_blocks(text: str) -> list[list[list[str]]]:
    """Each ``sh`` block of ``text`` as its commands (argv lists, comments dropped)."""
    blocks = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        commands = [shlex.split(line, comments=True) for line in block.splitlines()]
        blocks.append([argv for argv in commands if argv])
    return blocks


def virtual_pico_first_run() -> tuple[list[str], list[list[str]]]:
    """The virtual Pico's part: the command that starts the board, and the hanoibot commands typed after it."""
    part = first_run_section().split("**On the virtual Pico**", 1)[1]
    start, after = command_blocks(part)[:2]
    assert len(start) == 1, start
    return start[0], after


def real_board_first_run() -> list[list[str]]:
    """The real board's part: the hanoibot commands typed after ``make setup``."""
    part = first_run_section().split("**On a real board**", 1)[1].split("**On the virtual Pico**", 1)[0]
    return command_blocks(part)[0]
