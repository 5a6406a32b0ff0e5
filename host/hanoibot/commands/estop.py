"""``hanoibot estop --port URL``: latch the board's e-stop (the arm holds its pose; queued motion is dropped).

The latch stays until ``hanoibot home --clear`` (or ``hanoibot resume --journal FILE --clear``, which goes on with
the stopped run). If another hanoibot process holds the port (a run, also one waiting at its pause prompt), it is
asked over its control socket to send ESTOP itself and stop in the e-stopped state; if it does not answer within
:data:`ANSWER_WAIT_S`, an ESTOP frame is written straight to the device (a board acts on ESTOP whoever sends it).
This is a software stop over the link; the hardware e-stop that cuts servo power is described in hardware/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .status import add_port_arguments, open_robot

#: Longest the holder of the port gets to confirm the e-stop, in s.
ANSWER_WAIT_S = 3.0


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
    """Latch the e-stop and report the board's mode; returns 0 when the board (or the port's holder) confirms it."""
    from ..errors import PortBusy

    try:
        robot = open_robot(args)
    except PortBusy as busy:
        return estop_through_holder(args.port, busy.holder)
    with robot:
        robot.session.estop()
        status = robot.session.status()
        print(f"e-stop latched on {robot.port_url}: mode {status.mode}; release with hanoibot home --clear")
        return 0 if status.mode == "ESTOP" else 1


def estop_through_holder(port: str, holder: Any) -> int:
    """Ask the process holding ``port`` to e-stop the arm; without its answer, write ESTOP to the device."""
    from ..link.control import CLOSED, ESTOPPED, ask_estop

    who = f"`{holder.command}` (pid {holder.pid})" if holder is not None else "the program holding the port"
    answer = ask_estop(holder.control, ANSWER_WAIT_S) if holder is not None and holder.control else None
    clear = f"`hanoibot home --clear --port {port}`"
    if answer == ESTOPPED:
        print(f"{who} stopped the arm: e-stop latched on {port}; once it has ended, release with {clear}")
        return 0
    if answer == CLOSED:
        print(
            f"hanoibot: {who} let go of {port} before the board confirmed; run `hanoibot estop --port {port}` again",
            file=sys.stderr,
        )
        return 1
    if "://" not in port and write_estop_frame(port):
        print(
            f"hanoibot: {who} did not answer within {ANSWER_WAIT_S:g} s: sent ESTOP straight to {port} (not "
            f"confirmed); check with `hanoibot status --port {port}` once it has ended, or cut servo power",
            file=sys.stderr,
        )
        return 1
    print(
        f"hanoibot: {who} did not answer within {ANSWER_WAIT_S:g} s and {port} cannot be reached around it: press "
        "Ctrl-C in its terminal, or cut servo power with the hardware e-stop",
        file=sys.stderr,
    )
    return 1


def write_estop_frame(device: str) -> bool:
    """Write one ESTOP frame to the serial device ``device`` without taking the port (the board acts on ESTOP
    whatever its session); False if the device cannot be opened or written."""
    from hanoifw import protocol

    try:
        fd = os.open(device, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        os.write(fd, protocol.encode(protocol.ESTOP, 0, 0, []))
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
