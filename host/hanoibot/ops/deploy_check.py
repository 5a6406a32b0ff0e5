"""The board's side of ``hanoibot deploy``: holding its port while the files change, and the HELLO that shows the
new firmware runs."""

from __future__ import annotations

from ..link.port_lock import PortLock
from ..link.session import Session


def hold_port(port: str) -> PortLock:
    """The lock of ``port``, to hold (``with``) while the board's files change: no run may use the board meanwhile.
    Entering it raises PortBusy naming the holder."""
    return PortLock(port)


def hello_boot_id(port: str) -> str:
    """Shake hands with the firmware on ``port`` (SYNC until its HELLO) and let go again; the boot id it sent.
    PortError, PortBusy or ProtocolMismatch when it does not answer so (still rebooting, another program on it)."""
    with Session(port) as session:
        return session.boot_id
