"""A whole robot config for an arm read from a URDF (``hanoibot init --urdf FILE``), as TOML text.

The config names the URDF in ``[arm] urdf = "<absolute path>"`` (read again at every load, so an edited URDF
counts) with the joints held that the import chose; the board, the gripper's fingers, ``[motion]`` and
``[tolerances]`` are the shipped robot's (hardware/robot.toml); ``[servos]`` gets one table per servo of the chain in
wire order with a nominal calibration: each joint's URDF range spread over the firmware's 500-2500 µs about its
middle (at most 11.1 µs/deg, a hobby servo's), a held joint's servo at 1500 µs. That is a start for the simulator
and for ``hanoibot calibrate``, not a measured servo: the comments say so.

When the chain the URDF gives does not fit the serial-pitch IK (a 5-joint arm's wrist roll moves), :func:`import_urdf`
holds one joint that makes it fit (the last such joint, at 0 deg or the middle of its range), with a note, unless
the caller named the joints to hold. Pure but for reading the two files (the URDF and the shipped robot config).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit

from ..arm import Chain, UrdfImport, make_ik, read_urdf
from ..errors import ConfigError, UnreachableError

#: The firmware's pulse range (hanoifw.protocol.HARD_MIN_PULSE_US .. HARD_MAX_PULSE_US) and its middle, µs.
MIN_US, MAX_US, CENTER_US = 500, 2500, 1500
#: The steepest nominal calibration: a hobby servo's 2000 µs over 180 deg.
MAX_US_PER_DEG = 11.1
#: How far above the peg tops the start pose holds the grip point, mm (tried in turn until one is reachable).
START_HEIGHTS_MM = (30.0, 50.0, 80.0, 15.0)


@dataclass(frozen=True)
class UrdfConfig:
    """The robot config's text, the chain it describes, and the import's notes (one line each)."""

    text: str
    chain: Chain
    notes: tuple[str, ...]


def import_urdf(path: Path, shipped: Path, held_deg: Mapping[str, float] | None = None) -> UrdfConfig:
    """The robot config for the URDF at ``path`` on the board of the robot config ``shipped``; ``held_deg`` names
    joints to hold (degrees; None: hold one if that makes the chain fit the serial-pitch IK)."""
    path = path.resolve()
    imported = read_urdf(path, held_deg=held_deg or {})
    held = dict(held_deg or {})
    notes = list(imported.notes)
    if held_deg is None and imported.chain.ik_family != "serial_pitch":
        chosen = _hold_for_serial_pitch(path, imported)
        if chosen is not None:
            name, angle = chosen
            held[name] = angle
            imported = read_urdf(path, held_deg=held)
            notes = list(imported.notes)
            notes.append(
                f"joint {name!r} held at {angle:g} deg so the gripper can point down (hanoibot's serial-pitch IK); "
                f"--hold {name}=DEG holds it elsewhere"
            )
    text = shipped.read_text(encoding="utf-8")
    document: Any = tomlkit.parse(text[text.find("\n[") + 1 :])  # its tables, not its opening comment
    document["arm"] = _arm_table(path, held)
    document["servos"] = _servos_table(imported.chain, _start_pose(imported.chain, document["board"]))
    return UrdfConfig(_header(path) + tomlkit.dumps(document), imported.chain, tuple(notes))


def _hold_for_serial_pitch(path: Path, imported: UrdfImport) -> tuple[str, float] | None:
    """A joint (last first, never the base) whose holding makes the chain serial-pitch, and its angle."""
    for joint in reversed(imported.chain.joints[1:]):
        if joint.is_held:
            continue
        angle = 0.0 if joint.min_deg <= 0.0 <= joint.max_deg else round((joint.min_deg + joint.max_deg) / 2.0, 3)
        trial = read_urdf(path, held_deg={joint.name: angle})
        if trial.chain.ik_family == "serial_pitch":
            return joint.name, angle
    return None


def _header(path: Path) -> str:
    """The file's opening comment: where it came from and what to measure."""
    return (
        f"# hanoibot robot config written by `hanoibot init --urdf {path}`.\n"
        "# The arm is read from the URDF at every load; the board, fingers, [motion] and [tolerances] are the\n"
        "# shipped robot's (hardware/robot.toml). The [servos] calibrations are nominal (each joint's URDF range\n"
        "# spread over 500-2500 µs about its middle): measure yours (`hanoibot calibrate`), and check the fingers'\n"
        "# widths and length in [gripper] against your gripper.\n\n"
    )


def _arm_table(path: Path, held: Mapping[str, float]) -> Any:
    """``[arm] urdf = ...`` and the joints held."""
    arm = tomlkit.table()
    arm["urdf"] = str(path)
    if held:
        hold = tomlkit.inline_table()
        hold.update({name: float(angle) for name, angle in held.items()})
        arm["hold"] = hold
    return arm


def _start_pose(chain: Chain, board: Any) -> tuple[float, ...]:
    """Joint angles (deg) of a start pose: the grip point above the middle of the pegs, clear of their tops, the
    tool as the grasp mode holds it; the middle of every servo's travel if none of :data:`START_HEIGHTS_MM` is
    reachable (the config's own checks then say what is wrong)."""
    pegs = [(float(p["x_mm"]), float(p["y_mm"])) for p in board["pegs"]]
    x_mm = sum(p[0] for p in pegs) / len(pegs)
    y_mm = sum(p[1] for p in pegs) / len(pegs)
    top_mm = max([float(board["peg_height_mm"])] + [float(p.get("height_mm", 0.0)) for p in board["pegs"]])
    ik = make_ik(chain)
    for height_mm in START_HEIGHTS_MM:
        try:
            angles = ik.solve((x_mm, y_mm, top_mm + height_mm), chain.grasp.pitch_deg, seed=chain.middle_pose())
            chain.check_limits(angles, "the start pose")
        except (UnreachableError, ConfigError):
            continue
        return angles
    return chain.middle_pose()


def _servos_table(chain: Chain, start_deg: tuple[float, ...]) -> Any:
    """``[servos]``: the board's pulse grid and one nominal calibration per servo, in wire order."""
    servos = tomlkit.table()
    servos["driver"] = "rp2"
    servos["driver"].comment("the board's PWM output: rp2 (a Pico's pins), esp32, esp32s3 or pca9685")
    actuator_deg = chain.actuator_angles(start_deg)
    for slot in chain.servo_slots:
        table = tomlkit.table()
        if slot.actuator is not None:
            servo = chain.actuators[slot.actuator]
            low, high = servo.min_deg, servo.max_deg
            start: float | None = round(actuator_deg[slot.actuator], 2)
        else:
            assert slot.held_joint is not None
            held = chain.joints[slot.held_joint].held_deg
            assert held is not None
            low = high = held
            start = None
        table.update(_calibration(low, high))
        if start is not None:
            table["start_deg"] = start
        servos[slot.name] = table
    tool = tomlkit.table()
    tool["min_us"], tool["max_us"] = MIN_US, MAX_US
    actuator = chain.tool.actuator
    tool["us_per_deg"] = _us_per_deg(actuator.max_deg - actuator.min_deg) if actuator is not None else MAX_US_PER_DEG
    servos[chain.tool.name] = tool
    return servos


def _calibration(low_deg: float, high_deg: float) -> dict[str, Any]:
    """A nominal linear calibration of a servo whose travel is ``low_deg`` .. ``high_deg``."""
    return {
        "min_us": MIN_US,
        "max_us": MAX_US,
        "center_us": CENTER_US,
        "offset_deg": round((low_deg + high_deg) / 2.0, 3),
        "direction": 1,
        "us_per_deg": _us_per_deg(high_deg - low_deg),
    }


def _us_per_deg(travel_deg: float) -> float:
    """µs per degree that spread ``travel_deg`` over the pulse range (rounded down to 0.01, at most 11.1)."""
    if travel_deg <= 0.0:
        return MAX_US_PER_DEG
    return min(MAX_US_PER_DEG, math.floor(100.0 * (MAX_US - MIN_US) / travel_deg) / 100.0)
