"""Where one jog step goes, worked out before anything moves (pure: no I/O).

A joint step turns one servo; a Cartesian step moves the grip point along x, y or z (mm) or tilts the tool
(``pitch``, degrees) with the rest of the tool pose kept, through inverse kinematics. Either way the step is
shortened to the first limit it meets (a joint or pulse limit, the arm's reach, or something the gripper could touch
per :mod:`hanoibot.motion.jog_space`) rather than refused, and checked along the path the servos really take (each
channel interpolated in pulses). :func:`peg_waypoints` is the way to a peg: up to the carry height, across, down
to above the peg or its foot.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

from ..arm import GraspMode
from ..errors import UnreachableError
from .geometry import Peg
from .jog_space import JOG_MARGIN_MM, obstacle_hit
from .kinematics import Point
from .robot import RobotConfig
from .workspace import carry_z_mm, hover_z_mm

#: Extra height (mm) a level claw crosses the board at, above what the keep-out model asks: the pulses' rounding
#: to whole µs must not bring its bars to the model's edge.
LEVEL_CLAW_SPARE_MM = 1.0

#: The Cartesian axes: three in mm, the tool's pitch in degrees.
CARTESIAN_AXES = ("x", "y", "z", "pitch")
#: Points checked along a step before it is taken.
STEP_SAMPLES = 16
#: Halvings when shortening a step to the first limit (2**-10 of a sample: below a servo's resolution).
LIMIT_BISECTIONS = 10
#: Longest straight leg of the way to a peg sent as one move, in mm (the servos interpolate joints, not lines).
WAYPOINT_MM = 10.0

Pulses = tuple[int, ...]


def tool_pose(config: RobotConfig, pulses_us: Sequence[float]) -> tuple[Point, float]:
    """The grip point in mm and the tool's absolute pitch in degrees for channel pulses ``pulses_us``."""
    return config.grip_point(pulses_us), config.tool_pitch_deg(pulses_us)


def pose_pulses(
    config: RobotConfig, point: Point, pitch_deg: float, gripper_us: int, seed: Sequence[float] | None = None
) -> Pulses:
    """Channel pulses in µs for the tool at ``point`` and ``pitch_deg``, the gripper at ``gripper_us`` (the joint
    angles nearest ``seed`` where the IK is numeric); UnreachableError when a joint or its servo's pulse range
    cannot get there."""
    where = f"point (x={point.x_mm:.1f}, y={point.y_mm:.1f}, z={point.z_mm:.1f}) mm, pitch {pitch_deg:.1f} deg"
    angles = config.grasp_angles(point, pitch_deg, seed=seed)
    pulses = config.pose_pulses_us(angles, gripper_us)
    config.check_servo_pulses(pulses, where)
    return pulses


def servo_target(config: RobotConfig, pulses_us: Pulses, channel: int, step_deg: float) -> tuple[Pulses, str | None]:
    """The pose one step of ``step_deg`` of the arm's servo on ``channel`` from ``pulses_us``, stopped at the
    servo's travel and pulse range and at the limits of every joint it moves (a MeArm's forearm servo moves the
    elbow and the claw's wrist), and a note naming the limit met (None when the full step fits)."""
    servo = config.servos[channel]
    now_deg = servo.angle_deg(pulses_us[channel])
    wanted_deg = min(max(now_deg + step_deg, servo.min_deg), servo.max_deg)
    note = None if wanted_deg == now_deg + step_deg else f"{servo.name} at its limit {wanted_deg:g} deg"

    def pose_at(angle_deg: float) -> Pulses:
        target = list(pulses_us)
        target[channel] = min(max(round(servo.pulse_us(angle_deg)), servo.min_us), servo.max_us)
        return tuple(target)

    def within(angle_deg: float) -> str | None:
        try:
            config.chain.check_limits(config.joint_angles(pose_at(angle_deg)), "this step")
        except UnreachableError as err:
            return str(err)
        return None

    blocked = within(wanted_deg)
    if blocked is None:
        return pose_at(wanted_deg), note
    good, bad = 0.0, 1.0
    for _ in range(LIMIT_BISECTIONS):
        middle = (good + bad) / 2
        good, bad = (middle, bad) if within(now_deg + middle * (wanted_deg - now_deg)) is None else (good, middle)
    return (pose_at(now_deg + good * (wanted_deg - now_deg)) if good > 0 else pulses_us), blocked


def cartesian_target(config: RobotConfig, pulses_us: Pulses, axis: str, amount: float) -> tuple[Pulses, str | None]:
    """The pose one Cartesian step of ``amount`` (mm, or degrees for ``pitch``) along ``axis`` from ``pulses_us``,
    shortened to the farthest reachable fraction of it, and a note naming the limit met (None when it all fits)."""
    if axis not in CARTESIAN_AXES:
        raise ValueError(f"axis {axis!r} is not one of {', '.join(CARTESIAN_AXES)}")
    point, pitch_deg = tool_pose(config, pulses_us)
    seed = config.joint_angles(pulses_us)
    gripper_us = int(config.gripper_us(pulses_us))

    def pose_at(fraction: float) -> Pulses:
        delta = amount * fraction
        moved = Point(
            point.x_mm + (delta if axis == "x" else 0.0),
            point.y_mm + (delta if axis == "y" else 0.0),
            point.z_mm + (delta if axis == "z" else 0.0),
        )
        return pose_pulses(config, moved, pitch_deg + (delta if axis == "pitch" else 0.0), gripper_us, seed)

    try:
        return pose_at(1.0), None
    except UnreachableError as err:
        note = str(err)
    good, bad = 0.0, 1.0
    for _ in range(LIMIT_BISECTIONS):
        middle = (good + bad) / 2
        try:
            pose_at(middle)
            good = middle
        except UnreachableError:
            bad = middle
    return (pose_at(good) if good > 0 else pulses_us), note


def obstacle_at(config: RobotConfig, pulses_us: Sequence[float]) -> str | None:
    """What the gripper could touch at channel pulses ``pulses_us`` (see :mod:`hanoibot.motion.jog_space`)."""
    width_mm = config.gripper.width_mm(config.gripper_us(pulses_us))
    heading = config.chain.approach(config.joint_angles(pulses_us))
    return obstacle_hit(config.board, config.gripper, config.grip_point(pulses_us), width_mm, heading)


def clear_until(
    config: RobotConfig,
    now_us: Pulses,
    target_us: Pulses,
    obstacle: Callable[[Pulses], str | None] | None = None,
) -> tuple[Pulses, str | None]:
    """The pose nearest ``target_us`` on the way from ``now_us`` (every channel interpolated in pulses, as the
    servos move) up to which the gripper touches nothing, and what it would touch beyond (None: all clear). From a
    pose that already touches, a step goes if it ends clear or rises away. ``obstacle(pulses)`` says what a pose
    touches (default :func:`obstacle_at`)."""
    touches = obstacle if obstacle is not None else (lambda pulses: obstacle_at(config, pulses))

    def at(fraction: float) -> Pulses:
        return tuple(round(a + fraction * (b - a)) for a, b in zip(now_us, target_us, strict=True))

    touching = touches(now_us)
    if touching is not None:
        rises = config.grip_point(target_us).z_mm > config.grip_point(now_us).z_mm
        return (target_us, None) if rises or touches(target_us) is None else (now_us, touching)
    good = 0.0
    for sample in range(1, STEP_SAMPLES + 1):
        fraction = sample / STEP_SAMPLES
        hit = touches(at(fraction))
        if hit is None:
            good = fraction
            continue
        bad = fraction
        for _ in range(LIMIT_BISECTIONS):
            middle = (good + bad) / 2
            if touches(at(middle)) is None:
                good = middle
            else:
                bad = middle
        while good > 0 and touches(at(good)) is not None:  # rounding to whole µs crossed the limit: step back
            good = max(0.0, good - 1 / (STEP_SAMPLES * 64))
        return at(good), hit
    return target_us, None


def peg_waypoints(config: RobotConfig, pulses_us: Pulses, peg: Peg, *, at_foot: bool) -> list[Pulses]:
    """Poses (µs) from ``pulses_us`` to above ``peg`` (hover height, gripper open, the tool at its grasp mode's
    pitch) or, ``at_foot``,
    down to the grip height of its bottom disk: up to the carry height, across at it, then down, each leg cut
    into straight pieces of at most :data:`WAYPOINT_MM`. A level claw goes across higher: its bars' bottom (half a
    finger below the grip point) :data:`~.jog_space.JOG_MARGIN_MM` and :data:`LEVEL_CLAW_SPARE_MM` above every peg
    tip, as the keep-out model asks. UnreachableError when a point on the way is."""
    board, clearance_mm = config.board, config.motion.clearance_mm
    point, _pitch = tool_pose(config, pulses_us)
    top_mm = max(carry_z_mm(board, board.pegs, clearance_mm), point.z_mm)
    if config.chain.grasp is GraspMode.SIDE:  # a level claw's bars, centred on the grip point, pass over every tip
        tallest_mm = max(p.height_mm for p in board.pegs)
        top_mm = max(top_mm, tallest_mm + JOG_MARGIN_MM + config.gripper.finger_width_mm / 2 + LEVEL_CLAW_SPARE_MM)
    end_mm = board.grip_z_mm(0) if at_foot else hover_z_mm(peg, clearance_mm)
    corners = [
        point,
        Point(point.x_mm, point.y_mm, top_mm),
        Point(peg.x_mm, peg.y_mm, top_mm),
        Point(peg.x_mm, peg.y_mm, end_mm),
    ]
    gripper_us = config.gripper.open_us
    seed = config.joint_angles(pulses_us)
    poses: list[Pulses] = []
    for start, end in itertools.pairwise(corners):
        length_mm = math.dist(start, end)
        pieces = max(1, math.ceil(length_mm / WAYPOINT_MM)) if length_mm > 1e-6 else 0
        for piece in range(1, pieces + 1):
            f = piece / pieces
            between = Point(*(a + f * (b - a) for a, b in zip(start, end, strict=True)))
            poses.append(pose_pulses(config, between, config.pitch_deg, gripper_us, seed))
            seed = config.joint_angles(poses[-1])
    return poses
