"""``hanoibot estop --port URL``: latch the board's e-stop (the arm holds its pose; queued motion is dropped).

The latch stays until ``hanoibot home --clear`` (or ``hanoibot resume --journal FILE --clear``, which goes on with
the stopped run). If another hanoibot process holds the port (a run, also one waiting at its pause prompt), it is
asked over its control socket to send ESTOP itself and stop in the e-stopped state; if it does not answer within
:data:`hanoibot.ops.stop.ANSWER_WAIT_S`, an ESTOP frame is written straight to the device (a board acts on ESTOP
whoever sends it). On ``sim://`` with nobody running a simulated board there is no arm to stop, and that is said.
This is a software stop over the link; the hardware e-stop that cuts servo power is described in hardware/README.md.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .status import add_port_arguments


def register(subparsers: Any) -> None:
    """Add the ``estop`` sub-command."""
    parser = subparsers.add_parser(
        "estop",
        help="latch the board's e-stop",
        description=(
            "Send ESTOP: the arm holds its pose, queued motion is dropped, the latch needs home --clear "
            "(or resume --clear). "
            "While another hanoibot command (a run) holds the port, that command is asked to send it and stop."
        ),
        epilog=(
            "examples:\n  hanoibot estop --port /dev/ttyACM0\n"
            "  hanoibot estop --port /dev/ttyACM0      # from a second terminal while `hanoibot run` holds it\n"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_port_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Latch the e-stop and say so; returns 0 when the board (or the port's holder) confirms it, or when there is
    no arm to stop (``sim://`` with nobody running it)."""
    from ..ops.journals import latest_stopped
    from ..ops.stop import estop

    result = estop(args.port, args.config)
    if result.no_arm:
        print(f"estop: {result.text}")
        return 0
    if not result.latched:
        print(f"hanoibot: {result.text}", file=sys.stderr)
        return 1
    stopped = latest_stopped(args.port)
    journal = f" --journal {stopped.path}" if stopped is not None else ""
    print(
        f"{result.text}; look at the arm, then release it with `hanoibot home --clear --port {args.port}` "
        f"(or go on with `hanoibot resume{journal} --port {args.port} --clear`)"
    )
    return 0
