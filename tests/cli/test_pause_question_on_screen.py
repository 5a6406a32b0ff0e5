"""After Ctrl-C, the live (rich) view of ``hanoibot run`` at a terminal leaves the pause question as the last thing
on the screen: nothing is drawn after it while the run waits for the answer (a redraw used to wipe it, and the
operator, seeing no question, pressed Ctrl-C again: stop)."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import time

from cli_runner import HANOIBOT
from hanoibot.commands.run import PAUSE_QUESTION

#: Longest the run may take to show its live view, and to ask after Ctrl-C, in s.
BOUND_S = 30.0
#: How long the screen is watched after the question appeared, in s (the live view redraws 8 times a second).
WATCH_S = 1.5
#: ANSI escape sequences (cursor moves, colours, show/hide cursor), which draw nothing themselves.
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")


def read_for(fd: int, seconds: float, until: bytes | None = None) -> bytes:
    """Bytes from ``fd`` for ``seconds`` s, or until ``until`` appears."""
    out = b""
    deadline_s = time.monotonic() + seconds
    while (left_s := deadline_s - time.monotonic()) > 0 and (until is None or until not in out):
        ready, _, _ = select.select([fd], [], [], left_s)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


def test_the_pause_question_is_the_last_thing_on_the_screen() -> None:
    terminal, child_end = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "40"}
    argv = [*HANOIBOT, "run", "-n", "5", "--port", "sim://?realtime=1"]
    process = subprocess.Popen(argv, stdin=child_end, stdout=child_end, stderr=child_end, env=env)
    os.close(child_end)
    try:
        shown = read_for(terminal, BOUND_S, until=b"move")
        assert b"move" in shown, shown  # the live view is up
        time.sleep(1.0)
        process.send_signal(signal.SIGINT)
        shown += read_for(terminal, BOUND_S, until=PAUSE_QUESTION.encode())
        assert PAUSE_QUESTION.encode() in shown, shown[-2000:]
        after = shown.split(PAUSE_QUESTION.encode())[-1] + read_for(terminal, WATCH_S)
        assert ANSI.sub(b"", after).strip() == b"", after  # nothing drawn over or below the question
        assert process.poll() is None, "the run still waits for its answer"
        os.write(terminal, b"s\n")
        read_for(terminal, BOUND_S, until=b"stopped by the operator")
        assert process.wait(timeout=BOUND_S) == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(terminal)


def test_at_a_terminal_one_key_answers_the_pause_question() -> None:
    terminal, child_end = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "40"}
    argv = [*HANOIBOT, "run", "-n", "2", "--port", "sim://?realtime=1"]
    process = subprocess.Popen(argv, stdin=child_end, stdout=child_end, stderr=child_end, env=env)
    os.close(child_end)
    try:
        shown = read_for(terminal, BOUND_S, until=b"move")
        assert b"move" in shown, shown
        process.send_signal(signal.SIGINT)
        shown += read_for(terminal, BOUND_S, until=PAUSE_QUESTION.encode())
        assert PAUSE_QUESTION.encode() in shown, shown[-2000:]
        os.write(terminal, b"c")  # the key alone: no Enter
        shown += read_for(terminal, BOUND_S, until=b"done: 3 of 3 moves")
        assert b"done: 3 of 3 moves" in shown, shown[-2000:]
        assert process.wait(timeout=BOUND_S) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(terminal)
