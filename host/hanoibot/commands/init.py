"""``hanoibot init [--arm NAME | --urdf FILE] [--port URL]``: make the user's own robot config and board wiring.

Writes ``robot.toml`` (the shipped robot, or the arm preset --arm names, or a config for the arm a URDF describes,
to calibrate) and ``board_config.py`` (the shipped board wiring with as many servo channels as that arm has, which
``hanoibot deploy`` copies to the board from there) into the user's config folder, ``$XDG_CONFIG_HOME/hanoibot``
(default ``~/.config/hanoibot``), and with ``--port`` remembers the port. From then on every command uses them
without ``--port`` or ``--config`` (:mod:`hanoibot.config.user`). A file already there is kept (your calibration
stays) unless ``--force`` replaces it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..arm import PRESET_NAMES

EPILOG = """arms (--arm): default (the shipped 4-joint MG996R arm, as without --arm), mearm, so101 (SO-100/SO-101,
lerobot), bracket6 (6-DOF MG996R bracket kit). --urdf reads the joints of a URDF file (meshes ignored) and names
what it could not map, one line each; the config it writes names the URDF, which must stay where it is.

examples:
  hanoibot init --port /dev/ttyACM0        your robot config, and the board's port remembered
  hanoibot init --port vpico://            the same with the virtual Pico
  hanoibot init --arm so101                the SO-101 preset and a 6-channel board wiring
  hanoibot init --arm bracket6 --force     switch to the 6-DOF bracket arm (your robot.toml is replaced)
  hanoibot init --urdf my_arm.urdf         a robot config for the arm in my_arm.urdf
  hanoibot init --urdf my_arm.urdf --hold wrist_roll=0
                                           the same, holding the wrist roll at 0 deg
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
    arm = parser.add_mutually_exclusive_group()
    arm.add_argument("--arm", metavar="NAME", help=f"an arm preset: {', '.join(PRESET_NAMES)} (default: default)")
    arm.add_argument("--urdf", metavar="FILE", help="a URDF file describing your arm")
    parser.add_argument(
        "--hold",
        metavar="JOINT=DEG",
        action="append",
        help="with --urdf: hold this joint at DEG degrees (repeatable; default: hold one if the IK needs it)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write what is missing (or everything, with ``--force``) and remember the port; returns 0."""
    from ..board_wiring import wire_board_config
    from ..config import load_config, parse_config
    from ..config.user import BOARD_CONFIG_FILE, ROBOT_FILE, config_home, remember_port
    from ..errors import ConfigError, UnreachableError
    from ..firmware_source import shipped_firmware

    if args.port is not None and not args.port.strip():
        raise ConfigError("--port is empty: expected a serial port or pyserial URL, e.g. /dev/ttyACM0")
    if args.hold and args.urdf is None:
        raise ConfigError(f"--hold {args.hold[0]}: holds a joint of a --urdf arm: expected --urdf FILE with it")
    folder = config_home()
    robot_text, what, notes = _robot_text(args)
    try:  # checked before anything is written: a preset or URDF that makes no working config writes nothing
        parse_config(robot_text.encode("utf-8"), source_path=folder / ROBOT_FILE)
    except (ConfigError, UnreachableError) as err:
        what_failed = "the preset makes no working robot config yet: " if args.arm not in (None, "default") else ""
        raise ConfigError(f"{_again(args).strip() or 'init'}: {what_failed}{err}") from None
    for note in notes:
        print(f"{args.urdf}: {note}")
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / ROBOT_FILE, robot_text, args, what)
    mine = load_config(folder / ROBOT_FILE)  # a kept file that no longer loads is said now, not at the first run
    # The board wiring of the robot.toml now there (a kept one's channels, not the asked arm's).
    wiring = wire_board_config(shipped_firmware().board_config_py.read_text(encoding="utf-8"), mine.channel_names())
    _write(folder / BOARD_CONFIG_FILE, wiring, args, f"the wiring of its {mine.channels} servo channels")
    mismatch = _wiring_mismatch(folder / BOARD_CONFIG_FILE, mine.channels)
    if mismatch:
        print(mismatch)
    if args.port is not None:
        print(f"remembered the port {args.port} in {remember_port(args.port.strip())}")
    print(_next_steps(folder / BOARD_CONFIG_FILE))
    return 0


def _write(target: Path, text: str, args: argparse.Namespace, what: str) -> None:
    """Write ``text`` to ``target`` unless a file is there and --force was not given."""
    from ..config.writer import write_atomically

    if target.exists() and not args.force:
        print(f"kept {target} (hanoibot init{_again(args)} --force replaces it with {what})")
        return
    write_atomically(target, text)
    print(f"wrote {target}")


def _robot_text(args: argparse.Namespace) -> tuple[str, str, tuple[str, ...]]:
    """The robot config to write, what it is (for the messages), and the URDF import's notes."""
    from ..arm import preset_text
    from ..config import default_config_path
    from ..config.urdf_config import import_urdf
    from ..errors import ConfigError

    if args.urdf is not None:
        imported = import_urdf(Path(args.urdf), default_config_path(), _holds(args.hold))
        return imported.text, f"a config for {args.urdf}", imported.notes
    if args.arm is None or args.arm == "default":
        return default_config_path().read_text(encoding="utf-8"), "the shipped one", ()
    if args.arm not in PRESET_NAMES:
        raise ConfigError(f"--arm {args.arm!r} is not an arm preset: expected one of {', '.join(PRESET_NAMES)}")
    text = preset_text(args.arm)
    return text, f"the {args.arm} preset", ()


def _holds(items: list[str] | None) -> dict[str, float] | None:
    """``--hold JOINT=DEG`` options as a mapping (None when none were given)."""
    from ..errors import ConfigError

    if not items:
        return None
    held: dict[str, float] = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            angle = float(value)
        except ValueError:
            angle = float("nan")
        if not name.strip() or not -360.0 <= angle <= 360.0:
            raise ConfigError(f"--hold {item!r}: expected JOINT=DEG, e.g. wrist_roll=0")
        held[name.strip()] = angle
    return held


def _again(args: argparse.Namespace) -> str:
    """The options that chose the arm, to repeat in a hint."""
    if args.urdf is not None:
        return f" --urdf {args.urdf}"
    return f" --arm {args.arm}" if args.arm not in (None, "default") else ""


def _wiring_mismatch(wiring: Path, channels: int) -> str:
    """A warning if the board wiring at ``wiring`` drives another number of channels than the robot has."""
    import re

    match = re.search(r"(?m)^CHANNELS = (\d+)", wiring.read_text(encoding="utf-8"))
    if match is None or int(match[1]) == channels:
        return ""
    return (
        f"warning: {wiring} drives CHANNELS = {match[1]}, your robot.toml has {channels} servo channels: "
        f"hanoibot init --force rewrites it for this arm, or set CHANNELS = {channels} and one pin a channel in "
        "PWM_PINS, PCA9685_CHANNELS, BUS_IDS and ENABLE_ORDER by hand"
    )


def _next_steps(wiring: Path) -> str:
    """What to do next, in order."""
    return (
        f"next: check the pins in {wiring} against your wiring (hardware/README.md), then\n"
        "  hanoibot deploy        the firmware onto the board\n"
        "  hanoibot calibrate     find the pegs and the grip threshold\n"
        "  hanoibot run -n 3      play"
    )
