"""``hanoibot calibrate --port URL``: jog the gripper to each peg and save where the pegs are into the config.

For each peg in turn, jog (keys as ``hanoibot jog``) until the open fingers stand around the foot of the peg,
then press ``s`` (or Enter): the grip point, from the servo pulses and the arm's kinematics, becomes that peg's
``x_mm`` and ``y_mm``. At the end the robot config is rewritten with tomlkit, so its comments and layout stay.

The robot config packaged with an installed hanoibot is never rewritten (it lies in site-packages): with it in use,
name the file to write with ``--output FILE`` (or calibrate your own copy with ``--config FILE``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..puzzle import peg_letter
from .jog import Jogger, prepare_for_jogging, read_keys, step_from
from .status import add_port_arguments, open_robot

SAVE_KEYS = ("s", "\n", "\r")


def register(subparsers: Any) -> None:
    """Add the ``calibrate`` sub-command."""
    parser = subparsers.add_parser(
        "calibrate",
        help="jog to each peg and save the peg positions into the robot config",
        description=(__doc__ or "").split("\n\n")[1],
        epilog=(
            "examples:\n  hanoibot calibrate --port /dev/ttyACM0 --config my_robot.toml\n"
            "  hanoibot calibrate --grip --port /dev/ttyACM0 --config my_robot.toml   # the grip sensor threshold\n"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_port_arguments(parser)
    parser.add_argument("--step-deg", metavar="DEG", default="2", help="first jog step in degrees (default 2)")
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="write the calibrated config here (default: the --config file; required with the packaged config)",
    )
    parser.add_argument(
        "--grip",
        action="store_true",
        help="measure the grip sensor (gripper closed empty, then on a disk) and save grip_threshold_u16 instead",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Jog to every peg, then save; returns 0 when every peg was saved, 1 if input ended early."""
    step_deg = step_from(args.step_deg)
    target = output_path(args.output, args.config)
    if args.grip:
        return run_grip(args, target)
    with open_robot(args) as robot:
        prepare_for_jogging(robot)
        jogger = Jogger(robot, step_deg=step_deg)
        keys = read_keys()
        points_mm: list[tuple[float, float]] = []
        for peg in range(len(robot.config.board.pegs)):
            print(f"jog the open fingers around the foot of peg {peg_letter(peg)}, then press s")
            point = jog_until_saved(jogger, keys)
            if point is None:
                print("calibration stopped: nothing was saved")
                return 1
            points_mm.append(point)
            print(f"peg {peg_letter(peg)}: x={point[0]:.1f} y={point[1]:.1f} mm")
        source = robot.config.source_path
    if source is None:
        raise ConfigError("the robot config was not read from a file: pass --config FILE and --output FILE")
    save_peg_positions(source, target, points_mm)
    print(f"saved {len(points_mm)} peg positions to {target}")
    return 0


def run_grip(args: argparse.Namespace, target: Path) -> int:
    """Measure the grip sensor empty and on a disk, save the midpoint as ``grip_threshold_u16``; returns 0."""
    from ..cli_support.grip_calibration import measure_grip_threshold, save_grip_threshold

    with open_robot(args) as robot:
        prepare_for_jogging(robot)
        empty, held, threshold = measure_grip_threshold(robot, lambda prompt: input(prompt + " "))
        source = robot.config.source_path
    if source is None:
        raise ConfigError("the robot config was not read from a file: pass --config FILE and --output FILE")
    save_grip_threshold(source, target, threshold)
    print(f"grip current: empty {empty}, on a disk {held}; saved grip_threshold_u16 = {threshold} to {target}")
    return 0


def output_path(output: str | None, config: str | None) -> Path:
    """The file to write the calibrated config to: ``output``, else the ``config`` file given.

    Checked before anything moves: a ConfigError when that would be the default robot config (the checkout's
    ``hardware/robot.toml`` or the copy packaged with hanoibot) and ``--output`` was not given, and always for
    the packaged copy (it lies in site-packages).
    """
    from ..config import default_config_path, is_packaged_config

    target = Path(output or config or default_config_path())
    is_default = target.resolve() == default_config_path().resolve()
    if is_packaged_config(target) or (output is None and is_default):
        raise ConfigError(
            f"calibrate never writes the default robot config ({target}) unless told to: "
            "pass --output FILE to save the calibrated config there (or --config FILE to calibrate your own copy)"
        )
    return target


def jog_until_saved(jogger: Jogger, keys: Any) -> tuple[float, float] | None:
    """Pass keys to ``jogger`` until a save key; the grip point (x, y) in mm then, None if input ends or q."""
    for key in keys:
        if key in SAVE_KEYS:
            point = jogger.robot.config.grip_point(jogger.pulses_us)
            return round(point.x_mm, 1), round(point.y_mm, 1)
        if key == "q":
            return None
        message = jogger.handle(key)
        if message:
            print(message, flush=True)
    return None


def save_peg_positions(source: Path, target: Path, points_mm: list[tuple[float, float]]) -> None:
    """Rewrite ``source`` into ``target`` with new ``x_mm``/``y_mm`` for every ``[[board.pegs]]``, comments kept."""
    import tomlkit

    from ..config import parse_config

    document = tomlkit.parse(source.read_text(encoding="utf-8"))
    pegs: Any = document["board"]["pegs"]
    for table, (x_mm, y_mm) in zip(pegs, points_mm, strict=True):
        table["x_mm"] = x_mm
        table["y_mm"] = y_mm
    text = tomlkit.dumps(document)
    parse_config(text.encode(), source_path=target)  # never write a config that would not load
    target.write_text(text, encoding="utf-8")
