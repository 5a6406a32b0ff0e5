"""This machine's network names and addresses: the hosts the console answers to, and the URLs it prints.

Bound to a loopback address the console answers only to loopback names; bound elsewhere, only to this machine's
own names and addresses (so a page of another site cannot reach it through a DNS name that it points at us: DNS
rebinding). Interface addresses come from the kernel (``SIOCGIFADDR`` per interface, ``/proc/net/if_inet6``) on
Linux, else from resolving the host name.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import struct
from pathlib import Path

from .guard import is_loopback

#: The names and addresses of the loopback interface as a Host header spells them (IPv6 in brackets).
LOOPBACK_HOSTS: tuple[str, ...] = ("localhost", "127.0.0.1", "[::1]")
#: ioctl that reads an interface's IPv4 address (Linux, <linux/sockios.h>).
_SIOCGIFADDR = 0x8915
_IF_INET6 = Path("/proc/net/if_inet6")


def host_text(address: str) -> str:
    """``address`` as it stands in a URL or Host header: an IPv6 address in brackets, anything else as it is."""
    return f"[{address}]" if ":" in address else address


def _ipv4_of(sock: socket.socket, interface: str) -> str | None:
    """The IPv4 address of ``interface``, or None when it has none."""
    try:
        import fcntl  # POSIX only: elsewhere the host name's addresses stand in
    except ImportError:
        return None
    request = struct.pack("256s", interface.encode()[:15])
    try:
        answer = fcntl.ioctl(sock.fileno(), _SIOCGIFADDR, request)
    except OSError:
        return None
    return socket.inet_ntoa(answer[20:24])


def _ipv6_addresses() -> list[str]:
    """Every IPv6 address of this machine (``/proc/net/if_inet6``), link-local ones left out (they need a zone)."""
    found = []
    with contextlib.suppress(OSError):
        for line in _IF_INET6.read_text().splitlines():
            fields = line.split()
            if not fields or len(fields[0]) != 32:
                continue
            address = ipaddress.IPv6Address(bytes.fromhex(fields[0]))
            if not address.is_link_local:
                found.append(str(address))
    return found


def interface_addresses(*, ipv4: bool = True, ipv6: bool = True) -> list[str]:
    """This machine's IP addresses (loopback included), non-loopback ones first, each once."""
    found: list[str] = []
    if ipv4:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock, contextlib.suppress(OSError):
            for _index, name in socket.if_nameindex():
                address = _ipv4_of(sock, name)
                if address is not None:
                    found.append(address)
    if ipv6:
        found.extend(_ipv6_addresses())
    with contextlib.suppress(OSError):
        for *_rest, sockaddr in socket.getaddrinfo(socket.gethostname(), None):
            address = str(sockaddr[0])
            if (":" in address and ipv6) or (":" not in address and ipv4):
                found.append(address)
    unique = list(dict.fromkeys(found))
    return sorted(unique, key=lambda a: ipaddress.ip_address(a).is_loopback)


def machine_hosts() -> list[str]:
    """Every name and address of this machine as a Host header may spell it (lower case, IPv6 in brackets)."""
    names = [*LOOPBACK_HOSTS, socket.gethostname(), socket.getfqdn()]
    names.extend(host_text(address) for address in interface_addresses())
    return list(dict.fromkeys(name.lower() for name in names if name))


def is_unspecified(bind: str) -> bool:
    """True for the any-address binds (``0.0.0.0``, ``::``) that listen on every interface."""
    try:
        return ipaddress.ip_address(bind.strip("[]")).is_unspecified
    except ValueError:
        return False


def allowed_hosts(bind: str) -> list[str]:
    """The Host header names the console bound to ``bind`` answers to: the loopback names (and ``bind``) when
    ``bind`` is loopback, else this machine's names and addresses (and ``bind`` when it is a name)."""
    hosts = [*LOOPBACK_HOSTS] if is_loopback(bind) else machine_hosts()
    if not is_unspecified(bind):
        hosts.append(host_text(bind.strip("[]")).lower())
    return list(dict.fromkeys(hosts))


def listening_hosts(bind: str) -> list[str]:
    """The hosts to print URLs for when bound to ``bind``: every interface address for an any-address bind
    (``0.0.0.0``: IPv4 ones; ``::``: all), else ``bind`` itself; URL-ready (IPv6 in brackets)."""
    if not is_unspecified(bind):
        return [host_text(bind.strip("[]"))]
    return [host_text(a) for a in interface_addresses(ipv6=":" in bind)]
