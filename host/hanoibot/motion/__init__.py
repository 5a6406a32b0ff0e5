"""Robot model: board geometry, arm kinematics (IK/FK), servo calibration and Move -> Segments.

Light on purpose: :mod:`hanoibot.config` imports the geometry, calibration and kinematics modules, and
:mod:`hanoibot.motion.segments` imports the config, so this package file imports nothing itself.
"""
