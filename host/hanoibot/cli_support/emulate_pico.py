"""``hanoibot emulate --pico``: the virtual Pico (stock MicroPython on an emulated RP2040) behind a pty.

Prints the port path once the firmware has announced itself; with ``--blank`` (an empty filesystem, for
``mpremote``) once the board's USB port is up. If ``main.py`` raises, the board's traceback goes to stderr and
the board sits at its REPL, so ``mpremote`` can still copy fixed files. Serves until SIGTERM or SIGINT; as with
the simulated board, SIGUSR1 pulls the virtual USB cable and plugs it back in (a new pty behind ``--link``) and
SIGUSR2 power-cycles the board (a new boot id); the link is removed however it ends.

With ``--chip-time`` the board runs on chip time for hosts in other processes (:mod:`hanoibot.sim.vpico.attach`):
it serves a Unix socket at ``--link`` instead of a pty and prints the URL a host opens (``vpico://?attach=PATH``);
the chip runs only while a host asks, so every run is the same on any machine.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..errors import ConfigError


def serve_pico(
    args: argparse.Namespace,
    options: dict[str, str],
    log_file: TextIO | None,
    writer: Callable[[TextIO], Any],
) -> int:
    """Boot the virtual Pico with ``options`` (the world and fault options of ``emulate``), serve its pty."""
    from ..sim.vpico.bridge import PicoPty
    from ..sim.vpico.options import make_pico
    from ..sim.vpico.process import BoardTraceback

    unsupported = [name for name in ("reset_after", "flip", "drop", "insert", "dup") if name in options]
    if unsupported:
        flag = "--" + unsupported[0].replace("_", "-")
        raise ConfigError(f"{flag} is not available with --pico: use a vpico:// URL for wire faults")
    options["servo"] = args.servo
    if args.chip_time and (args.free_running or args.slow is not None or args.blank):
        flag = "--free-running" if args.free_running else "--slow" if args.slow is not None else "--blank"
        raise ConfigError(f"{flag} cannot go with --chip-time: on chip time the chip runs only as the host asks")
    listeners: list[Callable[[dict[str, Any]], None]] = [] if log_file is None else [writer(log_file)]

    def on_event(event: dict[str, Any]) -> None:
        for listener in listeners:
            listener(event)

    files: dict[str, bytes] | None = {} if args.blank else None
    uf2 = None if args.uf2 is None else Path(args.uf2)
    if args.chip_time:
        pico = make_pico(options, driven=True, uf2=uf2, on_event=on_event, files=files)
        try:
            return _serve_on_chip_time(pico, args.link, listeners)
        finally:
            pico.close()
            if log_file is not None:
                log_file.close()
    pico = make_pico(options, driven=False, realtime=not args.free_running, uf2=uf2, on_event=on_event, files=files)
    try:
        pico.start()
        try:
            if args.blank:
                pico.wait_connected()
            else:
                pico.wait_for_output(b"HELLO")
        except BoardTraceback as err:
            print(err, file=sys.stderr, flush=True)
        bridge = PicoPty(pico, link_path=args.link)
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda _signum, _frame: bridge.stop())
        signal.signal(signal.SIGUSR1, lambda _signum, _frame: bridge.request_replug())
        signal.signal(signal.SIGUSR2, lambda _signum, _frame: bridge.request_power_cycle())
        print(bridge.port_path, flush=True)
        bridge.serve()
    finally:
        pico.close()
        if log_file is not None:
            log_file.close()
    return 0


def _serve_on_chip_time(pico: Any, link: str | None, listeners: list[Callable[[dict[str, Any]], None]]) -> int:
    """Boot the driven ``pico`` and serve it on a Unix socket at ``link`` until SIGTERM or SIGINT."""
    from ..sim.vpico.attach import ChipTimeServer
    from ..sim.vpico.process import BoardTraceback

    if link is None:
        raise ConfigError("--chip-time needs --link PATH: the Unix socket hosts open as vpico://?attach=PATH")
    pico.start()
    try:
        pico.wait_for_output(b"HELLO")
    except BoardTraceback as err:
        print(err, file=sys.stderr, flush=True)
    server = ChipTimeServer(pico, link)
    listeners.append(server.world_event)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda _signum, _frame: server.stop())
    signal.signal(signal.SIGUSR2, lambda _signum, _frame: server.request_power_cycle())
    print(server.url, flush=True)
    server.serve()
    return 0
