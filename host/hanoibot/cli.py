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
from typing import NoReturn

from . import __version__
from .errors import HanoiError

#: Sub-command modules in the order ``--help`` lists them.
COMMANDS = (
    "solve",
    "count",
    "render",
    "run",
    "resume",
    "home",
    "jog",
    "calibrate",
    "status",
    "estop",
    "deploy",
    "emulate",
    "lock",
    "serve",
)

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


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every sub-command registered (sub-parsers inherit :class:`OneLineParser`)."""
    parser = OneLineParser(
        prog="hanoibot",
        description="Plan the Tower of Hanoi and play it on a servo arm or its simulator.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"hanoibot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"hanoibot.commands.{name}").register(sub)
    return parser


def fail(message: str) -> int:
    """Print one error line naming the problem and return exit code 2."""
    print(f"hanoibot: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 run failed, 2 bad input, 130 interrupted)."""
    # Exact move counts are huge integers (2**100000 - 1 has 30103 digits); print them whole.
    sys.set_int_max_str_digits(0)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args.run(args) or 0)
        sys.stdout.flush()
        return code
    except HanoiError as err:
        return fail(str(err))
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
