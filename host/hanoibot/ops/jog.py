"""Jogging the arm, one step or one peg at a time, for ``hanoibot jog``, ``hanoibot calibrate`` and the console:
the moves sent and waited for, always within the joint and pulse limits and clear of what the gripper could touch
(:mod:`hanoibot.motion.jog_space`, :mod:`hanoibot.motion.jog_steps`). Which key does what is the front end's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when used: registering ``hanoibot jog`` stays cheap
    from ..link.status import Status
    from ..run.robot import Robot

#: Time a jog step may take beyond its planned duration before the wait gives up, in seconds.
WAIT_MARGIN_S = 5.0
#: The same for the first step, which waits while a fresh CONFIG switches the outputs on one by one (200 ms apart
#: on a real chip, several times that on the virtual Pico at a fraction of its speed), in seconds.
FIRST_WAIT_MARGIN_S = 30.0

Pulses = tuple[int, ...]


def jog_channels(config: Any) -> tuple[int, ...]:
    """The channels the number keys pick, in order: the arm's servos that move a joint, then the gripper."""
    moving = tuple(c for c, servo in enumerate(config.servos) if servo.held_deg is None)
    return (*moving, config.gripper_channel)


class Moves:
    """Poses sent to ``robot``'s board one at a time, each waited for until the board reports it done. Command ids
    go on from the highest the link or the board has seen (a run killed mid-plan may have queued ids the link of
    this process never sent), so none is reused. ``status``: the board's STATUS just read (None: read it now)."""

    def __init__(self, robot: Robot, *, status: Status | None = None, first_margin_s: float = WAIT_MARGIN_S) -> None:
        self.session = robot.session
        status = status if status is not None else self.session.status()
        #: The pose the board reported when the moves began, µs per channel.
        self.pulses_us: Pulses = tuple(int(p) for p in status.pulses_us)
        self._next_cmd_id = max(self.session.last_sent_cmd, int(status.last_queued_cmd), int(status.last_done_cmd)) + 1
        self._margin_s = first_margin_s

    def move(self, pulses_us: Sequence[int], duration_ms: int) -> None:
        """Move to ``pulses_us`` (µs per channel) over ``duration_ms`` ms and wait until the board reports it done,
        up to that long and a margin (:data:`WAIT_MARGIN_S`; the first move the ``first_margin_s`` given)."""
        cmd_id = max(self._next_cmd_id, self.session.last_sent_cmd + 1)
        self.session.send_move(cmd_id, list(pulses_us), duration_ms)
        self.session.wait_done(cmd_id, timeout_s=duration_ms / 1000 + self._margin_s)
        self._margin_s = WAIT_MARGIN_S
        self._next_cmd_id = cmd_id + 1


class Jog:
    """Moves ``robot`` by ``step_deg`` at a time (degrees, or mm along a Cartesian axis): one channel, or the grip
    point along x, y, z or its tilt; always within the joint and pulse limits and clear of what it could touch."""

    def __init__(self, robot: Robot, *, step_deg: float = 2.0) -> None:
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
        #: Each pose sent and waited for, numbered on from the board's and the link's command ids.
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

    def grip_point_mm(self) -> tuple[float, float]:
        """Where the grip point stands now over the board, (x, y) in mm to a tenth: what a peg is saved as."""
        point = self.config.grip_point(self.pulses_us)
        return round(point.x_mm, 1), round(point.y_mm, 1)
