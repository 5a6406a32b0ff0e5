"""The typed face of a port: what the link and the layers above may know of the far end besides its bytes.

A pyserial port carries bytes; a simulated board behind a URL handler (``sim://``, ``vpico://``) also has its own
clock, a seed for its random streams and a world of disks. :class:`BoardPort` says so in one typed place instead of
``getattr(port, "clock")`` and "the URL starts with ``sim:``": a handler implements it, :func:`board_port_of` gives
the plain face (wall clock, no simulator, the UART's byte time) to every other port.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import serial

from ..clock import Clock

#: Bits a byte takes on a UART line (start bit, 8 data bits, stop bit).
UART_BITS_PER_BYTE = 10


class DiskWorld(Protocol):
    """What a simulator's world shows of its disks (the colour report reads it)."""

    @property
    def state(self) -> object | None:
        """The disks as a puzzle state; None while one is held or has fallen off."""
        ...

    @property
    def stacks(self) -> tuple[tuple[int, ...], ...]:
        """Each peg's disks, bottom first."""
        ...


class SimulatorView(Protocol):
    """A simulated board as the host may see it beyond the wire."""

    @property
    def seed(self) -> int | None:
        """The seed of the simulator's random streams (faults, boot ids); None when unseeded. The link draws its
        own random numbers (first seq, session token) from it too, so a seeded run replays exactly."""
        ...

    @property
    def world(self) -> DiskWorld | None:
        """The arm-and-disk world the board drives, or None (a bare board)."""
        ...

    @property
    def board(self) -> Any:
        """The simulated board object itself (sim://: a SimBoard; vpico://: the VirtualPico), for tests and
        reports."""
        ...

    @property
    def dies_with_host(self) -> bool:
        """True when the simulated board lives in the host's process tree: a new host process meets a new boot."""
        ...


@runtime_checkable
class BoardPort(Protocol):
    """What the link reads of a port besides its bytes."""

    @property
    def clock(self) -> Clock | None:
        """The far end's own clock (a simulator's virtual clock), which the session then reads; None: wall time."""
        ...

    @property
    def simulator(self) -> SimulatorView | None:
        """The simulated board behind the port, or None for a real one."""
        ...

    @property
    def line_byte_s(self) -> float:
        """Seconds one byte occupies the line in each direction (0: the line is never the bottleneck)."""
        ...


class PlainPort:
    """The face of an ordinary port (a device, a pty, ``socket://``): wall time, no simulator, a UART's pace."""

    def __init__(self, baudrate: int) -> None:
        self.clock: Clock | None = None
        self.simulator: SimulatorView | None = None
        self.line_byte_s = UART_BITS_PER_BYTE / baudrate if baudrate > 0 else 0.0


def board_port_of(port: serial.SerialBase) -> BoardPort:
    """The typed face of ``port``: the port itself when its handler implements :class:`BoardPort`, else plain."""
    if isinstance(port, BoardPort):
        return port
    return PlainPort(int(port.baudrate or 0))
