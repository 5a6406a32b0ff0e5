"""The ASCII board: read the picture back and check it shows every disk, in order, at its visible width."""

from __future__ import annotations

import re

from hanoibot.puzzle import State
from hanoibot.render.ascii_board import disk_text, render_board_ascii
from hypothesis import given
from hypothesis import strategies as st

DISK = re.compile(r"\[=*(\d+)=*\]")


@st.composite
def boards(draw: st.DrawFn, max_disks: int = 8, max_pegs: int = 8) -> State:
    """Any state, irregular stacks included, of 1..max_disks disks on 3..max_pegs pegs."""
    pegs = draw(st.integers(3, max_pegs))
    n = draw(st.integers(1, max_disks))
    where = draw(st.lists(st.integers(0, pegs - 1), min_size=n, max_size=n))
    stacks = [draw(st.permutations([d for d in range(1, n + 1) if where[d - 1] == p])) for p in range(pegs)]
    return State(stacks)


def read_back(picture: str) -> tuple[list[list[int]], dict[int, int]]:
    """Stacks (bottom first) and each disk's drawn width, recovered from the text alone."""
    lines = picture.split("\n")
    letters = lines[-1]
    centres = [i for i, c in enumerate(letters) if c.isalpha()]
    assert set(lines[-2]) == {"-"}, "the line above the letters is the board"
    stacks: list[list[int]] = [[] for _ in centres]
    widths: dict[int, int] = {}
    for line in reversed(lines[:-2]):
        for match in DISK.finditer(line):
            centre = (match.start() + match.end() - 1) / 2
            assert centre in centres, f"disk {match.group(1)} is not centred on a peg"
            stacks[centres.index(int(centre))].append(int(match.group(1)))
            widths[int(match.group(1))] = match.end() - match.start()
        for centre in centres:
            assert centre < len(line), "every row draws every peg"
    return stacks, widths


@given(boards())
def test_the_picture_shows_every_disk_on_its_peg_in_order(state: State) -> None:
    stacks, _ = read_back(render_board_ascii(state))
    assert State(stacks) == state


@given(boards())
def test_up_to_8_disks_on_up_to_8_pegs_fit_80_columns(state: State) -> None:
    assert max(len(line) for line in render_board_ascii(state).split("\n")) <= 80


@given(boards(max_pegs=4))
def test_on_4_pegs_a_larger_disk_is_always_drawn_wider(state: State) -> None:
    _, widths = read_back(render_board_ascii(state))
    ordered = [widths[d] for d in sorted(widths)]
    assert ordered == sorted(set(ordered))


@given(boards(max_disks=8, max_pegs=12))
def test_on_many_pegs_a_larger_disk_is_never_drawn_narrower(state: State) -> None:
    _, widths = read_back(render_board_ascii(state))
    ordered = [widths[d] for d in sorted(widths)]
    assert ordered == sorted(ordered)


def test_an_empty_peg_is_a_bare_post_and_the_letters_name_the_pegs() -> None:
    lines = render_board_ascii(State.tower(2, peg=2, pegs=4)).split("\n")
    assert lines[-1].split() == ["A", "B", "C", "D"]
    a_column = lines[-1].index("A")
    assert {line[a_column] for line in lines[:-2]} == {"|"}


@given(st.integers(1, 99), st.integers(0, 20))
def test_a_disk_is_its_number_in_brackets_at_the_asked_width(disk: int, extra: int) -> None:
    width = len(str(disk)) + 2 + extra
    text = disk_text(disk, width)
    assert len(text) == width
    assert DISK.fullmatch(text) and int(DISK.fullmatch(text).group(1)) == disk  # type: ignore[union-attr]


def test_height_keeps_the_number_of_lines() -> None:
    tall = render_board_ascii(State.tower(3)).splitlines()
    low = render_board_ascii(State.parse("ABC"), height=3).splitlines()
    assert len(low) == len(tall) == 6
    assert len(render_board_ascii(State.parse("ABC")).splitlines()) == 4


def test_a_coloured_set_shows_size_and_colour_letter_at_the_width_of_its_size() -> None:
    picture = render_board_ascii(State([[5, 1], [6, 3, 2], [4]]), per_size=2)  # 1, 2 size 1; 3, 4 size 2; 5, 6 size 3
    labels = re.findall(r"\[=*(\d[rgb])=*\]", picture)
    assert sorted(labels) == ["1g", "1r", "2g", "2r", "3g", "3r"]
    widths = {m.group(1): len(m.group(0)) for m in re.finditer(r"\[=*(\d[rgb])=*\]", picture)}
    assert widths["1r"] == widths["1g"] < widths["2r"] == widths["2g"] < widths["3r"] == widths["3g"]
    rows = picture.splitlines()
    assert "3r" in rows[-3] and "3g" in rows[-3] and "2g" in rows[-3], "bottom row: A's 5 (3r), B's 6 (3g), C's 4 (2g)"
