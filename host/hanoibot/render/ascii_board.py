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


def disk_text(disk: int, width_chars: int) -> str:
    """One disk as ``[==3==]``, exactly ``width_chars`` wide (at least its number plus two brackets)."""
    label = str(disk)
    fill = max(width_chars - 2 - len(label), 0)
    left = fill // 2
    return "[" + "=" * left + label + "=" * (fill - left) + "]"


def render_board_ascii(
    state: State | Sequence[Sequence[int]], *, width_chars: int = DEFAULT_WIDTH_CHARS, height: int = 0
) -> str:
    """The board ``state`` (a State or per-peg stacks, bottom first) as lines of text, without a final newline.

    The pegs are drawn as tall as the tallest stack, or ``height`` disks if that is more: a live display passes
    the disk count so that the picture keeps its number of lines while the stacks change."""
    stacks = state.stacks if isinstance(state, State) else tuple(tuple(stack) for stack in state)
    n_disks = sum(len(stack) for stack in stacks)
    widths = disk_widths_chars(n_disks, len(stacks), width_chars)
    column_chars = (max(widths) if widths else 1) + GAP_CHARS
    rows = []
    tallest = max(height, *(len(stack) for stack in stacks))
    for level in range(tallest, -1, -1):  # the top row shows only peg tips
        cells = []
        for stack in stacks:
            text = disk_text(stack[level], widths[stack[level] - 1]) if level < len(stack) else PEG_CHAR
            cells.append(text.center(column_chars))
        rows.append("".join(cells).rstrip())
    rows.append(BASE_CHAR * (column_chars * len(stacks)))
    rows.append("".join(peg_letter(peg).center(column_chars) for peg in range(len(stacks))).rstrip())
    return "\n".join(rows)
