"""``hanoibot calibrate``: one guided session that finds where each peg stands and the grip sensor's threshold,
then writes the robot config once.

For each peg in turn the arm goes to where the config says the peg's foot is (up, across, down, fingers open);
jog the grip point with ``x`` / ``y`` and ``+`` / ``-`` (keys as ``hanoibot jog``; ``]`` / ``[`` change the step,
in mm) until the open fingers stand evenly around the foot of the peg, then press ``s`` (or Enter): the grip
point, from the servo pulses and the arm's kinematics, becomes that peg's ``x_mm`` and ``y_mm``. Then the grip
sensor is measured (as ``--grip`` alone does; answer ``skip`` to keep the threshold). At the end the config is
written once (:mod:`hanoibot.config.writer`: comments and layout kept, validated before it is written).

The robot config packaged with an installed hanoibot is never rewritten (it lies in site-packages): with it in use,
name the file to write with ``--output FILE``, or make your own with ``hanoibot init``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..puzzle import peg_letter
from .jog import Jogger, prepare_for_jogging, step_from
from .status import add_port_arguments, open_robot, resolved_config_path

SAVE_KEYS = ("s", "\n", "\r")
#: The first step of the Cartesian jog at a peg, in mm.
PEG_STEP_MM = 2.0


def register(subparsers: Any) -> None:
    """Add the ``calibrate`` sub-command."""
    parser = subparsers.add_parser(
        "calibrate",
        help="find each peg and the grip threshold in one guided session, saved into the robot config",
        description=(__doc__ or "").split("\n\n")[1],
        epilog=(
            "examples:\n  hanoibot calibrate                       # the port and config of hanoibot init\n"
            "  hanoibot calibrate --port /dev/ttyACM0 --config my_robot.toml\n"
            "  hanoibot calibrate --grip    # only the grip sensor threshold\n"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_port_arguments(parser)
    parser.add_argument(
        "--step-mm",
        "--step-deg",
        dest="step",
        metavar="STEP",
        default=str(PEG_STEP_MM),
        help="first jog step in mm (default 2)",
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="write the calibrated config here (default: the config in use; required with the packaged config)",
    )
    parser.add_argument(
        "--grip",
        action="store_true",
        help="only measure the grip sensor (gripper closed empty, then on a disk) and save grip_threshold_u16",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The guided session (or ``--grip`` alone), then one write; returns 0 when saved, 1 if input ended early or
    an e-stop from another process stopped it (nothing saved then)."""
    from ..config.writer import ConfigWriter
    from ..ops.person import Person, link_keeper
    from .grip_calibration import ask_grip_threshold

    step = step_from(args.step)
    target = output_path(args.output, resolved_config_path(args))
    with open_robot(args) as robot:
        prepare_for_jogging(robot)
        source = robot.config.source_path
        if source is None:
            raise ConfigError("the robot config was not read from a file: pass --config FILE and --output FILE")
        writer = ConfigWriter(source)
        person = Person(link_keeper(robot.session))
        if not args.grip:
            jogger = Jogger(robot, step_deg=step)
            for peg in range(len(robot.config.board.pegs)):
                point = calibrate_peg(jogger, person, peg)
                if point is None:
                    return _stopped(person)
                writer.set_peg(peg, *point)
                print(f"peg {peg_letter(peg)}: x={point[0]:.1f} y={point[1]:.1f} mm", flush=True)
            jogger.go_to_peg(len(robot.config.board.pegs) - 1, at_foot=False)  # up, clear of the pegs
        measured = ask_grip_threshold(robot, person, skippable=not args.grip)
        if measured is None and (args.grip or person.was_stopped):
            return _stopped(person)
        if measured is not None:
            empty, held, threshold = measured
            writer.set_grip_threshold(threshold)
            print(f"grip current: empty {empty}, on a disk {held}: grip_threshold_u16 = {threshold}", flush=True)
    writer.save(target)
    what = "the grip threshold" if args.grip else f"{len(robot.config.board.pegs)} peg positions"
    grip = "" if args.grip or measured is None else " and the grip threshold"
    print(f"saved {what}{grip} to {target}")
    return 0


def _stopped(person: Any) -> int:
    """Say why the session ended before saving; exit code 1."""
    from .jog import ESTOPPED_WHILE_WAITING

    why = ESTOPPED_WHILE_WAITING if person.was_stopped else "the input ended"
    print(f"calibration stopped ({why}): nothing was saved")
    return 1


def calibrate_peg(jogger: Jogger, person: Any, peg: int) -> tuple[float, float] | None:
    """Take the arm to where the config puts the foot of peg number ``peg``, let the person jog the grip point
    there until a save key; the grip point (x, y) in mm then, None if input ends, ``q`` or a stop."""
    letter = peg_letter(peg)
    note = jogger.go_to_peg(peg, at_foot=True)
    print(f"peg {letter}: at the foot where the config has it{f' (stopped: {note})' if note else ''}", flush=True)
    jogger.axis = "x"
    print(
        f"jog with x / y and + / - until the open fingers stand around the foot of peg {letter}, then press s",
        flush=True,
    )
    return jog_until_saved(jogger, person.pressed_keys())


def output_path(output: str | None, config: Path) -> Path:
    """The file to write the calibrated config to: ``output``, else the ``config`` in use.

    Checked before anything moves: a ConfigError when that would be the default robot config (the checkout's
    ``hardware/robot.toml`` or the copy packaged with hanoibot) and ``--output`` was not given, and always for
    the packaged copy (it lies in site-packages).
    """
    from ..config import default_config_path, is_packaged_config

    target = Path(output) if output else config
    is_default = target.resolve() == default_config_path().resolve()
    if is_packaged_config(target) or (output is None and is_default):
        raise ConfigError(
            f"calibrate never writes the default robot config ({target}) unless told to: "
            "pass --output FILE to save the calibrated config there (or --config FILE to calibrate your own copy; "
            "hanoibot init makes one)"
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
