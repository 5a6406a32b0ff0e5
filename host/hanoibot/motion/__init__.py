"""Robot model: board geometry, arm kinematics (IK/FK), servo calibration, the :class:`~.robot.RobotConfig` value,
the pick-and-place phases (:class:`~.phases.MotionPhase`) and Move -> Segments.

Motion imports nothing above it (never :mod:`hanoibot.config`, which parses TOML into these types); this package
file imports nothing itself, so a caller pays only for the modules it uses.
"""
