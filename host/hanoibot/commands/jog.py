"""``hanoibot jog --port URL``: move one joint at a time with keys, never past its limits.

Keys: ``1``-``4`` pick base, shoulder, elbow, wrist; ``5`` (or ``g``) the gripper; ``+``/``-`` move it one step;
``]``/``[`` double or halve the step; ``p`` print the pose; ``q`` quit. On a terminal each key acts at once;
piped input is read as a string of keys (``1+++2--q``), which is how scripts and tests drive it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from .status import add_port_arguments, open_robot

CHANNEL_NAMES = ("base", "shoulder", "elbow", "wrist", "gripper")
#: Smallest and largest jog step, in degrees.
STEP_LIMITS_DEG = (0.25, 20.0)


class Jogger:
    """Moves one channel of ``robot`` by ``step_deg`` at a time, within the joint and pulse limits."""

    def __init__(self, robot: Any, *, step_deg: float = 2.0) -> None:
        self.robot = robot
        self.config = robot.config
        self.step_deg = step_deg
        self.channel = 0
        status = robot.session.status()
        self.pulses_us = list(status.pulses_us)
        self._next_cmd_id = max(int(status.last_queued_cmd), int(status.last_done_cmd)) + 1

    def target_us(self, direction: int) -> int:
        """The pulse in µs one step in ``direction`` (+1/-1) from now; RunFault naming the limit if past it."""
        from ..errors import RunFault

        now_us = self.pulses_us[self.channel]
        name = CHANNEL_NAMES[self.channel]
        if self.channel == len(CHANNEL_NAMES) - 1:
            gripper = self.config.gripper
            target_us = round(now_us + direction * self.step_deg * gripper.us_per_deg)
            low_us, high_us = gripper.min_us, gripper.max_us
        else:
            servo, joint = self.config.servos[self.channel], self.config.arm.joints[self.channel]
            angle_deg = servo.angle_deg(now_us) + direction * self.step_deg
            if not joint.contains(angle_deg):
                raise RunFault(
                    f"{name} at {angle_deg:.1f} deg is past its limit: expected {joint.min_deg:g} to {joint.max_deg:g}"
                )
            target_us = round(servo.pulse_us(angle_deg))
            low_us, high_us = servo.min_us, servo.max_us
        if not low_us <= target_us <= high_us:
            raise RunFault(f"{name} at {target_us} us is past its pulse limit: expected {low_us} to {high_us}")
        return target_us

    def nudge(self, direction: int) -> None:
        """Move the selected channel one step and wait until the board reports it done."""
        target = list(self.pulses_us)
        target[self.channel] = self.target_us(direction)
        duration_ms = self.robot.duration_between_ms(tuple(self.pulses_us), tuple(target))
        self.robot.session.send_move(self._next_cmd_id, target, duration_ms)
        self.robot.session.wait_done(self._next_cmd_id)
        self._next_cmd_id += 1
        self.pulses_us = target

    def pose_text(self) -> str:
        """The pose as channel pulses and the grip point in mm."""
        point = self.config.grip_point(self.pulses_us)
        pulses = " ".join(f"{n}={p}" for n, p in zip(CHANNEL_NAMES, self.pulses_us, strict=False))
        return f"{pulses}  grip point x={point.x_mm:.1f} y={point.y_mm:.1f} z={point.z_mm:.1f} mm"

    def handle(self, key: str) -> str | None:
        """Act on one key; returns a line to show (None for nothing). A limit is reported, not raised."""
        from ..errors import RunFault

        if key in "12345":
            self.channel = int(key) - 1
            return f"jogging {CHANNEL_NAMES[self.channel]} by {self.step_deg:g} deg"
        if key == "g":
            return self.handle("5")
        if key in "+=-_":
            try:
                self.nudge(+1 if key in "+=" else -1)
            except RunFault as err:
                return f"refused: {err}"
            return None
        if key in "[]":
            low, high = STEP_LIMITS_DEG
            self.step_deg = min(max(self.step_deg * (2.0 if key == "]" else 0.5), low), high)
            return f"step {self.step_deg:g} deg"
        if key == "p":
            return self.pose_text()
        return None


def read_keys() -> Iterator[str]:
    """Keys from the terminal one at a time (raw mode), or the characters of piped input."""
    if not sys.stdin.isatty():
        for line in sys.stdin:
            yield from (c for c in line if not c.isspace())
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        while key := sys.stdin.read(1):
            yield key
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def register(subparsers: Any) -> None:
    """Add the ``jog`` sub-command."""
    parser = subparsers.add_parser(
        "jog",
        help="move one joint at a time with keys",
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
    """Jog until ``q`` or the end of input; returns 0."""
    step_deg = step_from(args.step_deg)
    with open_robot(args) as robot:
        prepare_for_jogging(robot)
        jogger = Jogger(robot, step_deg=step_deg)
        print(jogger.handle("1"))
        for key in read_keys():
            if key == "q":
                break
            message = jogger.handle(key)
            if message:
                print(message, flush=True)
        print(jogger.pose_text())
    return 0


def prepare_for_jogging(robot: Any) -> None:
    """Configure an unconfigured board (its outputs start at the start pose); refuse while a fault is latched."""
    from ..errors import RunFault

    status = robot.session.status()
    if status.faults:
        raise RunFault(f"the board has latched {', '.join(status.faults)}: release it with hanoibot home --clear")
    if status.mode == "UNCONFIGURED":
        robot.session.configure(*robot.limits())
