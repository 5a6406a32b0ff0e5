"""pyserial URL handlers of hanoibot (``sim://``, ``vpico://``, ``feetech://``): importing this package registers
them with ``serial.protocol_handler_packages`` (the link below knows no handler; whoever opens such URLs imports
this, so the layer test sees the dependency)."""

import serial


def register() -> None:
    """Let pyserial find ``protocol_sim``, ``protocol_vpico`` and ``protocol_feetech`` here (idempotent)."""
    if __name__ not in serial.protocol_handler_packages:
        serial.protocol_handler_packages.append(__name__)


register()
