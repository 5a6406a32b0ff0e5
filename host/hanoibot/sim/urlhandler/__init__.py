"""pyserial URL handlers of the simulator: ``sim://`` (:mod:`.protocol_sim`) and the virtual Pico's ``vpico://``
(:mod:`.protocol_vpico`). Importing this package offers both to the process
(:func:`~hanoibot.link.port_schemes.register_port_scheme`): the program that composes the parts imports it (the
command line's entry point, the pytest plugin), never the link, which knows a simulated board only through the
port's typed face (:class:`~hanoibot.link.board_port.BoardPort`)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from ...link.port_schemes import PortScheme, register_port_scheme


def _always(url: str) -> bool:
    """A ``sim://`` board runs in the process that opens it."""
    return True


def _unless_attached(url: str) -> bool:
    """A ``vpico://`` board runs in the process that opens it, unless ``attach=PATH`` names one another process
    serves."""
    return "attach" not in parse_qs(urlsplit(url).query)


def register() -> None:
    """Offer ``sim://`` and ``vpico://`` to this process (idempotent; done on import)."""
    register_port_scheme(PortScheme("sim", __name__, _always))
    register_port_scheme(PortScheme("vpico", __name__, _unless_attached))


register()
