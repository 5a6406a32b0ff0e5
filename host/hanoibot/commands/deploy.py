"""``hanoibot deploy --port PORT``: put the firmware on a MicroPython board, compiled to .mpy for its bytecode
version, checked by hash, then reset and wait for HELLO (see :mod:`hanoibot.deploy`)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

#: Copies tried before giving up on a board that stops answering mid-copy (each from the board's reset).
COPY_ATTEMPTS = 2

EPILOG = """examples:
  hanoibot deploy --port /dev/ttyACM0              compile, copy, check, reset, wait for HELLO
  hanoibot deploy --port /dev/ttyACM0 --dry-run    say what the board runs and what would be copied
  hanoibot deploy --port /dev/ttyUSB0 --firmware my_firmware/

Supported boards: MicroPython 1.20 or newer (.mpy 6.1, 6.2, 6.3); on esp32 1.26 or newer. The board is reset
first, and the files are copied on its fresh boot (a board that ran hanoibot has a watchdog running).
main.py and board_config.py are copied as source; hanoifw/*.py become hanoifw/*.mpy (an old hanoifw/*.py on the
board is removed: it would shadow them).
If the arm is powered and holding, run `hanoibot home --release --port PORT` first.
"""


def register(subparsers: Any) -> None:
    """Add the ``deploy`` sub-command."""
    from ..cli_support.port_options import add_port_argument

    parser = subparsers.add_parser(
        "deploy",
        help="compile and copy the firmware to a MicroPython board, verify it, reset it",
        description="Read the board's MicroPython and .mpy version, compile the firmware with the matching "
        "mpy-cross, copy it, check every file by its SHA-256 on the board, reset the board and wait for HELLO.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_port_argument(parser, "of the board")
    parser.add_argument("--dry-run", action="store_true", help="read the board and compile, but copy nothing")
    parser.add_argument("--firmware", metavar="DIR", type=Path, help="firmware folder (default: the shipped one)")
    parser.add_argument(
        "--hello-timeout-s", metavar="S", type=float, default=30.0, help="wait this long for HELLO after the reset"
    )
    parser.set_defaults(run=run)


def users_firmware() -> Any:
    """The shipped firmware with the user's board wiring when their config folder holds a ``board_config.py``
    (:func:`hanoibot.config.user.user_board_config`); says which wiring goes."""
    from ..config.user import user_board_config
    from ..firmware_source import shipped_firmware

    firmware = shipped_firmware()
    wiring = user_board_config()
    if wiring is None:
        return firmware
    say(f"board wiring: {wiring}")
    return firmware.with_board_config(wiring)


def say(line: str) -> None:
    """Print one progress line now."""
    print(line, flush=True)


def run(args: argparse.Namespace) -> int:
    """Deploy; returns 0 once the board has answered HELLO (or, with --dry-run, once the plan is printed)."""
    from ..deploy.compiler import DeployError
    from ..deploy.steps import files_to_deploy
    from ..ops.deploy_check import hold_port

    if args.hello_timeout_s <= 0:
        raise DeployError(f"--hello-timeout-s must be above 0, got {args.hello_timeout_s:g}")
    files = files_to_deploy(args.firmware or users_firmware())
    with hold_port(args.port):  # no run may use the board while its files change (PortBusy names the holder)
        return _deploy(args, files)


def _deploy(args: argparse.Namespace, files: Any) -> int:
    """Copy ``files`` to the board on ``--port``, reset it and wait for HELLO (the caller holds the port)."""
    from ..deploy.board import BoardFiles, BoardStoppedAnswering, check_version_floor
    from ..deploy.compiler import DeployError, compiler_for
    from ..deploy.steps import build, check_supported, copy_and_verify, wait_for_hello
    from ..ops import deploy_check
    from ..sim_url import is_sim

    if is_sim(args.port):
        raise DeployError(
            f"port {args.port!r} is the simulator, which runs the firmware of this checkout and has nothing to copy to:"
            " give --port with the board's serial port (hanoibot deploy --port /dev/ttyACM0)"
        )
    for attempt in range(1, COPY_ATTEMPTS + 1):
        say(f"connecting to {args.port}")
        try:
            with BoardFiles(args.port) as board:
                info = board.identify()
                mpy = check_supported(info, args.port)
                check_version_floor(info, args.port)
                say(f"board: MicroPython {info.micropython} on {info.machine}, .mpy version {mpy}")
                compiler = compiler_for(mpy)
                with tempfile.TemporaryDirectory(prefix="hanoibot-deploy-") as out:
                    say(f"compiling {sum(item.compile for item in files)} firmware files for .mpy {mpy}")
                    blobs = build(files, compiler, Path(out))
                if args.dry_run:
                    for item, data in zip(files, blobs, strict=True):
                        say(f"would copy {item.board_path} ({len(data)} bytes)")
                    say("dry run: nothing was copied")
                    return 0
                copy_and_verify(board, files, blobs, say)
                say("all files check out; resetting the board")
                with board.answering():
                    board.reset()
            break
        except BoardStoppedAnswering:
            if attempt == COPY_ATTEMPTS:
                raise
            say(
                f"the board stopped answering during the copy; starting again from its reset ({attempt + 1} of "
                f"{COPY_ATTEMPTS})"
            )
    say(f"waiting for the firmware to say HELLO (up to {args.hello_timeout_s:g} s)")
    boot_id = wait_for_hello(args.port, args.hello_timeout_s, deploy_check.hello_boot_id)
    say(f"done: the firmware is running (boot id {boot_id}); next: hanoibot status --port {args.port}")
    return 0
