"""The link's own pyserial URL handler: ``feetech://`` (:mod:`.protocol_feetech`), Feetech bus servos on a USB
adapter driven by the firmware's board run in this process. Importing this package offers it to the process
(:func:`~hanoibot.link.port_schemes.register_port_scheme`); the program that composes the parts imports it. Like
the rest of the link it imports nothing of the simulator."""

from __future__ import annotations

from ..port_schemes import PortScheme, register_port_scheme


def register() -> None:
    """Offer ``feetech://`` to this process (idempotent; done on import)."""
    register_port_scheme(PortScheme("feetech", __name__))


register()
