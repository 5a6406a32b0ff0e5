"""What the ``sim://`` and ``vpico://`` ports share: their options, a receive buffer, no modem lines or line
settings, and the typed face the link reads (:class:`~hanoibot.link.board_port.BoardPort`): a simulator view
with the URL's seed and the board's world.
"""

from __future__ import annotations

from typing import Any

from serial.serialutil import SerialBase, SerialException

from ...clock import Clock
from ...link.board_port import DiskWorld, SimulatorView
from ...sim_url import SimSpec, parse_spec


class SimulatedPort(SerialBase):
    """A pyserial port with a simulated board at the far end (a subclass makes the board and moves bytes).

    Implements :class:`~hanoibot.link.board_port.BoardPort` and, as its own ``simulator``, the
    :class:`~hanoibot.link.board_port.SimulatorView`.
    """

    scheme = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.spec = SimSpec(self.scheme)
        self._rx = bytearray()
        super().__init__(*args, **kwargs)

    # --- BoardPort / SimulatorView -------------------------------------------------------------------
    @property
    def clock(self) -> Clock | None:
        """The simulator's own clock, or None when it runs in wall-clock time."""
        return None

    @property
    def simulator(self) -> SimulatorView:
        """This port: it is the simulator's view too."""
        return self

    @property
    def line_byte_s(self) -> float:
        """A simulated wire never makes bytes wait on the line."""
        return 0.0

    @property
    def seed(self) -> int | None:
        """The URL's seed (None when unseeded)."""
        return self.spec.seed

    @property
    def world(self) -> DiskWorld | None:
        """The simulated arm and disks, or None (a bare board, or before the first open)."""
        return None

    @property
    def board(self) -> Any:
        """The simulated board object."""
        return None

    @property
    def dies_with_host(self) -> bool:
        """A simulated board lives in the host's process tree: a new host process meets a new boot."""
        return True

    # --- SerialBase ----------------------------------------------------------------------------------
    def _parse_url(self) -> SimSpec:
        """Check the URL before the first open (the one place a subclass's ``open`` reads it)."""
        if self.is_open:
            raise SerialException(f"{self.scheme}:// port is already open")
        if self._port is None:
            raise SerialException(f"{self.scheme}:// port must be configured before it is opened")
        self.spec = parse_spec(self._port, self.scheme)
        return self.spec

    def close(self) -> None:
        """Unplug the cable (the board keeps running and stays readable)."""
        self.is_open = False

    def _reconfigure_port(self, force_update: bool = False) -> None:
        """Baud rate and framing mean nothing to a simulated wire."""

    def _update_dtr_state(self) -> None:
        """No modem lines on a simulated wire."""

    def _update_rts_state(self) -> None:
        """No modem lines on a simulated wire."""

    def _update_break_state(self) -> None:
        """No break condition on a simulated wire."""

    @property
    def in_waiting(self) -> int:
        """Bytes that can be read at once."""
        self._pump()
        return len(self._rx)

    def reset_input_buffer(self) -> None:
        """Forget what the board sent and nobody read yet."""
        self._pump()
        self._rx.clear()

    def reset_output_buffer(self) -> None:
        """Nothing sent can be taken back."""

    def _take(self, size: int) -> bytes:
        """Up to ``size`` bytes from the receive buffer."""
        data = bytes(self._rx[:size])
        del self._rx[:size]
        return data

    def _pump(self) -> None:
        """Collect what the board sent (a subclass runs its board here)."""
