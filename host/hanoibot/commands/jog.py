"""``hanoibot jog --port URL``: move the arm with keys, a joint at a time or the grip point along x, y, z.

Keys: ``1``, ``2``, ... pick the arm's servos in wire order, each named by its joint (the default arm: base,
shoulder, elbow, wrist; a MeArm: base, shoulder, forearm; a servo that holds a joint still is not jogged), the
next number (or ``g``) the gripper; ``x``, ``y``, ``z`` move the grip
point along that axis (mm) and ``t`` tilts the tool (its pitch, degrees), through the arm's kinematics; ``+``/``-``
move one step; ``]``/``[`` double or halve the step (degrees for a joint or the tilt, mm along x, y, z); ``A``,
``B``, ... go above that peg (up to the carry height, across, down); ``v`` down to the foot of the peg last gone to;
``p`` print the pose; ``q`` quit. On a terminal each key acts at once; piped input is read as a string of keys
(``1+++2--q``), which is how scripts and tests drive it. While it waits for a key the link stays served
(:mod:`hanoibot.ops.person`), so a key may come minutes later and ``hanoibot estop`` reaches it.

A step never leaves the reachable, collision-free space: a joint stops at its angle and pulse limits, and the
gripper stops short of the board surface and of every peg with a full stack on it
(:mod:`hanoibot.motion.jog_space`, :mod:`hanoibot.motion.jog_steps`); the step is shortened to the limit rather
than refused. Exit codes: 0 done, 1 the board latched a fault (release it with ``hanoibot home --clear``), 2 bad
input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .status import add_port_arguments, robot_for

#: Keys that pick a Cartesian axis, and the axis (:data:`hanoibot.motion.jog_steps.CARTESIAN_AXES`).
AXIS_KEYS = {"x": "x", "y": "y", "z": "z", "t": "pitch"}
#: Time a jog step may take beyond its planned duration before the wait gives up, in seconds.
WAIT_MARGIN_S = 5.0
#: The same for the first step, which waits while a fresh CONFIG switches the outputs on one by one (200 ms apart
#: on a real chip, several times that on the virtual Pico at a fraction of its speed), in seconds.
FIRST_WAIT_MARGIN_S = 30.0
#: Smallest and largest jog step, in degrees (joints, tilt) or mm (x, y, z).
STEP_LIMITS_DEG = (0.25, 20.0)
#: Why a command that waited for a key or an answer stopped when another process asked for an e-stop.
ESTOPPED_WHILE_WAITING = "`hanoibot estop` from another process e-stopped the board"
#: The legend's keys after the channels'.
LEGEND_TAIL = (
    "x / y / z the grip point (mm), t the tilt; + / - move one step; ] / [ double / halve the step; A, B, ... above "
    "that peg, v down to its foot; p pose; q quit"
)


def jog_channels(config: Any) -> tuple[int, ...]:
    """The channels the number keys pick, in order: the arm's servos that move a joint, then the gripper."""
    moving = tuple(c for c, servo in enumerate(config.servos) if servo.held_deg is None)
    return (*moving, config.gripper_channel)


def legend(config: Any) -> str:
    """The keys of ``hanoibot jog`` for this robot: one number per servo, named, then the rest."""
    names = config.channel_names()
    channels = jog_channels(config)
    keys = [f"{k} {names[c]}" for k, c in enumerate(channels[:-1], start=1)]
    keys.append(f"{len(channels)}/g {names[channels[-1]]}")
    return f"keys: {', '.join(keys)}; {LEGEND_TAIL}"


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
        status = robot.session.status()
        self.pulses_us = list(status.pulses_us)
        last_id = max(robot.session.last_sent_cmd, int(status.last_queued_cmd), int(status.last_done_cmd))
        self._next_cmd_id = last_id + 1
        self._wait_margin_s = FIRST_WAIT_MARGIN_S

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
        self.robot.session.send_move(self._next_cmd_id, list(target), duration_ms)
        self.robot.session.wait_done(self._next_cmd_id, timeout_s=duration_ms / 1000 + self._wait_margin_s)
        self._wait_margin_s = WAIT_MARGIN_S
        self._next_cmd_id += 1
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

    def _selected(self) -> str:
        """What ``+``/``-`` move now, and by how much."""
        if self.axis is None:
            return f"jogging {self.names[self.channel]} by {self.step_deg:g} deg"
        unit = "deg" if self.axis == "pitch" else "mm"
        name = "the tilt" if self.axis == "pitch" else f"the grip point along {self.axis}"
        return f"jogging {name} by {self.step_deg:g} {unit}"

    def handle(self, key: str) -> str | None:
        """Act on one key; returns a line to show (None for nothing). A limit is reported, not raised."""
        from ..puzzle import peg_index, peg_letter

        if key.isdigit() and 1 <= int(key) <= len(self.channels):
            self.channel, self.axis = self.channels[int(key) - 1], None
            return self._selected()
        if key == "g":
            return self.handle(str(len(self.channels)))
        if key in AXIS_KEYS:
            self.axis = AXIS_KEYS[key]
            return self._selected()
        if key in "+=-_":
            note = self.nudge(+1 if key in "+=" else -1)
            return f"{self.pose_text()}  (stopped: {note})" if note else self.pose_text()
        if key in "[]":
            low, high = STEP_LIMITS_DEG
            self.step_deg = min(max(self.step_deg * (2.0 if key == "]" else 0.5), low), high)
            return f"step {self.step_deg:g} {'mm' if self.axis in ('x', 'y', 'z') else 'deg'}"
        if key.isupper() and key.isalpha() and peg_index(key) < len(self.config.board.pegs):
            note = self.go_to_peg(peg_index(key), at_foot=False)
            where = f"above peg {key}: {self.pose_text()}"
            return f"{where}  (stopped: {note})" if note else where
        if key == "v":
            if self.peg is None:
                return "v goes down to the foot of the peg last gone to: go above one first with A, B, ..."
            note = self.go_to_peg(self.peg, at_foot=True)
            where = f"at the foot of peg {peg_letter(self.peg)}: {self.pose_text()}"
            return f"{where}  (stopped: {note})" if note else where
        if key == "p":
            return self.pose_text()
        return None


#: How a key that is not a character shows in a message (arrow keys send escape sequences).
KEY_NAMES = {
    "\n": "Enter",
    "\r": "Enter",
    " ": "space",
    "\t": "Tab",
    "\x1b": "Escape",
    "\x7f": "Backspace",
    "\x1b[A": "the up arrow",
    "\x1b[B": "the down arrow",
    "\x1b[C": "the right arrow",
    "\x1b[D": "the left arrow",
}


def unknown_key(key: str, legend: str) -> str:
    """The line for a key that does nothing: which key, and ``legend`` (the keys that do something)."""
    name = KEY_NAMES.get(key, key if key.isprintable() else repr(key))
    return f"{name} does nothing here; {legend}"


def register(subparsers: Any) -> None:
    """Add the ``jog`` sub-command."""
    parser = subparsers.add_parser(
        "jog",
        help="move the arm with keys: a joint at a time, or the grip point along x, y, z",
        description="Move the arm one joint at a time, within its limits. " + (__doc__ or "").split("\n\n")[1],
        epilog="examples:\n  hanoibot jog --port /dev/ttyACM0\n  echo '1++++p q' | hanoibot jog\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_port_arguments(parser)
    parser.add_argument("--step-deg", metavar="DEG", default="2", help="first step in degrees (default 2)")
    parser.set_defaults(run=run)


def step_from(text: str) -> float:
    """``--step-deg`` as a float within :data:`STEP_LIMITS_DEG`, else a one-line error."""
    from ..errors import ConfigError

    low, high = STEP_LIMITS_DEG
    try:
        step_deg = float(text)
    except ValueError:
        step_deg = -1.0
    if not low <= step_deg <= high:
        raise ConfigError(f"--step-deg {text!r} is not a step: expected {low:g} to {high:g} degrees")
    return step_deg


def run(args: argparse.Namespace) -> int:
    """Jog until ``q`` or the end of input; returns 0, or 1 when the board latched a fault."""
    from ..errors import BoardError, RunFault
    from ..ops.person import Person, link_keeper

    step_deg = step_from(args.step_deg)
    with robot_for(args) as robot:
        try:
            prepare_for_jogging(robot)
            jogger = Jogger(robot, step_deg=step_deg)
            person = Person(link_keeper(robot.session))
            keys = legend(robot.config)
            print(keys)
            print(jogger.handle("1"))
            for key in person.pressed_keys():
                if key == "q":
                    break
                message = jogger.handle(key)
                print(message if message is not None else unknown_key(key, keys), flush=True)
            if person.was_stopped:
                raise RunFault(ESTOPPED_WHILE_WAITING)
            print(jogger.pose_text())
        except (BoardError, RunFault) as err:
            print(f"hanoibot: jog stopped: {err}; release the board with: hanoibot home --clear", file=sys.stderr)
            return 1
    return 0


def prepare_for_jogging(robot: Any, *, configure: bool = True) -> None:
    """Take the board over for jogging: :func:`hanoibot.ops.board.prepare_for_jogging` (imported when called, so
    registering the command stays cheap)."""
    from ..ops.board import prepare_for_jogging as prepare

    prepare(robot, configure=configure)
