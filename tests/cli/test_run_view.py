"""Tests for the run progress view: plain lines when piped, rich live display on a terminal, ETA arithmetic."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator

import pytest
from hanoibot.cli_support.run_view import RunView, format_duration_s
from hanoibot.puzzle import Move, State
from hypothesis import given
from hypothesis import strategies as st


class Clock:
    def __init__(self) -> None:
        self.t_s = 100.0

    def now_s(self) -> float:
        return self.t_s


@given(st.integers(min_value=0, max_value=10**6))
def test_durations_read_as_hours_minutes_seconds(seconds: int) -> None:
    h, m, s = (int(part) for part in format_duration_s(seconds).split(":"))
    assert h * 3600 + m * 60 + s == seconds and m < 60 and s < 60


def test_unknown_duration() -> None:
    assert format_duration_s(None) == "-:--:--"


def test_plain_lines_and_eta_from_the_measured_cycle_time() -> None:
    clock, out = Clock(), io.StringIO()
    view = RunView(7, State.tower(3), clock.now_s, live=False, out=out)
    with view:
        assert view.eta_s() is None
        clock.t_s += 4.0
        view.move_done(0, Move(1, 0, 2), State.parse("CAA"))
        clock.t_s += 2.0
        view.move_done(1, Move(2, 0, 1), State.parse("CBA"))
    assert view.eta_s() == 3.0 * 5, "6 s for 2 moves, 5 to go"
    lines = out.getvalue().splitlines()
    assert lines[0] == "run: 7 moves from AAA"
    assert lines[1] == "move 1 of 7: disk 1 A -> C  elapsed 0:00:04  eta 0:00:24"
    assert lines[2] == "move 2 of 7: disk 2 A -> B  elapsed 0:00:06  eta 0:00:15"


def test_a_resumed_run_counts_its_cycle_time_from_where_it_started() -> None:
    clock = Clock()
    view = RunView(10, State.tower(3), clock.now_s, first_k=6, live=False, out=io.StringIO())
    clock.t_s += 5.0
    view.move_done(6, Move(1, 0, 2), State.parse("CAA"))
    assert view.done == 7 and view.eta_s() == 5.0 * 3


def test_on_a_terminal_the_live_view_shows_the_bar_and_the_board() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    clock, out = Clock(), Tty()
    with RunView(3, State.tower(2), clock.now_s, out=out) as view:
        assert view.live
        clock.t_s += 3.0
        view.move_done(0, Move(1, 0, 1), State.parse("BA"))
    text = out.getvalue()
    assert "1/3" in text and "disk 1 A → B" in text and "[1]" in text, text[-400:]


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_pause_question_keeps_its_keys_on_the_live_display(monkeypatch: pytest.MonkeyPatch) -> None:
    from hanoibot.commands.run import PAUSE_QUESTION

    monkeypatch.setattr("builtins.input", lambda *prompt: "c")
    out = Tty()
    with RunView(3, State.tower(2), Clock().now_s, out=out) as view:
        assert view.ask(PAUSE_QUESTION) == "c"
    assert "[c]ontinue or [s]top?" in out.getvalue()


def test_the_live_board_keeps_its_height_while_the_stacks_change() -> None:
    from rich.console import Console

    clock = Clock()
    heights = []
    with RunView(3, State.tower(2), clock.now_s, out=Tty()) as view:
        for k, (move, after) in enumerate([(Move(1, 0, 1), "BA"), (Move(2, 0, 2), "BC"), (Move(1, 1, 2), "CC")]):
            view.move_done(k, move, State.parse(after))
            console = Console(file=io.StringIO(), width=100)
            heights.append(len(console.render_lines(view._live.renderable, pad=False)))
    assert len(set(heights)) == 1, heights


def test_time_is_labelled_and_pauses_do_not_count_toward_the_eta() -> None:
    clock, out = Clock(), io.StringIO()
    with RunView(4, State.tower(2), clock.now_s, live=False, out=out, simulated=True) as view:
        clock.t_s += 2.0
        view.move_done(0, Move(1, 0, 1), State.parse("BA"))
        with view.paused():
            clock.t_s += 600.0
        clock.t_s += 2.0
        view.move_done(1, Move(2, 0, 2), State.parse("BC"))
    assert view.eta_s() == 2.0 * 2, "4 s of work for 2 moves, 2 to go; the 600 s pause does not count"
    lines = out.getvalue().splitlines()
    assert "times are simulated" in lines[0]
    assert "simulated time 0:10:04" in lines[2] and "eta 0:00:04" in lines[2]


def test_a_coloured_run_names_and_draws_each_disk_by_size_and_colour() -> None:
    clock = Clock()
    plain_out = io.StringIO()
    with RunView(3, State([[5, 4, 1], [6, 3, 2], []]), clock.now_s, out=plain_out, per_size=2) as view:
        view.move_done(0, Move(1, 0, 1), State([[5, 4], [6, 3, 2, 1], []]))
        view.move_done(1, Move(4, 0, 2), State([[5], [6, 3, 2, 1], [4]]))
    assert "disk 1 (1 red) A -> B" in plain_out.getvalue() and "disk 4 (2 green) A -> C" in plain_out.getvalue()
    out = Tty()
    with RunView(3, State([[5, 4, 1], [6, 3, 2], []]), clock.now_s, out=out, per_size=2) as view:
        view.move_done(0, Move(1, 0, 2), State([[5, 4], [6, 3, 2], [1]]))
    text = out.getvalue()
    assert "disk 1 (1 red) A → C" in text and "1r" in text and "3g" in text, text[-400:]


@pytest.fixture
def stdin_pipe(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """stdin read from a pipe; yields the end the test writes to."""
    read_end, write_end = os.pipe()
    monkeypatch.setattr("sys.stdin", os.fdopen(read_end, "r"))
    yield write_end
    with contextlib.suppress(OSError):
        os.close(write_end)


def test_a_question_serves_the_caller_until_its_answer_comes(stdin_pipe: int) -> None:
    calls: list[int] = []

    def keep_waiting() -> bool:
        calls.append(1)
        if len(calls) == 3:
            os.write(stdin_pipe, b"c\n")  # the operator answers while the link is being served
        return True

    out = io.StringIO()
    with RunView(3, State.tower(2), Clock().now_s, live=False, out=out) as view:
        assert view.ask("continue? ", keep_waiting) == "c"
    assert len(calls) == 3 and out.getvalue().endswith("\ncontinue? ")


def test_a_question_is_dropped_when_the_caller_stops_waiting_and_ends_at_end_of_input(stdin_pipe: int) -> None:
    calls: list[int] = []

    def keep_waiting() -> bool:
        calls.append(1)
        return len(calls) < 5  # e.g. an e-stop from another process ended the run meanwhile

    with RunView(3, State.tower(2), Clock().now_s, live=False, out=io.StringIO()) as view:
        assert view.ask("continue? ", keep_waiting) is None
        assert len(calls) == 5
        os.close(stdin_pipe)
        with pytest.raises(EOFError):
            view.ask("continue? ", lambda: True)
