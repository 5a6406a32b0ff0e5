"""Waiting for a person without dropping the link: keys, answers to questions and confirmations, in one place.

A person answers after seconds or minutes; a board's host watchdog and the link's silence bound count in
fractions of a second. So every wait here reads the terminal (or piped input) with ``select`` and, every
:data:`ANSWER_POLL_S` s while nothing has come, calls ``keep_waiting()``: for a link, :func:`link_keeper` (it
serves heartbeats, acks and the port's control socket, so ``hanoibot estop`` from another terminal reaches the
command while it waits). A question whose answer does not parse is asked again; only the end of input, Ctrl-C or
``keep_waiting()`` returning False ends a wait.

Nothing here imports the link: a session is anything with ``poll()``, ``estop()`` and ``estop_requests``.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol, TextIO, TypeVar

#: How often a wait for a person serves the link, in s (well below the link's heartbeat period, 75 ms).
ANSWER_POLL_S = 0.02

T = TypeVar("T")


class ServedLink(Protocol):
    """What a wait needs of a link session (:class:`hanoibot.link.session.Session` is one)."""

    @property
    def estop_requests(self) -> int: ...

    def poll(self) -> None: ...

    def estop(self) -> None: ...


def link_keeper(session: ServedLink) -> Callable[[], bool]:
    """A ``keep_waiting`` for ``session``: each call serves the link once without blocking (heartbeats, acks, the
    control socket). When another process asks for an e-stop (``hanoibot estop``), the board is e-stopped and
    the latch confirmed (the asker is answered), and it returns False: the wait ends. A failed link raises."""
    seen = session.estop_requests

    def keep_waiting() -> bool:
        session.poll()
        if session.estop_requests > seen:
            session.estop()
            return False
        return True

    return keep_waiting


def never_stop() -> bool:
    """A ``keep_waiting`` that has nothing to serve."""
    return True


class Person:
    """The person at ``stdin`` (default ``sys.stdin``), asked on ``out`` (default ``sys.stdout``); every wait calls
    ``keep_waiting()`` every :data:`ANSWER_POLL_S` s until input comes (a False from it ends the wait: then
    :attr:`was_stopped` is True).

    Input is read from the file descriptor itself into one buffer that keys and lines share, so piped input
    (``1++q``, answers one per line) and a terminal behave alike and nothing waits unseen in Python's buffer."""

    def __init__(
        self,
        keep_waiting: Callable[[], bool] = never_stop,
        *,
        stdin: TextIO | None = None,
        out: TextIO | None = None,
    ) -> None:
        self.keep_waiting = keep_waiting
        self.stdin = stdin if stdin is not None else sys.stdin
        self.out = out if out is not None else sys.stdout
        self.was_stopped = False
        self._buffer = ""
        self._at_end = False
        self._after_keys = False

    @property
    def is_terminal(self) -> bool:
        """True when a person types at a terminal (else input is piped or a file)."""
        try:
            return self.stdin.isatty()
        except (AttributeError, ValueError):
            return False

    # --- reading ------------------------------------------------------------------------------------
    def _fill(self) -> bool:
        """Wait for more input, serving the link meanwhile; False at the end of input or when told to stop."""
        if self._at_end or self.was_stopped:
            return False
        try:
            fd = self.stdin.fileno()
        except (AttributeError, OSError, ValueError):  # an in-memory stream (io.StringIO): all of it is there
            self._buffer += self.stdin.read()
            self._at_end = True
            return bool(self._buffer)
        while True:
            ready, _, _ = select.select([fd], [], [], ANSWER_POLL_S)
            if ready:
                try:
                    data = os.read(fd, 1024)
                except OSError:  # EIO: the terminal closed
                    data = b""
                if not data:
                    self._at_end = True
                    return False
                self._buffer += data.decode(errors="replace")
                return True
            if not self.keep_waiting():
                self.was_stopped = True
                return False

    def read_line(self) -> str | None:
        """The next line of input without its line end; None at the end of input or when told to stop (a last
        line without a line end still counts)."""
        if self._after_keys and not self.is_terminal:
            self._after_keys = False
            while self._buffer[:1] in (" ", "\t"):
                self._buffer = self._buffer[1:]
            if self._buffer[:1] in ("\n", "\r"):  # the end of the line of keys piped before, not an answer
                self._buffer = self._buffer[2:] if self._buffer.startswith("\r\n") else self._buffer[1:]
        while "\n" not in self._buffer and "\r" not in self._buffer:
            if not self._fill():
                if self._buffer and not self.was_stopped:
                    line, self._buffer = self._buffer, ""
                    return line
                return None
        cut = min(i for i in (self._buffer.find("\n"), self._buffer.find("\r")) if i >= 0)
        line, rest = self._buffer[:cut], self._buffer[cut + 1 :]
        if self._buffer[cut] == "\r" and rest.startswith("\n"):
            rest = rest[1:]  # one line end, written CR LF
        self._buffer = rest
        return line

    def pressed_keys(self) -> Iterator[str]:
        """Keys one at a time until the end of input or a stop: on a terminal each key as it is pressed (Enter is
        ``"\\n"``; a key that sends an escape sequence, such as an arrow key, is one key: the whole sequence, never
        its letters), from piped input every character that is not white space."""
        with self._keys_mode():
            yield from self._keys()

    def _keys(self) -> Iterator[str]:
        """:meth:`pressed_keys` in whatever mode the terminal is in."""
        while True:
            while not self._buffer:
                if not self._fill():
                    return
            key, self._buffer = self._take_key()
            if self.is_terminal or not key.isspace():
                self._after_keys = True
                yield "\n" if key == "\r" else key

    def _take_key(self) -> tuple[str, str]:
        """The first key in the buffer and the rest: one character, or on a terminal a whole escape sequence
        (ESC ``[`` or ``O``, parameters, one final character in ``@``..``~``) when it has arrived with its ESC."""
        buffer = self._buffer
        if self.is_terminal and buffer[:1] == "\x1b" and buffer[1:2] in ("[", "O"):
            for end in range(2, len(buffer)):
                if "@" <= buffer[end] <= "~":
                    return buffer[: end + 1], buffer[end + 1 :]
        return buffer[0], buffer[1:]

    @contextlib.contextmanager
    def _keys_mode(self) -> Iterator[None]:
        """On a terminal, keys arrive one by one without echo of a line editor (cbreak) while inside."""
        if not self.is_terminal:
            yield
            return
        import termios
        import tty

        fd = self.stdin.fileno()
        saved = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd, termios.TCSANOW)  # not the default TCSAFLUSH: a key typed already stays
            yield
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    # --- asking -------------------------------------------------------------------------------------
    def say(self, text: str, *, end: str = "\n") -> None:
        """Show ``text`` to the person."""
        print(text, end=end, file=self.out, flush=True)

    def ask(self, question: str, parse: Callable[[str], T]) -> T | None:
        """Ask ``question`` until the answer parses: ``parse(answer)`` returns the value or raises ValueError
        with why it does not (shown, then the question again). None at the end of input or when told to stop."""
        while True:
            self.say(question, end="")
            answer = self.read_line()
            if answer is None:
                if not self.was_stopped:
                    self.say("")  # end the question's line
                return None
            try:
                return parse(answer.strip())
            except ValueError as err:
                self.say(f"{answer.strip()!r}: {err}; try again")

    def choose(self, question: str, answers: Mapping[str, T]) -> T | None:
        """Ask ``question`` until one of ``answers`` (answer -> value; answers in lower case) comes: on a terminal a
        single key press answers, without Enter (Enter and space are passed over); from piped input a line (a key
        or a whole word). Anything else says what is expected and asks again. None at the end of input, when told
        to stop, or at Ctrl-C (KeyboardInterrupt is the caller's)."""
        expected = " or ".join(sorted((a for a in answers if len(a) == 1), key=list(answers).index)) or "an answer"
        while True:
            if self.is_terminal:
                with self._keys_mode():  # before the question: a key typed at once must not wait for Enter
                    self.say(question, end="")
                    answer = next((key for key in self._keys() if not key.isspace()), None)
            else:
                self.say(question, end="")
                answer = self.read_line()
            if answer is None:
                if not self.was_stopped:
                    self.say("")  # end the question's line
                return None
            if self.is_terminal:
                self.say(answer if answer.isprintable() else "")  # the key pressed, and the line ended
            value = answers.get(answer.strip().lower())
            if value is not None:
                return value
            self.say(f"{answer.strip()!r} is not an answer: press {expected}")

    def confirm(self, prompt: str) -> bool:
        """Show ``prompt`` and wait for Enter; False at the end of input or when told to stop."""
        self.say(prompt, end=" ")
        return self.read_line() is not None


def read_line_while(keep_waiting: Callable[[], bool], stdin: TextIO | None = None) -> str | None:
    """A line from ``stdin`` (without its line end), calling ``keep_waiting()`` every :data:`ANSWER_POLL_S` s until
    it comes; None as soon as ``keep_waiting()`` returns False, EOFError at the end of input."""
    person = Person(keep_waiting, stdin=stdin)
    line = person.read_line()
    if line is None and not person.was_stopped:
        raise EOFError
    return line


def person_asker(session: ServedLink) -> Callable[[str], str | None]:
    """A question-asker for the person at the terminal that serves ``session`` while waiting: each call shows the
    question and returns the answer line (None at the end of input or after an e-stop from another process)."""
    person = Person(link_keeper(session))
    return lambda question: person.ask(question, str)
