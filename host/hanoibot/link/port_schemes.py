"""The URL schemes this process can open beyond pyserial's own, and what each says of its board before it is open.

A package that holds pyserial URL handlers (``protocol_<scheme>.py``: the simulator's ``sim://`` and ``vpico://``,
the bus adapter's ``feetech://``) calls :func:`register_port_scheme` when it is imported; pyserial then finds its
handlers when :func:`~hanoibot.link.port.open_port` opens such a URL. The link itself imports no such package: the
program that composes the parts (the command line's entry point, the pytest plugin, a benchmark script) imports the
ones it offers. Once a port is open, what it is comes from the port itself
(:class:`~hanoibot.link.board_port.BoardPort`); this table only answers what must be known before opening it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import urlsplit

import serial


def _never(url: str) -> bool:
    """No board behind this scheme lives in the process that opens it."""
    return False


class PortScheme(NamedTuple):
    """A URL scheme: its ``name`` (``sim``), the ``package`` pyserial imports ``protocol_<name>`` from, and
    ``board_in_process(url)``: True when the board behind ``url`` lives inside the process that opens it (each such
    process then has a board of its own, so no two ever share one)."""

    name: str
    package: str
    board_in_process: Callable[[str], bool] = _never


_SCHEMES: dict[str, PortScheme] = {}


def register_port_scheme(scheme: PortScheme) -> None:
    """Offer ``scheme``'s URLs to this process (idempotent): pyserial finds its handler, :func:`scheme_of` its
    facts."""
    _SCHEMES[scheme.name.lower()] = scheme
    if scheme.package not in serial.protocol_handler_packages:
        serial.protocol_handler_packages.append(scheme.package)


def scheme_of(url: str) -> PortScheme | None:
    """The registered scheme of ``url``, or None (a device path, pyserial's own schemes, or nobody registered
    it)."""
    if "://" not in url:
        return None
    return _SCHEMES.get(urlsplit(url).scheme.lower())


def board_in_process(url: str) -> bool:
    """True when the board behind ``url`` lives inside the process that opens it (as its scheme says)."""
    scheme = scheme_of(url)
    return scheme is not None and scheme.board_in_process(url)
