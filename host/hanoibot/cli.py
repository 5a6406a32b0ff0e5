"""The ``hanoibot`` command: a thin dispatcher over one module per sub-command in :mod:`hanoibot.commands`.

Each command module offers ``register(subparsers)`` (cheap: argparse only) and ``run(args) -> int``; heavy
imports happen inside ``run`` so that start-up stays fast. Every :class:`~hanoibot.errors.HanoiError` becomes one
line on stderr and exit code 2, and so does any other OSError (a file that cannot be written); a closed pipe
(``| head``) ends the program quietly.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from . import __version__
from .errors import HanoiError, LinkError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads the name), without importing typing at start-up
if TYPE_CHECKING:
    from typing import NoReturn

#: Sub-command modules in the order ``--help`` lists them, each with the one line ``--help`` shows for it (the same
#: words its ``register`` gives argparse; a test keeps the two equal).
COMMANDS = {
    "solve": "print the moves of a plan",
    "count": "print the number of moves alone",
    "render": "draw a plan: text boards or an animated SVG with the arm",
    "run": "play a puzzle on the arm (simulated by default)",
    "resume": "finish a journaled run, every move exactly once",
    "runs": "list the journaled runs, newest first",
    "home": "bring the arm to its start pose",
    "jog": "move the arm with keys: a joint at a time, or the grip point along x, y, z",
    "calibrate": "find each peg and the grip threshold in one guided session, saved into the robot config",
    "status": "show the board's boot id, mode, faults, grip and servo pulses",
    "estop": "latch the board's e-stop",
    "deploy": "compile and copy the firmware to a MicroPython board, verify it, reset it",
    "emulate": "serve the simulated board on a pseudo-terminal",
    "lock": "play the twin-tower lock puzzle, or solve it",
    "serve": "the browser console: play the puzzle, watch and drive the arm",
    "init": "make your own robot config and board wiring, and remember the port",
}

EPILOG = """examples:
  hanoibot solve -n 3 --format plain        print the 7 moves of a 3-disk tower
  hanoibot count -n 64                      print 18446744073709551615
  hanoibot <command> --help                 help and examples for one command
"""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors (an unknown option, a missing value or a missing required option)
    are one line on stderr and exit code 2, like every other bad input; ``--help`` still shows the usage."""

    def error(self, message: str) -> NoReturn:
        """Print ``<prog>: error: <message>`` (see ``<prog> --help``) and exit with code 2."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def _get_formatter(self) -> argparse.HelpFormatter:
        """The help formatter, as wide as the terminal. argparse asks for one at every ``add_argument``; its own
        default imports :mod:`shutil` (and with it the compression modules) just to read the width."""
        return self.formatter_class(prog=self.prog, width=terminal_columns())  # type: ignore[call-arg]  # all take it


def terminal_columns() -> int:
    """The terminal's width in columns as :func:`shutil.get_terminal_size` reads it: ``COLUMNS``, else the width of
    the terminal on stdout, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser for a command line whose first word is ``command``: only that sub-command's module is
    imported and registered. Without one (``hanoibot --help``, a mistyped command) every sub-command gets a bare
    entry with its help line, enough to list them all or to refuse an unknown one, and nothing is imported.
    Sub-parsers inherit :class:`OneLineParser`."""
    parser = OneLineParser(
        prog="hanoibot",
        description="Plan the Tower of Hanoi and play it on a servo arm or its simulator.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"hanoibot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    if command is not None:
        importlib.import_module(f"hanoibot.commands.{command}").register(sub)
    else:
        for name, summary in COMMANDS.items():
            sub.add_parser(name, help=summary, add_help=False)
    return parser


def fail(message: str) -> int:
    """Print one error line naming the problem and return exit code 2."""
    print(f"hanoibot: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 run failed, 2 bad input, 130 interrupted)."""
    # Exact move counts are huge integers (2**100000 - 1 has 30103 digits); print them whole.
    sys.set_int_max_str_digits(0)
    is_process = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
    try:
        return _run(args)
    finally:
        if is_process:
            import signal  # here, not at the top: start-up stays fast

            # The command has ended: a late Ctrl-C (the second of a quick double press, after a fast stop) must not
            # turn its exit code into a death by signal on the way out.
            signal.signal(signal.SIGINT, signal.SIG_IGN)


#: Commands whose missing ``--port`` and ``--config`` are filled by the one rule of :mod:`hanoibot.config.user`
#: before they run. ``resume`` and ``runs`` apply the same rule themselves: ``resume`` finds the newest stopped run
#: on the rule's port and goes on with the port and config its journal names; ``runs`` lists every run and marks
#: the one ``resume`` would take.
TAKES_USER_DEFAULTS = frozenset(
    {"run", "home", "jog", "calibrate", "status", "estop", "deploy", "emulate", "render", "serve"}
)


def fill_user_defaults(args: argparse.Namespace) -> None:
    """Fill a missing ``--port`` / ``--config`` of a command in :data:`TAKES_USER_DEFAULTS` by the one rule of
    :mod:`hanoibot.config.user` (a ``--config`` stays unset when that rule ends at the shipped robot)."""
    if args.command not in TAKES_USER_DEFAULTS:
        return
    from .config import default_config_path
    from .config.user import resolve_config, resolve_port

    if getattr(args, "port", "") is None:
        args.port = resolve_port(None)
    if getattr(args, "config", "") is None:
        config = resolve_config(None)
        if config != default_config_path():
            args.config = str(config)


def offer_port_schemes(args: argparse.Namespace) -> None:
    """For a command that opens a port (one with ``--port``), offer the URL schemes beyond pyserial's own: the
    simulator's ``sim://`` and ``vpico://`` and the bus adapter's ``feetech://``. The program is composed here: the
    link, which opens the port, imports neither package (:mod:`hanoibot.ops.ports`; a command without a port never
    loads pyserial)."""
    if not hasattr(args, "port"):
        return
    from .ops.ports import offer_port_schemes as offer

    offer()


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command; the exit code, with errors turned into one line (see :func:`main`)."""
    try:
        fill_user_defaults(args)
        offer_port_schemes(args)
        code = int(args.run(args) or 0)
        sys.stdout.flush()
        return code
    except HanoiError as err:
        code = fail(str(err))
        if getattr(args, "debug", False) and isinstance(err, LinkError) and err.frame_trace:
            print(f"hanoibot: the last {len(err.frame_trace)} frames on the link:", file=sys.stderr)
            for line in err.frame_trace:
                print(f"  {line}", file=sys.stderr)
        return code
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep Python from complaining at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as err:
        # A file that cannot be written or read (disk full, directory gone): one line naming it, no traceback.
        where = f" {str(err.filename)!r}" if err.filename else ""
        return fail(f"cannot use{where}: {err.strerror or err}")
    except KeyboardInterrupt:
        print("hanoibot: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
