"""A person at a keyboard, as the human-paced tests play one: input that arrives seconds to a minute apart.

:class:`PacedCommand` starts ``hanoibot ARGS`` with its stdin a pipe or (``terminal=True``) a pty, so it asks as it
would at a terminal, writes each piece of input after its pause, and collects the output. Every wait is bounded.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from collections.abc import Sequence

from cli_runner import HANOIBOT

#: Longest a command may take beyond the pauses the test makes, in s.
BOUND_S = 90.0


class PacedCommand:
    """``hanoibot *argv`` whose input a test types with pauses; stdout and stderr captured."""

    def __init__(self, *argv: str, terminal: bool = False) -> None:
        self.terminal = terminal
        if terminal:
            self._input, child_in = pty.openpty()
        else:
            child_in, self._input = os.pipe()
        self.process = subprocess.Popen(
            [*HANOIBOT, *argv], stdin=child_in, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        os.close(child_in)
        self.out = b""

    def read_until(self, text: str, count: int = 1) -> None:
        """Read stdout until ``text`` has appeared ``count`` times (fails the test past :data:`BOUND_S`)."""
        stdout = self.process.stdout
        assert stdout is not None
        deadline_s = time.monotonic() + BOUND_S
        while self.out.count(text.encode()) < count:
            left_s = deadline_s - time.monotonic()
            assert left_s > 0, f"no {text!r} within {BOUND_S} s: {self.out.decode(errors='replace')}"
            ready, _, _ = select.select([stdout], [], [], left_s)
            chunk = os.read(stdout.fileno(), 4096) if ready else b""
            assert chunk or self.process.poll() is None, f"it ended before {text!r}: {self.finish()}"
            self.out += chunk

    def type_after(self, pause_s: float, text: str) -> None:
        """Think for ``pause_s`` s (the command waits meanwhile), then type ``text``; fails if it ended meanwhile."""
        time.sleep(pause_s)
        assert self.process.poll() is None, f"it ended while the person thought: {self.finish()}"
        os.write(self._input, text.encode())

    def play(self, script: Sequence[tuple[float, str]]) -> None:
        """Type each ``(pause_s, text)`` of ``script`` in turn."""
        for pause_s, text in script:
            self.type_after(pause_s, text)

    def finish(self) -> tuple[int | None, str, str]:
        """End of input; wait for the command to end: its exit code, stdout and stderr (all of it)."""
        if not self.terminal:
            self.close_input()
        try:
            out, err = self.process.communicate(timeout=BOUND_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
        self.out += out
        return self.process.returncode, self.out.decode(errors="replace"), err.decode(errors="replace")

    def close_input(self) -> None:
        """Close our end of the input (the command sees the end of input)."""
        if self._input >= 0:
            os.close(self._input)
            self._input = -1

    def close(self) -> None:
        """Kill the command if it still runs, and close the input."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()
        self.close_input()
