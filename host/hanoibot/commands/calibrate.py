"""``hanoibot calibrate``: one guided session that finds where each peg stands and the grip sensor's threshold,
each saved into the robot config as soon as it is confirmed.

For each peg in turn the arm goes to where the config says the peg's foot is (up, across, down, fingers open);
jog the grip point with ``x`` / ``y`` and ``+`` / ``-`` (keys as ``hanoibot jog``; ``]`` / ``[`` change the step,
in mm) until the open fingers stand evenly around the foot of the peg, then press ``s`` (or Enter): the grip
point, from the servo pulses and the arm's kinematics, becomes that peg's ``x_mm`` and ``y_mm`` and is saved at
once (:mod:`hanoibot.config.writer`: comments and layout kept, validated before it is written). A session cut
short (``q``, the end of input, an e-stop, a closed terminal) keeps what was saved, and the next ``hanoibot
calibrate`` on that config goes on from the first peg not yet confirmed, and says so (``--restart`` begins again
at peg A). Then the grip sensor is measured, which needs a disk held between the fingers: type ``skip`` at its
question to leave the threshold as it is (on a simulated board, where no hand can hold a disk, always skip it).

Bus servos (Feetech STS/SCS: the SO-101, ``feetech://``, a board with SERVO_DRIVER = "bus") say where they are,
so there ``calibrate`` reads positions instead of counting keys (chosen by itself when the board's STATUS carries
measured positions; ``--bus`` or ``--keys`` choose): the servos go limp, you move the arm by hand to each peg, at its
foot and above it, and press s; each servo's offset and direction are fitted to the pegs and saved as each peg is
confirmed; then you move every joint through its range (as lerobot's calibrate asks) and the lowest and highest
positions, a margin inside, become its pulse limits. The servos then hold again and the arm goes above each peg by
itself, calibrated, for you to check. The pegs' positions in the config are the reference here: measure them on
the board.

The robot config packaged with an installed hanoibot is never rewritten (it lies in site-packages): with it in use,
name the file to write with ``--output FILE``, or make your own with ``hanoibot init``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..ops.peg_calibration import PEG_STEP_MM
from ..puzzle import peg_letter
from .jog import Jogger, prepare_for_jogging, step_from, unknown_key
from .status import add_port_arguments, resolved_config_path, robot_for

SAVE_KEYS = ("s", "\n", "\r")
#: The keys at a peg, as an unknown key is told them.
PEG_KEYS = (
    "keys at a peg: x / y (z, t) pick what + / - move, ] / [ double / halve the step, s or Enter saves this peg, "
    "q stops (saved pegs stay saved); 1-5 a joint, A, B, ... above that peg, v down to its foot, p the pose"
)


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
            "  hanoibot calibrate --restart # every peg again, forgetting a calibration that was cut short\n"
            "  hanoibot calibrate --port 'feetech:///dev/ttyACM0?ids=1,2,3,4,5,6' --config so101.toml\n"
            "                               # an SO-101 on its USB bus adapter: by hand, read from the servos\n"
            "  hanoibot calibrate --keys    # key calibration (jogging) even where the servos say where they are\n\n"
            "At the grip sensor's question type skip to leave its threshold as it is (on the virtual Pico or any "
            "simulated board: nobody can hold a disk between its fingers).\n"
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
    parser.add_argument(
        "--restart",
        action="store_true",
        help="begin at peg A even when an earlier calibration of this config was cut short (default: go on)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--bus",
        action="store_true",
        help="calibrate from the servos' measured positions, moving the arm by hand (the default when the board "
        "reports them: bus servos)",
    )
    mode.add_argument(
        "--keys",
        action="store_true",
        help="calibrate the pegs by jogging with keys (the default for PWM servos, which cannot say where they are)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The guided session (or ``--grip`` alone); returns 0 when it ended (every peg saved, the grip step measured
    or skipped), 1 if input ended early or an e-stop from another process stopped it (what was confirmed by then
    stays saved, and the next ``hanoibot calibrate`` goes on from there)."""
    from ..config.writer import ConfigWriter
    from ..ops.person import Person, link_keeper

    step = step_from(args.step)
    target = output_path(args.output, resolved_config_path(args))
    with robot_for(args) as robot:
        source = robot.config.source_path
        if source is None:
            raise ConfigError("the robot config was not read from a file: pass --config FILE and --output FILE")
        writer = ConfigWriter(source)
        person = Person(link_keeper(robot.session))
        if not args.grip and _by_bus(robot, args):
            from ..cli_support.bus_calibration import BusCalibration

            prepare_for_jogging(robot, configure=False)  # the servos go limp: nothing moves before it is done
            return BusCalibration(robot, person, writer, target, restart=args.restart).run()
        prepare_for_jogging(robot)
        if args.grip:
            return _grip_alone(robot, person, writer, target)
        return _session(robot, person, writer, target, step, restart=args.restart)


def _by_bus(robot: Any, args: argparse.Namespace) -> bool:
    """Whether to calibrate from measured positions: ``--bus``, ``--keys``, else whether the board reports them.
    ``--bus`` on a board that reports none is a ConfigError naming the port."""
    from ..ops.bus_hand import reports_positions

    if args.keys:
        return False
    measured = reports_positions(robot)
    if args.bus and not measured:
        port = getattr(args, "port", None) or robot.port_url
        raise ConfigError(
            f"--bus: the board on {port} reports no measured positions (PWM servos cannot say where they are): "
            "calibrate with keys (leave out --bus)"
        )
    return measured


def _session(robot: Any, person: Any, writer: Any, target: Path, step: float, *, restart: bool) -> int:
    """Every peg not yet confirmed (each saved at once), then the grip step; see :func:`run`."""
    from ..cli_support.grip_calibration import SKIP_WORD, ask_grip_threshold
    from ..ops.calibration_progress import CalibrationProgress, load_progress

    pegs = len(robot.config.board.pegs)
    progress, set_aside = (CalibrationProgress(target, pegs), "") if restart else load_progress(target, pegs)
    if restart:
        progress.finish()
    if set_aside:
        print(f"calibrate: {set_aside}", flush=True)
    for peg, (x_mm, y_mm) in progress.confirmed.items():
        writer.set_peg(peg, x_mm, y_mm)  # already in the file when it is the target; again for another --output
    letters = ", ".join(peg_letter(peg) for peg in range(pegs))
    if progress.confirmed:
        left = f"at peg {peg_letter(progress.next_peg)}" if progress.next_peg < pegs else "at the grip sensor"
        print(
            f"calibrate: going on with the calibration that stopped {left}: {pegs_words(progress.confirmed)} "
            f"saved to {target} (started {progress.started}; --restart begins again at peg A)",
            flush=True,
        )
    else:
        print(
            f"calibrate: pegs {letters}, each saved to {target} as soon as you press s; then the grip sensor "
            f"(type {SKIP_WORD} there to leave its threshold as it is)",
            flush=True,
        )
    jogger = Jogger(robot, step_deg=step)
    for peg in range(progress.next_peg, pegs):
        point = calibrate_peg(jogger, person, peg, writer, target)
        if point is None:
            return _stopped(person, progress, target)
        progress.confirm(peg, *point)
        print(f"peg {peg_letter(peg)}: x={point[0]:.1f} y={point[1]:.1f} mm, saved to {target}", flush=True)
    jogger.go_to_peg(pegs - 1, at_foot=False)  # up, clear of the pegs
    measured = ask_grip_threshold(robot, person, skippable=True)
    if measured is None and person.was_stopped:
        return _stopped(person, progress, target)
    if measured is not None:
        empty, held, threshold = measured
        writer.set_grip_threshold(threshold)
        writer.save(target)
        print(f"grip current: empty {empty}, on a disk {held}: grip_threshold_u16 = {threshold}", flush=True)
    progress.finish()
    grip = " and the grip threshold" if measured is not None else ""
    print(f"saved {pegs} peg positions{grip} to {target}")
    return 0


def _grip_alone(robot: Any, person: Any, writer: Any, target: Path) -> int:
    """``--grip``: measure the grip sensor and save the threshold; 1 when the input ended or a stop came."""
    from ..cli_support.grip_calibration import ask_grip_threshold

    measured = ask_grip_threshold(robot, person, skippable=False)
    if measured is None:
        from .jog import ESTOPPED_WHILE_WAITING

        why = ESTOPPED_WHILE_WAITING if person.was_stopped else "the input ended"
        print(f"calibration stopped ({why}): nothing was saved")
        return 1
    empty, held, threshold = measured
    writer.set_grip_threshold(threshold)
    writer.save(target)
    print(f"grip current: empty {empty}, on a disk {held}: grip_threshold_u16 = {threshold}", flush=True)
    print(f"saved the grip threshold to {target}")
    return 0


def _stopped(person: Any, progress: Any, target: Path) -> int:
    """Say why the session ended early, what is saved and how to go on; exit code 1."""
    from .jog import ESTOPPED_WHILE_WAITING

    why = ESTOPPED_WHILE_WAITING if person.was_stopped else "the input ended"
    if not progress.confirmed:
        print(f"calibration stopped ({why}): nothing was saved")
        return 1
    left = f"peg {peg_letter(progress.next_peg)}" if progress.next_peg < progress.pegs_total else "the grip sensor"
    print(
        f"calibration stopped ({why}): {pegs_words(progress.confirmed)} saved in {target}; run hanoibot calibrate "
        f"again to go on from {left}"
    )
    return 1


def pegs_words(pegs: Any) -> str:
    """``peg A was`` or ``pegs A, B were``: the pegs numbered in ``pegs`` (0 = A), for a sentence."""
    letters = ", ".join(peg_letter(peg) for peg in sorted(pegs))
    return f"peg {letters} was" if len(pegs) == 1 else f"pegs {letters} were"


def calibrate_peg(jogger: Jogger, person: Any, peg: int, writer: Any, target: Path) -> tuple[float, float] | None:
    """Take the arm to where the config puts the foot of peg number ``peg``, let the person jog the grip point
    there until a save key, and save it into ``target`` at once; the grip point (x, y) in mm then, None if input
    ends, ``q`` or a stop. A position the config would refuse (a peg on another) is said, not saved: the person
    jogs on."""
    from ..ops.peg_calibration import save_peg

    letter = peg_letter(peg)
    note = jogger.go_to_peg(peg, at_foot=True)
    print(f"peg {letter}: at the foot where the config has it{f' (stopped: {note})' if note else ''}", flush=True)
    jogger.axis = "x"
    print(
        f"jog with x / y and + / - until the open fingers stand around the foot of peg {letter}, then press s",
        flush=True,
    )
    keys = person.pressed_keys()
    while True:
        point = jog_until_saved(jogger, keys)
        if point is None:
            return None
        try:
            save_peg(writer, target, peg, point)
        except ConfigError as err:
            print(f"peg {letter}: not saved: {err}; jog on and press s again", flush=True)
            continue
        return point


def output_path(output: str | None, config: Path) -> Path:
    """The file to write the calibrated config to (:func:`hanoibot.ops.peg_calibration.calibration_target`)."""
    from ..ops.peg_calibration import calibration_target

    return calibration_target(output, config)


def jog_until_saved(jogger: Jogger, keys: Any) -> tuple[float, float] | None:
    """Pass keys to ``jogger`` until a save key; the grip point (x, y) in mm then, None if input ends or q."""
    for key in keys:
        if key in SAVE_KEYS:
            point = jogger.robot.config.grip_point(jogger.pulses_us)
            return round(point.x_mm, 1), round(point.y_mm, 1)
        if key == "q":
            return None
        message = jogger.handle(key)
        print(message if message is not None else unknown_key(key, PEG_KEYS), flush=True)
    return None
