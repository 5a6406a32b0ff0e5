"""Start ``hanoibot emulate`` in its own process and talk to it: for HIL-style tests and benchmarks.

:class:`EmulatorProcess` is a context manager: it starts the emulator, reads the port path from its first line,
and on exit stops it with SIGTERM. :meth:`EmulatorProcess.replug` and :meth:`EmulatorProcess.power_cycle` send
the signals the emulator understands; :meth:`EmulatorProcess.events` reads its ``--log``.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..errors import PortError

#: How long the emulator may take to print its port path, in s.
STARTUP_S = 20.0


class EmulatorProcess:
    """``hanoibot emulate`` with a stable symlink and a log in a private temporary directory; ``startup_s`` bounds
    the wait for its port path (s; the virtual Pico boots MicroPython first)."""

    def __init__(self, *options: str, startup_s: float = STARTUP_S) -> None:
        self.options = options
        self.startup_s = startup_s
        self._dir = tempfile.TemporaryDirectory(prefix="hanoibot-emulate-")
        self.link_path = str(Path(self._dir.name) / "port")
        self.log_path = str(Path(self._dir.name) / "events.jsonl")
        self.port_path = ""
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> EmulatorProcess:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def pid(self) -> int:
        """Process id of the emulator."""
        if self._process is None:
            raise PortError("the emulator is not running: call start() first")
        return self._process.pid

    def start(self) -> None:
        """Start the emulator and wait for its first line (the port path); PortError if it does not come."""
        command = [sys.executable, "-m", "hanoibot", "emulate", "--link", self.link_path, "--log", self.log_path]
        self._process = subprocess.Popen(
            [*command, *self.options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert self._process.stdout is not None
        ready, _, _ = select.select([self._process.stdout], [], [], self.startup_s)
        line = self._process.stdout.readline().strip() if ready else ""
        if not line:
            error = self._stop()
            raise PortError(f"hanoibot emulate printed no port path within {self.startup_s:g} s: {error or 'no error'}")
        self.port_path = line

    def replug(self) -> None:
        """Pull the virtual USB cable and plug it back in (a new pty behind the same symlink)."""
        os.kill(self.pid, signal.SIGUSR1)

    def power_cycle(self) -> None:
        """Reboot the simulated board (new boot id)."""
        os.kill(self.pid, signal.SIGUSR2)

    def events(self) -> list[dict[str, Any]]:
        """Every event the emulator has logged so far."""
        try:
            text = Path(self.log_path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def executed_cmd_ids(self) -> list[int]:
        """Command ids the board reported done, in order, from the log."""
        return [event["cmd_id"] for event in self.events() if event["event"] == "executed"]

    def close(self) -> int | None:
        """Stop the emulator (SIGTERM) and return its exit code."""
        self._stop()
        code = None if self._process is None else self._process.returncode
        self._dir.cleanup()
        return code

    def _stop(self) -> str:
        """SIGTERM, wait, kill if needed; returns what it wrote on stderr."""
        process = self._process
        if process is None:
            return ""
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        _out, err = process.communicate()
        return " ".join(err.split())[-300:]
