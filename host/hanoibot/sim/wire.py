"""The simulated serial cable: a :class:`~hanoibot.sim.board.SimBoard` seen through fault injection.

Both ``sim://`` ports and ``hanoibot emulate`` talk to the board through a :class:`FaultyWire`, so the faults a
test asks for behave the same in-process and over a pseudo-terminal. ``reset_after=K`` reboots the board once,
right after the K-th frame (line) has reached it.
"""

from __future__ import annotations

from .board import SimBoard
from .faults import ByteFaults, FaultListener, FaultSpec


class FaultyWire:
    """Host-side view of a board: :meth:`write` toward it, :meth:`read` what came back, faults in between."""

    def __init__(self, board: SimBoard, spec: FaultSpec | None = None) -> None:
        self.board = board
        self.spec = spec if spec is not None else FaultSpec()
        self._to_board = ByteFaults(self.spec, stream="to_board", listener=self._listener("to_board"))
        self._to_host = ByteFaults(self.spec, stream="to_host", listener=self._listener("to_host"))
        self._frames_left = self.spec.reset_after

    def write(self, data: bytes) -> None:
        """Send ``data`` from the host toward the board."""
        data = self._to_board.apply(data)
        if self._frames_left is None:
            self.board.feed(data)
            return
        # Feed line by line so the reboot lands exactly after the K-th frame.
        for line in data.splitlines(keepends=True):
            self.board.feed(line)
            if line.endswith(b"\n") and self._frames_left is not None:
                self._frames_left -= 1
                if self._frames_left == 0:
                    self.board.step()
                    self.board.reset("reset_after")
                    self._frames_left = None

    def read(self) -> bytes:
        """What the board has sent since the last call, after the faults toward the host."""
        data = self.board.take_output()
        return self._to_host.apply(data) if data else data

    def fault_counts(self) -> dict[str, dict[str, int]]:
        """How many faults were injected so far, per direction and kind."""
        return {"to_board": dict(self._to_board.counts), "to_host": dict(self._to_host.counts)}

    def _listener(self, direction: str) -> FaultListener:
        """A callback that logs each injected fault as a board event."""

        def listener(kind: str, number: int) -> None:
            self.board.log("injected", fault=kind, direction=direction, count=number)

        return listener
