"""``hanoibot jog --port URL``: move one joint at a time with keys, never past its limits.

Keys: ``1``-``4`` pick base, shoulder, elbow, wrist; ``5`` (or ``g``) the gripper; ``+``/``-`` move it one step;
``]``/``[`` double or halve the step; ``p`` print the pose; ``q`` quit. On a terminal each key acts at once;
piped input is read as a string of keys (``1+++2--q``), which is how scripts and tests drive it.

A step never leaves the reachable, collision-free space: a joint stops at its angle and pulse limits, and the
gripper stops short of the board surface and of every peg with a full stack on it
(:mod:`hanoibot.motion.jog_space`); the step is shortened to the limit rather than refused.
Exit codes: 0 done, 1 the board latched a fault (release it with ``hanoibot home --clear``), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from .status import add_port_arguments, open_robot

CHANNEL_NAMES = ("base", "shoulder", "elbow", "wrist", "gripper")
#: Time a jog step may take beyond its planned duration before the wait gives up, in seconds.
WAIT_MARGIN_S = 5.0
#: Smallest and largest jog step, in degrees.
STEP_LIMITS_DEG = (0.25, 20.0)
#: Points checked along a step before it is taken (a step is at most 20 degrees).
STEP_SAMPLES = 16
#: Halvings when shortening a step to the first obstacle (2**-10 of a sample: below a servo's resolution).
LIMIT_BISECTIONS = 10
LEGEND = (
    "keys: 1 base, 2 shoulder, 3 elbow, 4 wrist, 5/g gripper; + / - move one step; ] / [ double / halve the step; "
    "p pose; q quit"
)


class Jogger:
    """Moves one channel of ``robot`` by ``step_deg`` at a time, within the joint and pulse limits."""

    def __init__(self, robot: Any, *, step_deg: float = 2.0) -> None:
        self.robot = robot
        self.config = robot.config
        self.step_deg = step_deg
        self.channel = 0
        status = robot.session.status()
        self.pulses_us = list(status.pulses_us)
        last_id = max(robot.session.last_sent_cmd, int(status.last_queued_cmd), int(status.last_done_cmd))
        self._next_cmd_id = last_id + 1

    def target_us(self, direction: int) -> tuple[int, str | None]:
        """The pulse in µs one step in ``direction`` (+1/-1) from now, shortened to the first limit it meets, and
        a note naming that limit (None when the full step fits)."""
        now_us = self.pulses_us[self.channel]
        name = CHANNEL_NAMES[self.channel]
        if self.channel == len(CHANNEL_NAMES) - 1:
            gripper = self.config.gripper
            wanted_us = round(now_us + direction * self.step_deg * gripper.us_per_deg)
            target_us = min(max(wanted_us, gripper.min_us), gripper.max_us)
            note = None if target_us == wanted_us else f"{name} at its pulse limit {target_us} us"
            return target_us, note
        servo, joint = self.config.servos[self.channel], self.config.arm.joints[self.channel]
        wanted_deg = servo.angle_deg(now_us) + direction * self.step_deg
        angle_deg = min(max(wanted_deg, joint.min_deg), joint.max_deg)
        target_us = min(max(round(servo.pulse_us(angle_deg)), servo.min_us), servo.max_us)
        note = None if angle_deg == wanted_deg else f"{name} at its limit {angle_deg:g} deg"
        clear_us, hit = self._clear_until_us(target_us)
        if hit is not None:
            return clear_us, f"the gripper would touch {hit}"
        return target_us, note

    def obstacle_at(self, channel_us: float) -> str | None:
        """What the gripper could touch with the selected channel at ``channel_us`` (see :mod:`..motion.jog_space`)."""
        from ..motion.jog_space import obstacle_hit

        pulses = list(self.pulses_us)
        pulses[self.channel] = round(channel_us)
        width_mm = self.config.gripper.width_mm(pulses[-1])
        return obstacle_hit(self.config.board, self.config.gripper, self.config.grip_point(pulses), width_mm)

    def _clear_until_us(self, target_us: int) -> tuple[int, str | None]:
        """The pulse nearest ``target_us`` on the way from now up to which the gripper touches nothing, and what it
        would touch beyond (None: the whole step is clear). From a pose that already touches, any step goes."""
        now_us = self.pulses_us[self.channel]
        touching = self.obstacle_at(now_us)
        if touching is not None:
            # Already at an obstacle: only a step that ends clear of it or rises away from it goes.
            rises = self._z_mm(target_us) > self._z_mm(now_us)
            return (target_us, None) if rises or self.obstacle_at(target_us) is None else (now_us, touching)
        good = 0.0
        for sample in range(1, STEP_SAMPLES + 1):
            fraction = sample / STEP_SAMPLES
            hit = self.obstacle_at(now_us + fraction * (target_us - now_us))
            if hit is None:
                good = fraction
                continue
            bad = fraction
            for _ in range(LIMIT_BISECTIONS):
                middle = (good + bad) / 2
                if self.obstacle_at(now_us + middle * (target_us - now_us)) is None:
                    good = middle
                else:
                    bad = middle
            last_us = round(now_us + good * (target_us - now_us))
            while last_us != now_us and self.obstacle_at(last_us) is not None:
                last_us += 1 if target_us < now_us else -1  # rounding crossed the limit: step back
            return last_us, hit
        return target_us, None

    def _z_mm(self, channel_us: float) -> float:
        """Grip point height in mm with the selected channel at ``channel_us``."""
        pulses = list(self.pulses_us)
        pulses[self.channel] = round(channel_us)
        return float(self.config.grip_point(pulses).z_mm)

    def nudge(self, direction: int) -> str | None:
        """Move the selected channel one step (shortened at a limit) and wait until the board reports it done;
        returns the note naming the limit met, if any."""
        target = list(self.pulses_us)
        target[self.channel], note = self.target_us(direction)
        if target == self.pulses_us:
            return note or "at the limit"
        duration_ms = self.robot.duration_between_ms(tuple(self.pulses_us), tuple(target))
        self.robot.session.send_move(self._next_cmd_id, target, duration_ms)
        self.robot.session.wait_done(self._next_cmd_id, timeout_s=duration_ms / 1000 + WAIT_MARGIN_S)
        self._next_cmd_id += 1
        self.pulses_us = target
        return note

    def pose_text(self) -> str:
        """The pose as channel pulses and the grip point in mm."""
        point = self.config.grip_point(self.pulses_us)
        pulses = " ".join(f"{n}={p}" for n, p in zip(CHANNEL_NAMES, self.pulses_us, strict=False))
        return f"{pulses}  grip point x={point.x_mm:.1f} y={point.y_mm:.1f} z={point.z_mm:.1f} mm"

    def handle(self, key: str) -> str | None:
        """Act on one key; returns a line to show (None for nothing). A limit is reported, not raised."""
        if key in "12345":
            self.channel = int(key) - 1
            return f"jogging {CHANNEL_NAMES[self.channel]} by {self.step_deg:g} deg"
        if key == "g":
            return self.handle("5")
        if key in "+=-_":
            note = self.nudge(+1 if key in "+=" else -1)
            return f"{self.pose_text()}  (stopped: {note})" if note else self.pose_text()
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
    """Jog until ``q`` or the end of input; returns 0, or 1 when the board latched a fault."""
    from ..errors import BoardError, RunFault

    step_deg = step_from(args.step_deg)
    with open_robot(args) as robot:
        try:
            prepare_for_jogging(robot)
            jogger = Jogger(robot, step_deg=step_deg)
            print(LEGEND)
            print(jogger.handle("1"))
            for key in read_keys():
                if key == "q":
                    break
                message = jogger.handle(key)
                if message:
                    print(message, flush=True)
            print(jogger.pose_text())
        except (BoardError, RunFault) as err:
            print(f"hanoibot: jog stopped: {err}; release the board with: hanoibot home --clear", file=sys.stderr)
            return 1
    return 0


def prepare_for_jogging(robot: Any) -> None:
    """Take the board over (:func:`~hanoibot.run.release.release_board`: motion a stopped run left queued or held
    is dropped, and command ids it may have planned are skipped) and configure an unconfigured board (its outputs
    start at the start pose); refuse while a fault is latched."""
    from ..errors import RunFault
    from ..run.release import SILENCE_FAULTS, release_board

    status = robot.session.status()
    latched = [fault for fault in status.faults if fault not in SILENCE_FAULTS]
    if latched:
        raise RunFault(f"the board has latched {', '.join(latched)}: release it with hanoibot home --clear")
    release_board(robot.session, clear=False)
    if robot.session.status().mode == "UNCONFIGURED":
        robot.session.configure(*robot.limits())
