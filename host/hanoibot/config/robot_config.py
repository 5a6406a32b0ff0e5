"""The robot config: ``hardware/robot.toml`` read with :mod:`tomllib` and validated where each option is read.

A wheel ships that file as ``hanoibot/data/robot.toml`` (in the source tree, a link to ``hardware/robot.toml``), so
an installed hanoibot has a default robot too; a checkout reads ``hardware/robot.toml`` itself.

Every option is checked against its bounds as it is read; an unknown or misspelt key, a missing key, a value out
of bounds or a board the arm cannot serve is a :class:`~hanoibot.errors.ConfigError` naming the key and the
section (an unreachable peg is an :class:`~hanoibot.errors.UnreachableError` naming the peg and the level).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import itertools
import tomllib
from dataclasses import replace
from pathlib import Path

from hanoifw.protocol import HARD_MAX_PULSE_US, HARD_MIN_PULSE_US, MAX_GRIP_THRESHOLD

from ..arm import Chain
from ..errors import ConfigError, UnreachableError
from ..motion.calibration import Calibration, LinearCalibration, PointsCalibration
from ..motion.drivers import DEFAULT_DRIVER, DRIVERS
from ..motion.geometry import DEFAULT_MAX_ACCEL_DEG_S2, Board, ColourSet, Peg
from ..motion.hardware import DEFAULT_FINGER_WIDTH_MM, DEFAULT_POSE_TOLERANCE_DEG, Gripper, MotionSettings, Servo
from ..motion.margins import check_margins
from ..motion.robot import RobotConfig
from ..motion.timing import MIN_JERK_PEAK_RATIO
from ..motion.tolerances import Tolerances
from ..motion.workspace import check_board, check_reachable
from ..puzzle import MAX_PEGS, MIN_PEGS, peg_letter
from ..puzzle.colours import COLOUR_NAMES
from .arm_config import read_arm
from .reader import Section

#: Grip threshold without ``grip_threshold_u16``: 1.65 V, i.e. 0.33 A through the sensor of hardware/README.md
#: (0.1 ohm, gain 50), between an MG90S at rest and stalled on a disk. ``hanoibot calibrate --grip`` measures it.
DEFAULT_GRIP_THRESHOLD_U16 = 32768

#: Largest disk count a board may declare (the simulated runs use up to 8).
MAX_DISKS = 16


#: ``hardware/robot.toml`` of the source tree this module sits in (``<root>/host/hanoibot/config``), THE robot file.
SOURCE_TREE_CONFIG = Path(__file__).resolve().parents[3] / "hardware" / "robot.toml"
#: Where the packaged copy lies inside the ``hanoibot`` package (a wheel ships ``hardware/robot.toml`` there).
PACKAGED_CONFIG_PARTS = ("data", "robot.toml")


def default_config_path() -> Path:
    """The default robot config: ``hardware/robot.toml`` when running from a checkout, else the packaged copy."""
    in_checkout = Path(__file__).resolve().parents[2].name == "host"
    if in_checkout and SOURCE_TREE_CONFIG.is_file():
        return SOURCE_TREE_CONFIG
    return packaged_config_path()


def packaged_config_path() -> Path:
    """The robot config shipped inside the installed ``hanoibot`` package (a file of the package directory)."""
    resource = importlib.resources.files("hanoibot").joinpath(*PACKAGED_CONFIG_PARTS)
    return resource if isinstance(resource, Path) else Path(str(resource))


def is_packaged_config(path: Path) -> bool:
    """True if ``path`` is the packaged robot config, which must never be written (it lies in site-packages).

    The file itself is not resolved: in a checkout the packaged copy is a link to ``hardware/robot.toml``.
    """
    packaged = packaged_config_path()
    return path.parent.resolve() / path.name == packaged.parent.resolve() / packaged.name


def config_hash(data: bytes) -> str:
    """sha256 (hex) of a config file's bytes: the journal uses it to refuse resuming on another robot."""
    return hashlib.sha256(data).hexdigest()


def load_config(path: str | Path | None = None) -> RobotConfig:
    """Read and validate the robot config at ``path`` (default :func:`default_config_path`)."""
    source = Path(path) if path is not None else default_config_path()
    try:
        data = source.read_bytes()
    except OSError as err:
        raise ConfigError(f"cannot read robot config {str(source)!r}: {err.strerror or err}") from err
    return parse_config(data, source_path=source)


def parse_config(data: bytes, *, source_path: Path | None = None) -> RobotConfig:
    """Validate a robot config given as TOML bytes (``source_path`` only names it in messages and the result, and
    is where a URDF named in ``[arm]`` is looked for)."""
    name = str(source_path) if source_path is not None else "robot config"
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"{name} is not valid TOML: {err}") from err
    root = Section("", document)
    arm_name = _read_about(root.table("preset")) if root.has("preset") else "robot"
    board = _read_board(root.table("board"))
    chain, notes = read_arm(root, source_path, arm_name)
    motion = _read_motion(root.table("motion"))
    servos_section = root.table("servos")
    servos = _read_servos(servos_section, chain)
    gripper = _read_gripper(servos_section.table(chain.tool.name), root.table("gripper"), chain.tool.name, len(servos))
    driver = servos_section.word("driver", tuple(DRIVERS), default=DEFAULT_DRIVER)
    servos_section.finish()
    tolerances = _read_tolerances(root.table("tolerances")) if root.has("tolerances") else Tolerances()
    root.finish()
    check_board(board, gripper, chain.grasp, clearance_mm=motion.clearance_mm)
    config = RobotConfig(
        board, chain, servos, gripper, motion, config_hash(data), source_path, tolerances, driver, notes
    )
    _check_start_pose(config)
    check_reachable(config)
    _check_colour_set(config)
    check_margins(config, tolerances)
    return config


def _read_about(section: Section) -> str:
    """``[preset]`` (a kit's robot config, :mod:`hanoibot.arm.presets`): its name, which names the arm."""
    name = section.text("name")
    section.text("description")
    section.finish()
    return name


def _read_servos(section: Section, chain: Chain) -> tuple[Servo, ...]:
    """``[servos.<name>]`` for each of the chain's servos, in wire order (:attr:`~hanoibot.arm.Chain.servo_slots`)."""
    held_speeds = [a.max_speed_deg_s for a in chain.actuators]
    held_accels = [a.max_accel_deg_s2 for a in chain.actuators]
    servos = []
    for channel, slot in enumerate(chain.servo_slots):
        table = section.table(slot.name)
        if slot.actuator is not None:
            actuator = chain.actuators[slot.actuator]
            low, high = actuator.min_deg, actuator.max_deg
            speed, accel, held = actuator.max_speed_deg_s, actuator.max_accel_deg_s2, None
        else:
            assert slot.held_joint is not None
            held = chain.joints[slot.held_joint].held_deg
            assert held is not None
            # It never moves while hanoibot runs: the slowest servo's limits, for the one move that switches it on.
            low = high = held
            speed, accel = min(held_speeds), min(held_accels)
        _check_wire_channel(table, channel)
        min_us, max_us = _read_pulse_range(table)
        calibration = _read_calibration(table)
        for key, angle_deg in (("min_deg", low), ("max_deg", high)):
            pulse_us = calibration.pulse_us(angle_deg)
            if not min_us <= pulse_us <= max_us:
                what = f"held_deg = {angle_deg:g}" if held is not None else f"{key} = {angle_deg:g}"
                raise table.error(
                    "min_us" if pulse_us < min_us else "max_us",
                    min_us if pulse_us < min_us else max_us,
                    f"a range that holds the pulse {pulse_us:.0f} µs of [arm.{slot.name}] {what}",
                )
        start_deg = table.number("start_deg", low, high) if held is None else held
        table.finish()
        servos.append(Servo(slot.name, min_us, max_us, calibration, start_deg, low, high, speed, accel, held))
    return tuple(servos)


def _check_start_pose(config: RobotConfig) -> None:
    """The start pose (every servo's ``start_deg``) must keep every joint within its limits: a coupled joint (the
    MeArm's elbow) is set by two servos."""
    angles = config.chain.joint_angles([config.servos[c].start_deg for c in config.actuator_channels])
    try:
        config.chain.check_limits(angles, "the start pose ([servos] start_deg)")
    except UnreachableError as err:
        raise ConfigError(str(err)) from None


def _read_tolerances(section: Section) -> Tolerances:
    """``[tolerances]``: how far the built robot may differ from the config (hanoibot.motion.margins)."""
    tolerances = Tolerances(
        calibration_deg=section.number("calibration_deg", 0.0, 10.0),
        servo_deadband_us=section.number("servo_deadband_us", 0.0, 50.0),
        servo_backlash_us=section.number("servo_backlash_us", 0.0, 50.0),
        servo_speed_sag=section.number("servo_speed_sag", 0.0, 0.5),
        servo_accel_factor=section.number("servo_accel_factor", 1.0, 100.0, default=Tolerances.servo_accel_factor),
        peg_position_mm=section.number("peg_position_mm", 0.0, 20.0),
        peg_height_mm=section.number("peg_height_mm", 0.0, 20.0),
        disk_hole_mm=section.number("disk_hole_mm", 0.0, 10.0),
        disk_thickness_mm=section.number("disk_thickness_mm", 0.0, 5.0),
    )
    section.finish()
    return tolerances


def _read_board(section: Section) -> Board:
    peg_height_mm = section.number("peg_height_mm", 5.0, 500.0)
    peg_diameter_mm = section.number("peg_diameter_mm", 1.0, 50.0)
    disk_count = section.integer("disk_count", 1, MAX_DISKS)
    diameters_mm = section.numbers("disk_diameters_mm", peg_diameter_mm, 300.0, count=disk_count)
    if any(b <= a for a, b in itertools.pairwise(diameters_mm)):
        raise section.error("disk_diameters_mm", diameters_mm, "strictly rising diameters, smallest disk first")
    thickness_mm = section.number("disk_thickness_mm", 1.0, 100.0)
    hole_mm = section.number(
        "disk_hole_diameter_mm", peg_diameter_mm, min(diameters_mm), low_open=True, default=peg_diameter_mm + 2.0
    )
    peg_tables = section.tables("pegs", MIN_PEGS, MAX_PEGS)
    pegs = []
    for index, table in enumerate(peg_tables):
        x_mm = table.number("x_mm", -1000.0, 1000.0)
        y_mm = table.number("y_mm", -1000.0, 1000.0)
        height_mm = table.number("height_mm", 5.0, 500.0, default=peg_height_mm)
        table.finish()
        pegs.append(Peg(peg_letter(index), x_mm, y_mm, height_mm))
    colour_set = _read_colour_set(section.table("colour_set"), peg_diameter_mm) if section.has("colour_set") else None
    section.finish()
    return Board(
        tuple(pegs), peg_diameter_mm, diameters_mm, thickness_mm, colour_set, hole_play_mm=hole_mm - peg_diameter_mm
    )


def _read_colour_set(section: Section, peg_diameter_mm: float) -> ColourSet:
    """``[board.colour_set]``: the coloured disks' diameters (smallest first) and their colours."""
    diameters_mm = section.numbers("diameters_mm", peg_diameter_mm, 300.0, count=None)
    if any(b <= a for a, b in itertools.pairwise(diameters_mm)):
        raise section.error("diameters_mm", diameters_mm, "strictly rising diameters, smallest size first")
    colours = section.choices("colours", COLOUR_NAMES)
    section.finish()
    return ColourSet(diameters_mm, colours)


def _check_colour_set(config: RobotConfig) -> None:
    """The full coloured set (every size in every colour) must fit the board and the arm like the plain set."""
    board = config.board
    if board.colour_set is None:
        return
    owned = board.colour_set
    full = replace(config, board=board.with_colour_disks(len(owned.diameters_mm), len(owned.colours)))
    try:
        check_board(full.board, full.gripper, full.chain.grasp, clearance_mm=full.motion.clearance_mm)
        check_reachable(full)
    except ConfigError as err:
        raise type(err)(f"[board.colour_set] of {full.board.disk_count} disks does not fit: {err}") from None


def _check_wire_channel(section: Section, wire_channel: int) -> None:
    """An optional ``channel`` key must name the servo's wire channel (its place in joint order, gripper last):
    which pin or PCA9685 output drives a channel is set in the firmware's board_config.py, not here."""
    if section.has("channel"):
        try:
            section.integer("channel", wire_channel, wire_channel)
        except ConfigError as err:
            value = str(err).split(" = ", 1)[1].split(": expected", 1)[0]
            raise ConfigError(
                f"{section.where('channel')} = {value}: expected {wire_channel}, the wire channel of this servo "
                "(pins and PCA9685 outputs are set in board_config.py); or leave channel out"
            ) from None


def _read_pulse_range(section: Section) -> tuple[int, int]:
    """``min_us`` and ``max_us`` of a servo table, within the firmware's own range (the one the board accepts)."""
    min_us = section.integer("min_us", HARD_MIN_PULSE_US, HARD_MAX_PULSE_US)
    max_us = section.integer("max_us", HARD_MIN_PULSE_US, HARD_MAX_PULSE_US)
    if max_us <= min_us:
        raise section.error("max_us", max_us, f"more than min_us = {min_us} (the pulse range is inverted)")
    return min_us, max_us


def _read_calibration(section: Section) -> Calibration:
    """Either ``points_deg_us`` or ``center_us`` + ``offset_deg`` + ``direction`` + ``us_per_deg``."""
    if section.has("points_deg_us"):
        points = section.pairs("points_deg_us", (-360.0, 360.0), (HARD_MIN_PULSE_US, HARD_MAX_PULSE_US))
        try:
            return PointsCalibration(points)
        except ConfigError as err:
            raise section.error("points_deg_us", [list(p) for p in points], str(err).split(": ", 1)[-1]) from None
    center_us = section.number("center_us", HARD_MIN_PULSE_US, HARD_MAX_PULSE_US)
    offset_deg = section.number("offset_deg", -360.0, 360.0)
    direction = section.integer("direction", -1, 1)
    if direction == 0:
        raise section.error("direction", direction, "1 (a longer pulse turns the joint positive) or -1")
    us_per_deg = section.number("us_per_deg", 1.0, 50.0)
    return LinearCalibration(center_us, offset_deg, direction, us_per_deg)


def _read_gripper(servo: Section, section: Section, name: str, wire_channel: int) -> Gripper:
    """``[servos.<tool>]`` and ``[gripper]``: the gripper's servo and its fingers."""
    _check_wire_channel(servo, wire_channel)
    min_us, max_us = _read_pulse_range(servo)
    us_per_deg = servo.number("us_per_deg", 1.0, 50.0)
    servo.finish()
    open_us = section.integer("open_us", min_us, max_us)
    closed_us = section.integer("closed_us", min_us, max_us)
    if closed_us == open_us:
        raise section.error("closed_us", closed_us, f"a pulse other than open_us = {open_us}")
    open_width_mm = section.number("open_width_mm", 1.0, 300.0)
    closed_width_mm = section.number("closed_width_mm", 0.0, open_width_mm, high_open=True)
    finger_length_mm = section.number("finger_length_mm", 1.0, 500.0)
    finger_width_mm = section.number("finger_width_mm", 0.5, 100.0, default=DEFAULT_FINGER_WIDTH_MM)
    speed_deg_s = section.number("max_speed_deg_s", 0.0, 3000.0, low_open=True)
    accel_deg_s2 = section.number("max_accel_deg_s2", 0.0, 100000.0, low_open=True, default=DEFAULT_MAX_ACCEL_DEG_S2)
    squeeze_mm = section.number("squeeze_mm", 0.0, 20.0)
    grip_sensor = section.boolean("grip_sensor")
    threshold = 0
    if section.has("grip_threshold_u16"):
        threshold = section.integer("grip_threshold_u16", 1, MAX_GRIP_THRESHOLD)
    elif grip_sensor:
        threshold = DEFAULT_GRIP_THRESHOLD_U16
    section.finish()
    return Gripper(
        min_us, max_us, us_per_deg, open_us, closed_us, open_width_mm, closed_width_mm,
        finger_length_mm, speed_deg_s, squeeze_mm, grip_sensor, threshold, accel_deg_s2, name, finger_width_mm,
    )  # fmt: skip


def _read_motion(section: Section) -> MotionSettings:
    clearance_mm = section.number("clearance_mm", 1.0, 100.0)
    tolerance_mm = section.number("line_tolerance_mm", 0.5, 20.0)
    settle_ms = section.integer("settle_ms", 0, 2000)
    if section.has("profile_peak_ratio"):  # a setting until the host took the ratio from the firmware itself
        peak_ratio = section.number("profile_peak_ratio", 1.0, 3.0)
        if peak_ratio != MIN_JERK_PEAK_RATIO:
            raise ConfigError(
                f"profile_peak_ratio = {peak_ratio:g} in section [motion] is no longer a setting: plain moves are "
                f"timed with the firmware's own minimum-jerk peak ({MIN_JERK_PEAK_RATIO:g}); delete the line"
            )
    if section.has("on_peg_speed_ratio"):  # a tuned figure until it followed from [tolerances]
        raise ConfigError(
            "on_peg_speed_ratio in section [motion] is no longer a setting: the speed of lifts and lowers follows "
            "from [tolerances] and the servo model (docs/margins.md); delete the line"
        )
    pose_tolerance_deg = section.number("pose_tolerance_deg", 0.5, 30.0, default=DEFAULT_POSE_TOLERANCE_DEG)
    section.finish()
    return MotionSettings(clearance_mm, tolerance_mm, settle_ms, pose_tolerance_deg)
