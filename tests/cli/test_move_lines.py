"""Lines for runs of moves: the same bytes as one line per move, made once per distinct move and recurring block.

Oracle: a per-move writer (one f-string per line, padded chunk by chunk of 8 192 moves to the digits of the chunk's
last number, as ``solve`` has printed since the padding rule was set), over the plan's moves.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable

import pytest
from hanoibot.cli import main
from hanoibot.cli_support.move_lines import (
    BATCH_MOVES,
    CHUNK_MOVES,
    SHARED_RUN,
    RunStream,
    RunText,
    numbered_lines,
    width_spans,
)
from hanoibot.puzzle import PEG_LETTERS, Move
from hypothesis import given, settings
from hypothesis import strategies as st


def chunk_widths(lo: int, hi: int) -> list[int]:
    """The padding width of every move ``lo`` .. ``hi - 1``: digits of the last number of its chunk."""
    widths: list[int] = []
    for start in range(lo, hi, CHUNK_MOVES):
        last = min(start + CHUNK_MOVES, hi)
        widths += [len(str(last))] * (last - start)
    return widths


@settings(max_examples=200)
@given(lo=st.one_of(st.integers(0, 10**6), st.integers(0, 10**12)), count=st.integers(1, 300_000))
def test_width_spans_follow_the_chunk_rule(lo: int, count: int) -> None:
    widths: list[int] = []
    start = lo
    for end, width in width_spans(lo, lo + count):
        assert end > start
        widths += [width] * (end - start)
        start = end
    assert widths == chunk_widths(lo, lo + count)


def moves(count: int, offset: int = 0) -> list[Move]:
    return [Move(1 + (i + offset) % 5, i % 3, (i + 1) % 3) for i in range(count)]


@given(sizes=st.lists(st.integers(1, 3 * SHARED_RUN), max_size=40), takes=st.lists(st.integers(1, 2000), max_size=8))
def test_run_stream_hands_on_every_move_once_in_order(sizes: list[int], takes: list[int]) -> None:
    runs = [tuple(moves(size, offset)) for offset, size in enumerate(sizes)]
    everything = [move for run in runs for move in run]
    stream = RunStream(runs)
    got: list[Move] = []
    for count in [*takes, len(everything)]:
        taken = list(stream.take(count))
        assert sum(map(len, taken)) == min(count, len(everything) - len(got))
        assert all(len(run) <= max(BATCH_MOVES + SHARED_RUN, 3 * SHARED_RUN) for run in taken)
        got += [move for run in taken for move in run]
    assert got == everything


def test_long_runs_pass_whole_and_short_ones_are_batched() -> None:
    block = tuple(moves(1000))
    singles = [(move,) for move in moves(10)]
    taken = list(RunStream([*singles, block, *singles]).take(2000))
    assert [len(run) for run in taken] == [10, 1000, 10]
    assert taken[1] is block


def test_each_move_and_each_recurring_block_is_formatted_once() -> None:
    made: list[Move] = []

    def line(move: Move) -> bytes:
        made.append(move)
        return b"%d%d%d\n" % move

    text = RunText(line)
    block = tuple(moves(SHARED_RUN))
    first = text.of(block)
    assert sorted(made) == sorted(set(block))  # each distinct move once
    assert text.of(block) is first and len(made) == len(set(block))
    assert text.of(list(block)) == first and text.of(list(block)) is not first  # another object: joined again


@settings(max_examples=60)
@given(
    sizes=st.lists(st.integers(1, 600), min_size=1, max_size=30),
    lo=st.integers(0, 10**7),
    data=st.data(),
)
def test_numbered_lines_equal_one_format_per_move(sizes: list[int], lo: int, data: st.DataObject) -> None:
    runs = [tuple(moves(size, offset)) for offset, size in enumerate(sizes)]
    everything = [move for run in runs for move in run]
    count = data.draw(st.integers(0, len(everything)))
    tail: Callable[[Move], str] = lambda m: f"disk {m.disk} 100% {PEG_LETTERS[m.src]}\n"  # noqa: E731
    got = b"".join(numbered_lines(runs, lo, lo + count, "  %*d  ", tail)).decode()
    widths = chunk_widths(lo, lo + count)
    expected = "".join(
        f"  {k:>{width}}  {tail(move)}"
        for k, width, move in zip(range(lo + 1, lo + count + 1), widths, everything[:count], strict=True)
    )
    assert got == expected


def solve_output(*argv: str) -> list[str]:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    saved = sys.stdout
    sys.stdout = out
    try:
        assert main(["solve", *argv]) == 0
    finally:
        sys.stdout = saved
    out.flush()
    return out.buffer.getvalue().decode().splitlines(keepends=True)  # type: ignore[attr-defined]


CASES = [
    ["-n", "14"],
    ["-n", "15", "--start", "9000", "--limit", "20000"],
    ["-n", "20", "--start", "99000", "--limit", "9000"],
    ["-n", "64", "--start", "10000000000000000000", "--limit", "9000"],
    ["-n", "12", "--pegs", "4"],
    ["-n", "40", "--pegs", "5", "--start", "11", "--limit", "30000"],
    ["-n", "8", "--rules", "linear"],
    ["-n", "9", "--rules", "cyclic", "--from", "A", "--to", "B"],
    ["-n", "6", "--rules", "big-on-top"],
    ["-n", "10", "--method", "turing"],
    ["--from", "ACABCBABAACC", "--to", "any"],
]


@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_every_format_equals_one_line_per_move(argv: list[str]) -> None:
    plain = solve_output(*argv, "--format", "plain")
    text = solve_output(*argv, "--format", "text")
    lines = json.loads(solve_output(*argv, "--format", "json")[0])
    first, last = lines["first"], lines["last"]
    parsed = [line.split() for line in plain]
    assert len(parsed) == last - first + 1
    widths = chunk_widths(first - 1, last)
    expected_text = [
        f"  {k:>{width}}  disk {disk}  {src} -> {dst}\n"
        for k, width, (disk, src, dst) in zip(range(first, last + 1), widths, parsed, strict=True)
    ]
    expected_json = [
        f'{{"k": {k}, "disk": {disk}, "from": "{src}", "to": "{dst}"}}\n'
        for k, (disk, src, dst) in zip(range(first, last + 1), parsed, strict=True)
    ]
    assert text[1 : 1 + len(expected_text)] == expected_text
    assert solve_output(*argv, "--format", "json")[1:] == expected_json
