"""The board as plain text: pegs, disks drawn with visible widths and their numbers, peg letters underneath.

Example (3 disks on A)::

       |       |       |
      [1]      |       |
     [=2=]     |       |
    [==3==]    |       |
    ------------------------
       A       B       C

Each disk is ``[``, its number centred in ``=``, ``]``, wider for larger disks. The picture is at most
``width_chars`` wide (80 by default): when the natural widths do not fit, the disks are narrowed (but never
below what their number needs), so 8 disks fit 80 columns on up to 8 pegs.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..puzzle import State, peg_letter
from ..puzzle.colours import COLOUR_LETTERS

#: Widest picture, in characters (a classic terminal).
DEFAULT_WIDTH_CHARS = 80
#: Blank characters between the widest disks of two neighbouring pegs.
GAP_CHARS = 1
PEG_CHAR = "|"
BASE_CHAR = "-"


def _odd_at_least(value: int, minimum: int) -> int:
    """The smallest odd number that is at least ``value`` and ``minimum``."""
    value = max(value, minimum)
    return value if value % 2 else value + 1


def disk_widths_chars(n_disks: int, pegs: int, width_chars: int = DEFAULT_WIDTH_CHARS) -> list[int]:
    """Drawn width (characters, odd) of disks 1..n_disks so that ``pegs`` columns fit ``width_chars``."""
    natural = [2 * disk + 1 for disk in range(1, n_disks + 1)]
    widest = max(width_chars // pegs - GAP_CHARS, 3)
    if widest % 2 == 0:
        widest -= 1
    if not natural or natural[-1] <= widest:
        return natural
    return [_odd_at_least(round(widest * disk / n_disks), len(str(disk)) + 2) for disk in range(1, n_disks + 1)]


def disk_text(disk: int, width_chars: int, label: str | None = None) -> str:
    """One disk as ``[==3==]`` (its number, or ``label``), exactly ``width_chars`` wide (at least the label plus
    two brackets)."""
    label = str(disk) if label is None else label
    fill = max(width_chars - 2 - len(label), 0)
    left = fill // 2
    return "[" + "=" * left + label + "=" * (fill - left) + "]"


def coloured_label(disk: int, per_size: int) -> str:
    """A coloured set's disk as its size and colour letter: disk 4 of 2 per size is ``2g``."""
    return f"{(disk - 1) // per_size + 1}{COLOUR_LETTERS[(disk - 1) % per_size]}"


def render_board_ascii(
    state: State | Sequence[Sequence[int]],
    *,
    width_chars: int = DEFAULT_WIDTH_CHARS,
    height: int = 0,
    per_size: int = 1,
) -> str:
    """The board ``state`` (a State or per-peg stacks, bottom first) as lines of text, without a final newline.

    The pegs are drawn as tall as the tallest stack, or ``height`` disks if that is more: a live display passes
    the disk count so that the picture keeps its number of lines while the stacks change. ``per_size`` > 1 draws
    a coloured set (disks numbered size first, :mod:`hanoibot.puzzle.colours`): each disk as wide as its size and
    labelled with its size and colour letter, ``[=2g=]``."""
    stacks = state.stacks if isinstance(state, State) else tuple(tuple(stack) for stack in state)
    n_disks = sum(len(stack) for stack in stacks)
    if per_size > 1:
        # One more size than there are, so the smallest disk's two-character label fits: [1r] -> [=1r=].
        by_size = disk_widths_chars(-(-n_disks // per_size) + 1, len(stacks), width_chars)[1:]
        widths = [by_size[(disk - 1) // per_size] for disk in range(1, n_disks + 1)]
        labels = [coloured_label(disk, per_size) for disk in range(1, n_disks + 1)]
    else:
        widths = disk_widths_chars(n_disks, len(stacks), width_chars)
        labels = [str(disk) for disk in range(1, n_disks + 1)]
    column_chars = (max(widths) if widths else 1) + GAP_CHARS
    rows = []
    tallest = max(height, *(len(stack) for stack in stacks))
    for level in range(tallest, -1, -1):  # the top row shows only peg tips
        cells = []
        for stack in stacks:
            if level < len(stack):
                text = disk_text(stack[level], widths[stack[level] - 1], labels[stack[level] - 1])
            else:
                text = PEG_CHAR
            cells.append(text.center(column_chars))
        rows.append("".join(cells).rstrip())
    rows.append(BASE_CHAR * (column_chars * len(stacks)))
    rows.append("".join(peg_letter(peg).center(column_chars) for peg in range(len(stacks))).rstrip())
    return "\n".join(rows)
