"""Motion's words for the arm's kinematics: a grip point is a :class:`Point` in the arm frame (mm).

The arm itself is data (:mod:`hanoibot.arm`): a chain of N joints with its forward kinematics and the IK of its
family. :class:`~hanoibot.motion.robot.RobotConfig` asks them for joint angles (``grasp_angles``: the grip point
at the grasp mode's tool pitch) and grip points (``grip_point``), and converts joint angles to channel pulses.
Coordinates: origin on the base yaw axis on the table top, +x forward from the arm, +y to its left, +z up.
"""

from __future__ import annotations

from ..arm import Point

#: Absolute tool pitch in degrees for a gripper pointing straight down (a top-down grasp).
VERTICAL_DOWN_DEG = -90.0

__all__ = ["VERTICAL_DOWN_DEG", "Point"]
