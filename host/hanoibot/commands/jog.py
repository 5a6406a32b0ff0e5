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

from ..ops.jog import STEP_LIMITS_DEG, jog_channels
from ..ops.jog import Jogger as ArmJogger
from .status import add_port_arguments, robot_for

#: Keys that pick a Cartesian axis, and the axis (:data:`hanoibot.motion.jog_steps.CARTESIAN_AXES`).
AXIS_KEYS = {"x": "x", "y": "y", "z": "z", "t": "pitch"}
#: Why a command that waited for a key or an answer stopped when another process asked for an e-stop.
ESTOPPED_WHILE_WAITING = "`hanoibot estop` from another process e-stopped the board"
#: The legend's keys after the channels'.
LEGEND_TAIL = (
    "x / y / z the grip point (mm), t the tilt; + / - move one step; ] / [ double / halve the step; A, B, ... above "
    "that peg, v down to its foot; p pose; q quit"
)


def legend(config: Any) -> str:
    """The keys of ``hanoibot jog`` for this robot: one number per servo, named, then the rest."""
    names = config.channel_names()
    channels = jog_channels(config)
    keys = [f"{k} {names[c]}" for k, c in enumerate(channels[:-1], start=1)]
    keys.append(f"{len(channels)}/g {names[channels[-1]]}")
    return f"keys: {', '.join(keys)}; {LEGEND_TAIL}"


class Jogger(ArmJogger):
    """:class:`hanoibot.ops.jog.Jogger` driven by the keys of ``hanoibot jog`` (:meth:`handle`)."""

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
            self.set_step(self.step_deg * (2.0 if key == "]" else 0.5))
            return f"step {self.step_deg:g} {self.unit}"
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
