"""The twin-tower lock as text: button numbers over colour letters, the split marked, presses counted.

Example (a 5-element lock, split at button 3 after two presses)::

    button   1  2  3  4  5
    colour   R  Y  G  G  R      presses 2
    tower    3  2 (1) 2  3      split at 3

With ``colour`` the letters are rich markup on their colour (print them with a rich Console).
"""

from __future__ import annotations

from ..puzzle.lock import COLOUR_NAMES, COLOURS, Lock

#: rich styles of red, yellow and green elements.
STYLES = ("bold white on red", "bold black on yellow", "bold white on green")


def lock_lines(lock: Lock, presses: int, *, colour: bool = False) -> list[str]:
    """The lines that show ``lock``: buttons, colours (rich markup when ``colour``), and the towers once split."""
    width = max(4, len(str(lock.length)) + 2)
    buttons = "".join(f"{b:>{width}}" for b in range(1, lock.length + 1))
    if colour:
        cells = "".join(" " * (width - 2) + f"[{STYLES[p]}] {COLOURS[p]}[/]" for p in lock.pegs)
    else:
        cells = "".join(f"{COLOURS[p]:>{width}}" for p in lock.pegs)
    lines = [f"button {buttons}", f"colour {cells}      presses {presses}"]
    if lock.split is not None:
        disks = [abs(i - lock.split) + 1 for i in range(lock.length)]
        marks = "".join(f"{'(1)':>{width}}" if i == lock.split else f"{d:>{width}}" for i, d in enumerate(disks))
        lines.append(f"tower  {marks}      split at {lock.split + 1}")
    return lines


def describe_press(before: Lock, after: Lock, button: int) -> str:
    """One line saying what a press did, e.g. ``button 3: red -> yellow`` or ``button 4: nothing changed``."""
    index = button - 1
    prefix = f"button {button}"
    if before.split is None:
        prefix += f" (split: towers {button}..1 and {button}..{after.length})"
    old, new = before.pegs[index], after.pegs[index]
    if old == new:
        return f"{prefix}: nothing changed"
    return f"{prefix}: {COLOUR_NAMES[old]} -> {COLOUR_NAMES[new]}"
