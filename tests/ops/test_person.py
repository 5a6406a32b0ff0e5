"""``ops/person.py``: every wait for a person serves the link until input comes; a typo asks again."""

from __future__ import annotations

import contextlib
import io
import os
import threading
import time
from collections.abc import Iterator

import pytest
from hanoibot.ops.person import ANSWER_POLL_S, Person, link_keeper


@pytest.fixture
def pipe() -> Iterator[tuple[io.TextIOWrapper, int]]:
    """A stdin whose input the test writes (the read end as a text file, the write end's descriptor)."""
    read_fd, write_fd = os.pipe()
    stdin = os.fdopen(read_fd, "r")
    try:
        yield stdin, write_fd
    finally:
        stdin.close()
        with contextlib.suppress(OSError):
            os.close(write_fd)


def later(write_fd: int, delay_s: float, data: bytes, *, close: bool = False) -> threading.Thread:
    """Write ``data`` after ``delay_s`` s (and close the pipe) in a thread."""

    def write() -> None:
        time.sleep(delay_s)
        os.write(write_fd, data)
        if close:
            os.close(write_fd)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


class CountingLink:
    """A session stand-in: counts polls; an e-stop request arrives at poll number ``estop_at``."""

    def __init__(self, estop_at: int | None = None) -> None:
        self.polls = 0
        self.estops = 0
        self.estop_requests = 0
        self.estop_at = estop_at

    def poll(self) -> None:
        self.polls += 1
        if self.polls == self.estop_at:
            self.estop_requests += 1

    def estop(self) -> None:
        self.estops += 1


def test_the_link_is_served_all_the_while_an_answer_takes(pipe: tuple[io.TextIOWrapper, int]) -> None:
    stdin, write_fd = pipe
    link = CountingLink()
    person = Person(link_keeper(link), stdin=stdin, out=io.StringIO())
    wait_s = 0.6
    later(write_fd, wait_s, b"c\n")
    began_s = time.monotonic()
    assert person.ask("continue? ", str) == "c"
    took_s = time.monotonic() - began_s
    assert took_s >= wait_s - 0.05  # the writer thread started a moment before the clock was read
    # Served every poll period while waiting (a loaded machine may serve less often, never not at all).
    assert link.polls >= wait_s / ANSWER_POLL_S / 4


def test_a_typo_asks_again_and_the_next_answer_counts(pipe: tuple[io.TextIOWrapper, int]) -> None:
    stdin, write_fd = pipe
    out = io.StringIO()
    person = Person(stdin=stdin, out=out)
    later(write_fd, 0.05, b"X\n2\n")
    assert person.ask("which peg? ", lambda answer: int(answer)) == 2
    assert out.getvalue().count("which peg? ") == 2 and "try again" in out.getvalue()


def test_keys_come_one_at_a_time_and_a_line_after_them_is_the_next_answer(pipe: tuple[io.TextIOWrapper, int]) -> None:
    stdin, write_fd = pipe
    person = Person(stdin=stdin, out=io.StringIO())
    later(write_fd, 0.05, b"x+ s\nskip\n", close=True)
    keys = person.pressed_keys()
    assert [next(keys) for _ in range(3)] == ["x", "+", "s"]
    assert person.read_line() == "skip"
    assert person.read_line() is None  # the end of input


def test_an_estop_from_another_process_ends_the_wait_and_latches_the_board(
    pipe: tuple[io.TextIOWrapper, int],
) -> None:
    stdin, _write_fd = pipe
    link = CountingLink(estop_at=5)
    person = Person(link_keeper(link), stdin=stdin, out=io.StringIO())
    assert list(person.pressed_keys()) == []
    assert person.was_stopped and link.estops == 1 and link.polls == 5


def test_an_in_memory_stdin_is_read_whole() -> None:
    person = Person(stdin=io.StringIO("1+\n\n"), out=io.StringIO())
    keys = person.pressed_keys()
    assert [next(keys), next(keys)] == ["1", "+"]
    assert person.read_line() == ""  # the second, empty line: Enter
    assert person.read_line() is None


@pytest.fixture
def terminal() -> Iterator[tuple[io.TextIOWrapper, int]]:
    """A stdin that is a terminal (a pty's child end, as a text file) and the descriptor a test types into."""
    import pty

    typing_fd, child_fd = pty.openpty()
    stdin = os.fdopen(child_fd, "r")
    try:
        yield stdin, typing_fd
    finally:
        stdin.close()
        os.close(typing_fd)


def test_at_a_terminal_one_key_answers_a_choice_without_enter(terminal: tuple[io.TextIOWrapper, int]) -> None:
    stdin, typing_fd = terminal
    out = io.StringIO()
    person = Person(stdin=stdin, out=out)
    os.write(typing_fd, b"x")  # typed at once, before the question: kept, not flushed; not an answer: asked again
    later(typing_fd, 0.3, b"c")  # no Enter after it
    answer: list[object] = []
    asking = threading.Thread(target=lambda: answer.append(person.choose("go on? ", {"c": True, "s": False})))
    asking.start()
    asking.join(timeout=5.0)
    assert answer == [True], out.getvalue()
    assert "'x' is not an answer: press c or s" in out.getvalue() and out.getvalue().count("go on? ") == 2


def test_piped_input_answers_a_choice_with_a_line(pipe: tuple[io.TextIOWrapper, int]) -> None:
    stdin, write_fd = pipe
    person = Person(stdin=stdin, out=io.StringIO())
    later(write_fd, 0.05, b"stop\n")
    assert person.choose("go on? ", {"c": True, "s": False, "continue": True, "stop": False}) is False


def test_an_arrow_key_at_a_terminal_is_one_key_not_its_letters(terminal: tuple[io.TextIOWrapper, int]) -> None:
    stdin, typing_fd = terminal
    person = Person(stdin=stdin, out=io.StringIO())
    later(typing_fd, 0.05, b"\x1b[A1")  # the up arrow, then 1: never "[" (halve the step) and "A" (go to peg A)
    keys = person.pressed_keys()
    assert [next(keys), next(keys)] == ["\x1b[A", "1"]
    keys.close()
