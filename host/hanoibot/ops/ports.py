"""The URL schemes a hanoibot program opens beyond pyserial's own, offered in one call by whoever composes the
program (the command line for a command with ``--port``, the pytest plugin): the simulator's ``sim://`` and
``vpico://`` (:mod:`hanoibot.sim.urlhandler`) and the bus adapter's ``feetech://``
(:mod:`hanoibot.link.urlhandler`). The link, which opens every port, imports neither: it finds them in its table
of schemes (:mod:`hanoibot.link.port_schemes`), and once a port is open the port itself says whether a simulated
board is behind it (:attr:`hanoibot.link.board_port.BoardPort.simulator`).
"""

from __future__ import annotations

from ..link import urlhandler as adapter_schemes
from ..sim import urlhandler as simulator_schemes


def offer_port_schemes() -> None:
    """Offer ``sim://``, ``vpico://`` and ``feetech://`` to this process (idempotent)."""
    adapter_schemes.register()
    simulator_schemes.register()
