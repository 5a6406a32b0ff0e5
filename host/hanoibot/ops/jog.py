"""Jogging the arm, for every front end: a joint at a time, or the grip point along x, y, z and its tilt.

A :class:`Jogger` moves the arm one step at a time (degrees for a joint or the tilt, mm along x, y, z), waiting
until the board reports each step done; a step never leaves the reachable, collision-free space (a joint stops at
its angle and pulse limits, the gripper short of the board and of every peg with a full stack on it:
:mod:`hanoibot.motion.jog_space`, :mod:`hanoibot.motion.jog_steps`), shortened to the limit rather than refused.
``hanoibot jog`` and ``hanoibot calibrate`` drive it from keys, the console's calibration page from buttons and
arrow keys; how a key or a button picks a step is the front end's, the step is made here.
"""

from __future__ import annotations

from typing import Any

from .moves import Moves

#: The time the first jog step may take beyond its planned duration before the wait gives up, in seconds (the
#: next ones: :data:`hanoibot.ops.moves.WAIT_MARGIN_S`): it waits while a fresh CONFIG switches the outputs on one
#: by one (200 ms apart on a real chip, several times that on the virtual Pico at a fraction of its speed).
FIRST_WAIT_MARGIN_S = 30.0
#: Smallest and largest jog step, in degrees (joints, tilt) or mm (x, y, z).
STEP_LIMITS_DEG = (0.25, 20.0)


def jog_channels(config: Any) -> tuple[int, ...]:
    """The channels the number keys pick, in order: the arm's servos that move a joint, then the gripper."""
    moving = tuple(c for c, servo in enumerate(config.servos) if servo.held_deg is None)
    return (*moving, config.gripper_channel)


Pulses = tuple[int, ...]


class Jogger:
    """Moves ``robot`` by ``step_deg`` at a time (degrees, or mm along a Cartesian axis): one channel, or the grip
    point along x, y, z or its tilt; always within the joint and pulse limits and clear of what it could touch."""

    def __init__(self, robot: Any, *, step_deg: float = 2.0) -> None:
        self.robot = robot
        self.config = robot.config
        self.step_deg = step_deg
        #: The channels the number keys pick (:func:`jog_channels`) and every channel's name.
        self.channels = jog_channels(self.config)
        self.names = self.config.channel_names()
        self.channel = self.channels[0]
        #: The Cartesian axis being jogged ("x", "y", "z", "pitch"), or None while a channel is.
        self.axis: str | None = None
        #: The peg last gone to with a peg key (its index), for ``v``.
        self.peg: int | None = None
        #: The poses sent, with the command ids the operations share (:class:`hanoibot.ops.moves.Moves`).
        self.moves = Moves(robot, first_margin_s=FIRST_WAIT_MARGIN_S)
        self.pulses_us = list(self.moves.pulses_us)

    def target_us(self, direction: int) -> tuple[int, str | None]:
        """The selected channel's pulse in µs one step in ``direction`` (+1/-1) from now, shortened to the first
        limit it meets, and a note naming that limit (None when the full step fits)."""
        target, note = self.target_pose(direction)
        return target[self.channel], note

    def target_pose(self, direction: int) -> tuple[Pulses, str | None]:
        """The pose (µs per channel) one step in ``direction`` (+1/-1) from now along the selected channel or
        axis, shortened to the first limit it meets, and a note naming that limit (None when the full step fits)."""
        from ..motion.jog_steps import cartesian_target

        now = tuple(self.pulses_us)
        if self.axis is not None:
            wanted, note = cartesian_target(self.config, now, self.axis, direction * self.step_deg)
        else:
            wanted, note = self._joint_target(direction)
        if self.axis is None and self.channel == self.config.gripper_channel:
            return wanted, note  # the gripper alone: its width is checked at the peg, not along a path
        clear, hit = self._clear_until(wanted)
        if hit is not None:
            return clear, f"the gripper would touch {hit}"
        return wanted, note

    def _joint_target(self, direction: int) -> tuple[Pulses, str | None]:
        """One step of the selected channel, at its angle and pulse limits."""
        from ..motion.jog_steps import servo_target

        target = list(self.pulses_us)
        now_us = target[self.channel]
        name = self.names[self.channel]
        if self.channel == self.config.gripper_channel:
            gripper = self.config.gripper
            wanted_us = round(now_us + direction * self.step_deg * gripper.us_per_deg)
            target[self.channel] = min(max(wanted_us, gripper.min_us), gripper.max_us)
            note = None if target[self.channel] == wanted_us else f"{name} at its pulse limit {target[self.channel]} us"
            return tuple(target), note
        return servo_target(self.config, tuple(self.pulses_us), self.channel, direction * self.step_deg)

    def obstacle_at(self, pulses_us: Pulses) -> str | None:
        """What the gripper could touch at ``pulses_us`` (see :mod:`hanoibot.motion.jog_space`)."""
        from ..motion.jog_steps import obstacle_at

        return obstacle_at(self.config, pulses_us)

    def _clear_until(self, target: Pulses) -> tuple[Pulses, str | None]:
        """The pose nearest ``target`` on the way from now that touches nothing, and what lies beyond."""
        from ..motion.jog_steps import clear_until

        return clear_until(self.config, tuple(self.pulses_us), target, self.obstacle_at)

    def move_to(self, target: Pulses) -> None:
        """Move to ``target`` (µs per channel) at the servos' speed and wait until the board reports it done."""
        if list(target) == self.pulses_us:
            return
        duration_ms = max(1, self.robot.duration_between_ms(tuple(self.pulses_us), tuple(target)))
        self.moves.move(target, duration_ms)
        self.pulses_us = list(target)

    def nudge(self, direction: int) -> str | None:
        """Move one step (shortened at a limit) and wait until the board reports it done; returns the note naming
        the limit met, if any."""
        target, note = self.target_pose(direction)
        if list(target) == self.pulses_us:
            return note or "at the limit"
        self.move_to(target)
        return note

    def go_to_peg(self, peg: int, *, at_foot: bool) -> str | None:
        """Go above peg number ``peg`` (0 = A) where the config says it stands, or down to its foot: up to the
        carry height, across, down, gripper open; every leg checked. Returns the note of a limit met, if any."""
        from ..errors import UnreachableError
        from ..motion.jog_steps import peg_waypoints

        self.peg = peg
        try:
            poses = peg_waypoints(self.config, tuple(self.pulses_us), self.config.board.pegs[peg], at_foot=at_foot)
        except UnreachableError as err:
            return str(err)
        for pose in poses:
            clear, hit = self._clear_until(pose)
            if hit is not None:
                self.move_to(clear)
                return f"the gripper would touch {hit}"
            self.move_to(pose)
        return None

    def pose_text(self) -> str:
        """The pose as channel pulses, the grip point in mm and the tool's tilt in degrees."""
        from ..motion.jog_steps import tool_pose

        point, pitch_deg = tool_pose(self.config, self.pulses_us)
        pulses = " ".join(f"{n}={p}" for n, p in zip(self.names, self.pulses_us, strict=True))
        return (
            f"{pulses}  grip point x={point.x_mm:.1f} y={point.y_mm:.1f} z={point.z_mm:.1f} mm tilt {pitch_deg:.1f} deg"
        )

    @property
    def unit(self) -> str:
        """The unit of :attr:`step_deg` for what is jogged now: mm along x, y, z, else degrees."""
        return "mm" if self.axis in ("x", "y", "z") else "deg"

    def select_axis(self, axis: str) -> None:
        """Jog the grip point along ``axis`` ("x", "y", "z") or its tilt ("pitch") from now on; ValueError else."""
        from ..motion.jog_steps import CARTESIAN_AXES

        if axis not in CARTESIAN_AXES:
            raise ValueError(f"axis {axis!r} is not one of {', '.join(CARTESIAN_AXES)}")
        self.axis = axis

    def set_step(self, step: float) -> float:
        """Make the step ``step`` (degrees or mm), kept within :data:`STEP_LIMITS_DEG`; returns the step set."""
        low, high = STEP_LIMITS_DEG
        self.step_deg = min(max(float(step), low), high)
        return self.step_deg

    def grip_point_mm(self) -> tuple[float, float, float]:
        """Where the grip point is now (as commanded), x, y, z in mm."""
        point = self.config.grip_point(self.pulses_us)
        return point.x_mm, point.y_mm, point.z_mm
