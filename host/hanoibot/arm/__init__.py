"""The arm as data (DESIGN decision 20): a kinematic chain of N joints, IK per family, URDF import, kit presets.

Nothing else uses this room yet; motion will (never the reverse). Pure, numpy-free, no I/O but the preset and URDF
readers at its edge. See :mod:`.chain` (the model), :mod:`.presets` and :mod:`.board` (the board a preset can reach).
"""

from .board import BoardLayout, PegSpot, grasp_targets
from .chain import Actuator, Chain, Coupling, GraspMode, Joint, Point, Tool
from .presets import PRESET_NAMES, Preset, load_preset, parse_chain, parse_preset, read_preset

__all__ = [
    "PRESET_NAMES",
    "Actuator",
    "BoardLayout",
    "Chain",
    "Coupling",
    "GraspMode",
    "Joint",
    "PegSpot",
    "Point",
    "Preset",
    "Tool",
    "grasp_targets",
    "load_preset",
    "parse_chain",
    "parse_preset",
    "read_preset",
]
