"""What the page draws of the robot, computed from what the host knows: pure functions, lengths in mm.

The board is drawn with :func:`hanoibot.render.layout.layout_from_config` (the SVG renderer's geometry) and the arm
from the pulses the board reports, through the config's own forward kinematics, projected the same way.
"""

from __future__ import annotations

from typing import Any

from ..config import RobotConfig
from ..render.layout import BoardLayout, layout_from_config

#: The way back from a latched e-stop, in the page's words: the one sentence every message after an e-stop uses.
ESTOP_RECOVERY = "Look at the arm, press Clear, then Home or Resume."
#: What the page is told after a board reset.
RESET_WORDS = (
    "the board was reset: its servos are off and the arm is limp. Take a disk out of the gripper by hand and put "
    "it on a peg, then Home, or Resume the run"
)
#: What to do after a run stopped in fault (a missed pick, a lost link, a collision): the page's advice.
FAULT_ADVICE = (
    "Look at the arm and the disks: put a disk that is not where the arm's board shows it back there (or set the "
    "Play board to where the disks are and press Connect), press Clear if a fault is latched, then Home, and Resume "
    "to finish the run"
)
#: What the board's latched fault names mean, in the operator's words.
FAULT_WORDS = {
    "ESTOP": f"E-stop latched: the arm holds its pose. {ESTOP_RECOVERY}",
    "HOST_LOST": "the board stopped hearing the host and froze the arm. Press Clear, then Home.",
    "LIMIT": "a servo pulse left its limits; the board stopped. Check the config, then Clear and Home.",
    "POWER_LOST": "the servo power rail dropped and the board let go of the servos: restore power, Clear, Home.",
}


def fault_words(faults: tuple[str, ...] | list[str]) -> list[str]:
    """Each latched fault name as a sentence (unknown names are shown as the board sent them)."""
    return [FAULT_WORDS.get(name, f"board fault {name}: press Clear, then Home") for name in faults]


def geometry_json(layout: BoardLayout) -> dict[str, Any]:
    """The board layout as the page reads it (mm; u along the pegs, z up)."""
    return {
        "peg_u_mm": list(layout.peg_u_mm),
        "peg_foot_z_mm": [layout.foot_z_mm(peg) for peg in range(len(layout.peg_u_mm))],
        "peg_height_mm": layout.peg_height_mm,
        "peg_diameter_mm": layout.peg_diameter_mm,
        "disk_diameters_mm": list(layout.disk_diameters_mm),
        "disk_thickness_mm": layout.disk_thickness_mm,
        "base_mm": list(layout.base_mm) if layout.base_mm is not None else None,
        "disk_colours": list(layout.disk_colours),
    }


def config_geometry(config: RobotConfig) -> tuple[BoardLayout, dict[str, Any]]:
    """The robot's board layout and its JSON form."""
    layout = layout_from_config(config)
    return layout, geometry_json(layout)


def arm_polyline_mm(config: RobotConfig, layout: BoardLayout, pulses_us: tuple[int, ...]) -> list[list[float]]:
    """The arm as drawn (its base, each joint of the chain, the grip point) in page mm, or [] before the board
    outputs pulses."""
    if not pulses_us or min(pulses_us) <= 0:
        return []
    points = config.arm_points(pulses_us)
    flat = [layout.project((p.x_mm, p.y_mm, p.z_mm)) for p in points]
    if layout.base_mm is not None:
        flat.insert(0, layout.base_mm)
    return [[round(u, 2), round(z, 2)] for u, z in flat]
