"""``hanoibot`` commands run in processes of their own, as from a terminal: shared by the end-to-end tests."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from typing import Any

#: The command line that starts hanoibot in a new process (this interpreter, so the same installation).
HANOIBOT = [sys.executable, "-m", "hanoibot"]


def hanoibot(*argv: str, timeout_s: float) -> subprocess.CompletedProcess[str]:
    """Run ``hanoibot *argv`` with no input and its output captured as text; fails the test (TimeoutExpired) past
    ``timeout_s`` s of wall time."""
    return subprocess.run(
        [*HANOIBOT, *argv], capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL
    )


#: What an armed command's process runs: hanoibot imported and the command's arguments parsed, a line saying so,
#: then the command itself once a line comes on stdin.
_ARMED = """import sys
import hanoibot.config, hanoibot.link.control, hanoibot.run.robot
from hanoibot.cli import build_parser, main
build_parser(sys.argv[1]).parse_args(sys.argv[1:])
print("armed", flush=True)
sys.stdin.readline()
sys.exit(main(sys.argv[1:]))
"""


class ArmedCommand:
    """``hanoibot *argv`` in a process of its own, started ahead and held until :meth:`fire`: its interpreter is up
    and hanoibot imported, so the command acts within milliseconds of the moment the test picks, where starting a
    process takes seconds on a loaded machine. A context manager; every wait is bounded by ``timeout_s`` (s)."""

    def __init__(self, *argv: str, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.process = subprocess.Popen(
            [sys.executable, "-c", _ARMED, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout_s)
        line = self.process.stdout.readline() if ready else ""
        if line != "armed\n":
            self.close()
            raise AssertionError(f"hanoibot {' '.join(argv)} did not get ready within {timeout_s:g} s: {line!r}")

    def __enter__(self) -> ArmedCommand:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def fire(self) -> subprocess.CompletedProcess[str]:
        """Run the command now; returns it finished (output captured as text)."""
        out, err = self.process.communicate("\n", timeout=self.timeout_s)
        return subprocess.CompletedProcess(self.process.args, self.process.returncode, out, err)

    def close(self) -> None:
        """Kill the process if it still runs (never fired, or past its bound)."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()


def ctrl_c_after_move(monkeypatch: Any, k: int) -> Any:
    """Make the in-process ``hanoibot run`` get Ctrl-C (SIGINT) the moment its view shows move ``k`` done; returns
    the view's own ``move_done``, to put back."""
    from hanoibot.cli_support import run_view

    original = run_view.RunView.move_done

    def move_done_then_ctrl_c(self: Any, done_k: int, move: Any, state: Any) -> None:
        original(self, done_k, move, state)
        if done_k == k:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(run_view.RunView, "move_done", move_done_then_ctrl_c)
    return original
