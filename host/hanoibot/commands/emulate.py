"""``hanoibot emulate``: the simulated board in its own process behind a pseudo-terminal, in wall-clock time.

Prints the port path as its first line (the ``--link`` symlink when given, else the pty), then serves until
SIGTERM or SIGINT. One emulator serves a ``--link`` path at a time: a second one on the same path exits 2 naming
the first (:mod:`hanoibot.sim.link_claim`), which keeps its link. SIGUSR1 pulls the virtual USB cable and plugs it
back in (a new pty, the symlink re-pointed, the board keeps running); SIGUSR2 power-cycles the board (new boot
id). ``--log`` writes one JSON object per line for every executed command, error, latched fault, injected wire
fault and reset, flushed at once.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ..cli_support.port_options import CONFIG_RULE

EPILOG = """examples:
  hanoibot emulate                                   serve a simulated board; prints /dev/pts/N
  hanoibot emulate --link /tmp/hanoibot --log run.jsonl
  hanoibot emulate --flip 1e-3 --seed 7              the same with bit flips on the wire
  hanoibot emulate --baud 115200                     the link as slow as a UART at 115200 baud
  hanoibot emulate --port-model esp32 --baud 115200  the firmware's own loop as an ESP32 runs it (10 ms ticks)
  kill -USR1 PID                                     unplug and replug the virtual cable
  hanoibot emulate --board AA --link /tmp/hb & sleep 1; hanoibot run -n 2 --port /tmp/hb
  hanoibot emulate --pico --link /tmp/pico           the virtual Pico; prints the pty once the firmware is up
  hanoibot emulate --pico --slow 6 --link /tmp/pico  the same chip at most 1/6 as fast as a real RP2040
  hanoibot emulate --pico --chip-time --seed 3 --link /tmp/pico.sock
                                                     on chip time: prints vpico://?attach=/tmp/pico.sock
                                                     --board must match what `run` is told (-n/--from)

The simulated disks start as --board (default AAA: 3 disks on A). Like a real board, the emulator cannot tell
the host where its disks are, so `hanoibot run --port PTY` trusts -n/--from: give both the same start state,
or the first pick misses or collides (the run then stops in fault). Without --seed every boot has a random
boot id, so a restarted emulator is a new board to `hanoibot resume` (which then asks for --board).
"""


#: (flag, metavar, help) of the emulator's own and the simulator's options.
SIMULATOR_OPTIONS = (
    ("--log", "FILE", "append one JSON event per line to FILE"),
    ("--link", "PATH", "keep a symlink to the current pty at PATH"),
    ("--speed", "X", "servo speed factor for the simulated world (default 1)"),
    ("--board", "STATE", "start state of the disks (default AAA); must match `run -n/--from`"),
    ("--config", "FILE", f"robot TOML ({CONFIG_RULE})"),
    (
        "--rules",
        "R",
        "what may land on what: classic (default) or big-on-top; must match `run --rules`; bicolor or tricolor "
        "puts the coloured disks on the board (`run --puzzle`; --board numbered size first, e.g. A:5,4,1/B:6,3,2/C:)",
    ),
)
#: (flag, metavar, help) of the wire faults, named as in a sim:// URL.
FAULT_OPTIONS = (
    ("--flip", "P", "probability of a bit flip per byte"),
    ("--drop", "P", "probability of losing a byte"),
    ("--insert", "P", "probability of a noise byte before a byte"),
    ("--dup", "P", "probability of a frame arriving twice"),
    ("--seed", "N", "seed for faults and boot ids, for repeatable runs (default: faults seed 0, boot ids random)"),
    ("--reset-after", "K", "reboot the board once after K frames"),
)


def register(subparsers: Any) -> None:
    """Add the ``emulate`` sub-command."""
    parser = subparsers.add_parser(
        "emulate",
        help="serve the simulated board on a pseudo-terminal",
        description="Run the simulated board (the real firmware core) behind a raw pseudo-terminal.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for flag, metavar, text in SIMULATOR_OPTIONS:
        parser.add_argument(flag, metavar=metavar, help=text)
    parser.add_argument("--no-world", action="store_true", help="a bare board: no arm or disk physics (for link tests)")
    parser.add_argument(
        "--random-world",
        action="store_true",
        help="a randomized world drawn from --seed: the robot as built within the config's [tolerances] "
        "(docs/margins.md; sim://?world=random&seed=S)",
    )
    parser.add_argument(
        "--baud", metavar="N", type=_baud, help="carry at most N/10 bytes/s each way, like a UART (default: pty speed)"
    )
    parser.add_argument(
        "--port-model",
        metavar="PORT",
        help="behave like MicroPython's PORT (rp2, esp32, esp32s3): the firmware's own loop on its scheduler ticks "
        "and timers, its output resolution (sim://?port=PORT; hanoibot.sim.ports)",
    )
    pico = parser.add_argument_group("virtual Pico (stock MicroPython on an emulated RP2040; needs Node)")
    pico.add_argument("--pico", action="store_true", help="serve the virtual Pico instead of the simulated board")
    pico.add_argument(
        "--servo",
        choices=("pwm", "pca9685", "sts"),
        default="pwm",
        help="its servo driver (default pwm); sts: Feetech bus servos on a UART, the virtual Pico's "
        "(vpico://?servo=sts) or the simulated board's (sim://?servo=sts)",
    )
    pico.add_argument("--free-running", action="store_true", help="let emulated time run ahead of the wall clock")
    pico.add_argument(
        "--chip-time",
        action="store_true",
        help="run on chip time for hosts in other processes: serve a Unix socket at --link, print its URL "
        "(vpico://?attach=PATH); the chip runs only while a host asks, so runs repeat exactly",
    )
    pico.add_argument(
        "--slow", metavar="K", help="run the chip at most 1/K as fast as a real RP2040 (a busy machine, repeatable)"
    )
    pico.add_argument("--uf2", metavar="FILE", help="another MicroPython UF2 image (default: the vendored v1.27.0)")
    pico.add_argument("--blank", action="store_true", help="an empty filesystem: copy the firmware with mpremote")
    faults = parser.add_argument_group("wire faults (both directions)")
    for flag, metavar, text in FAULT_OPTIONS:
        faults.add_argument(flag, metavar=metavar, help=text)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until SIGTERM/SIGINT; returns 0."""
    import signal

    from ..sim.emulator import PtyEmulator
    from ..sim.factory import make_wire

    names = ("flip", "drop", "insert", "dup", "seed", "reset_after", "speed", "board", "config", "rules", "slow")
    options = {name: str(getattr(args, name)) for name in names if getattr(args, name) is not None}
    if args.port_model is not None:
        options["port"] = args.port_model
    if args.servo == "sts" and not args.pico:
        options["servo"] = "sts"
    if args.no_world:
        options["world"] = "0"
    elif args.random_world:
        options["world"] = "random"
    if args.slow is not None and not args.pico:
        from ..errors import ConfigError

        raise ConfigError(f"--slow {args.slow} needs --pico: only the virtual Pico's chip can be slowed")
    if args.pico and args.port_model is not None:
        from ..errors import ConfigError

        raise ConfigError(f"--port-model {args.port_model} cannot go with --pico: the virtual Pico is its own rp2")
    if args.link is not None:
        from ..sim.link_claim import LinkClaim

        claim = LinkClaim(args.link)
        claim.acquire()  # held until the process ends; PortBusy names the emulator serving the path
    if args.pico:
        from ..cli_support.emulate_pico import serve_pico

        return serve_pico(args, options, _open_log(args.log), _writer)
    log_file = _open_log(args.log)
    try:
        wire = make_wire(options, on_event=None if log_file is None else _writer(log_file))
        emulator = PtyEmulator(wire, link_path=args.link, baud=args.baud)
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda _signum, _frame: emulator.stop())
        signal.signal(signal.SIGUSR1, lambda _signum, _frame: emulator.request_replug())
        signal.signal(signal.SIGUSR2, lambda _signum, _frame: emulator.request_power_cycle())
        print(emulator.port_path, flush=True)
        emulator.serve()
    finally:
        if log_file is not None:
            log_file.close()
    return 0


def _baud(text: str) -> int:
    """``--baud``: a whole number of bits per second, at least 300."""
    try:
        baud = int(text)
    except ValueError:
        baud = 0
    if baud < 300:
        raise argparse.ArgumentTypeError(f"{text!r} is not a baud rate: expected a whole number of at least 300")
    return baud


def _open_log(path: str | None) -> TextIO | None:
    """The log file opened for appending, or None; ConfigError-like one line if it cannot be opened."""
    if path is None:
        return None
    from ..errors import ConfigError

    try:
        return open(path, "a", encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"--log {path!r} cannot be opened: {err.strerror}; expected a writable file") from err


def _writer(log_file: TextIO) -> Any:
    """An event listener writing each event as one flushed JSON line."""

    import json

    def write(event: dict[str, Any]) -> None:
        log_file.write(json.dumps(event, separators=(",", ":")) + "\n")
        log_file.flush()

    return write
