"""``hanoibot init [--port URL]``: make the user's own robot config and board wiring, and remember the port.

Writes ``robot.toml`` (a copy of the shipped robot, to calibrate) and ``board_config.py`` (the shipped board wiring,
which ``hanoibot deploy`` copies to the board from there) into the user's config folder,
``$XDG_CONFIG_HOME/hanoibot`` (default ``~/.config/hanoibot``), and with ``--port`` remembers the port. From then
on every command uses them without ``--port`` or ``--config`` (:mod:`hanoibot.config.user`). A file already there
is kept (your calibration stays) unless ``--force`` replaces it with the shipped one.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

EPILOG = """examples:
  hanoibot init --port /dev/ttyACM0        your robot config, and the board's port remembered
  hanoibot init --port vpico://            the same with the virtual Pico
  hanoibot init --force                    start again from the shipped robot (your calibration is replaced)
"""


def register(subparsers: Any) -> None:
    """Add the ``init`` sub-command."""
    parser = subparsers.add_parser(
        "init",
        help="make your own robot config and board wiring, and remember the port",
        description=(__doc__ or "").split("\n\n")[1],
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--port", metavar="URL", help="the board's serial port or pyserial URL, remembered")
    parser.add_argument("--force", action="store_true", help="replace a robot.toml or board_config.py already there")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write what is missing (or everything, with ``--force``) and remember the port; returns 0."""
    from ..config import default_config_path, load_config
    from ..config.user import BOARD_CONFIG_FILE, ROBOT_FILE, config_home, remember_port
    from ..config.writer import write_atomically
    from ..errors import ConfigError
    from ..firmware_source import shipped_firmware

    if args.port is not None and not args.port.strip():
        raise ConfigError("--port is empty: expected a serial port or pyserial URL, e.g. /dev/ttyACM0")
    folder = config_home()
    folder.mkdir(parents=True, exist_ok=True)
    shipped = {ROBOT_FILE: default_config_path(), BOARD_CONFIG_FILE: shipped_firmware().board_config_py}
    for name, source in shipped.items():
        target = folder / name
        if target.exists() and not args.force:
            print(f"kept {target} (hanoibot init --force replaces it with the shipped one)")
            continue
        write_atomically(target, source.read_text(encoding="utf-8"))
        print(f"wrote {target}")
    load_config(folder / ROBOT_FILE)  # a kept file that no longer loads is said now, not at the first run
    if args.port is not None:
        print(f"remembered the port {args.port} in {remember_port(args.port.strip())}")
    print(_next_steps(folder / BOARD_CONFIG_FILE))
    return 0


def _next_steps(wiring: Path) -> str:
    """What to do next, in order."""
    return (
        f"next: check the pins in {wiring} against your wiring (hardware/README.md), then\n"
        "  hanoibot deploy        the firmware onto the board\n"
        "  hanoibot calibrate     find the pegs and the grip threshold\n"
        "  hanoibot run -n 3      play"
    )
