"""The arm as data (DESIGN decision 20): a kinematic chain of N joints, IK per family, URDF import, kit presets.

Motion, the config, the run and the simulator use this room (never the reverse). Pure, numpy-free, no I/O but the
preset and URDF readers at its edge. See :mod:`.chain` (the model), :mod:`.ik` (the IK interface and families),
:mod:`.urdf`, :mod:`.presets` and :mod:`.board` (the board a preset can reach).
"""

from .board import BoardLayout, PegSpot, check_reach, grasp_targets
from .chain import Actuator, Chain, Coupling, GraspMode, Joint, Point, ServoSlot, Tool
from .ik import FAMILIES, InverseKinematics, make_ik
from .ik_numeric import NumericIK
from .ik_parallelogram import ParallelogramIK
from .ik_serial import SerialPitchIK
from .presets import PRESET_NAMES, Preset, load_preset, parse_chain, parse_preset, preset_text, read_preset
from .urdf import UrdfImport, parse_urdf, read_urdf

__all__ = [
    "FAMILIES",
    "PRESET_NAMES",
    "Actuator",
    "BoardLayout",
    "Chain",
    "Coupling",
    "GraspMode",
    "InverseKinematics",
    "Joint",
    "NumericIK",
    "ParallelogramIK",
    "PegSpot",
    "Point",
    "Preset",
    "SerialPitchIK",
    "ServoSlot",
    "Tool",
    "UrdfImport",
    "check_reach",
    "grasp_targets",
    "load_preset",
    "make_ik",
    "parse_chain",
    "parse_preset",
    "parse_urdf",
    "preset_text",
    "read_preset",
    "read_urdf",
]
