"""The simulated world around the firmware: the arm's body, the disks on the board and the grip sensor.

:class:`SimBoard <hanoibot.sim.board.SimBoard>` calls :meth:`SimWorld.on_tick` after every control tick with the
servo horns' pulses; the world moves the arm (:class:`~hanoibot.sim.arm.SimArm`), lets the disks react
(:class:`~hanoibot.sim.disks.DiskBoard`) and latches ``COLLISION``, ``DROP`` or ``BAD_STACK`` in the firmware
controller it was attached to. A missed pick is not a fault: :attr:`SimWorld.grip_sensor` reads the low current
of an empty close and the host decides. :attr:`SimWorld.rail` is the servo supply after the e-stop switch, as the
firmware's rail sense input sees it (:mod:`hanoibot.sim.rail`); :meth:`SimWorld.cut_servo_power` presses the e-stop.
Both sensors read what the hardware would (:mod:`hanoibot.sim.sensors`): no current through an undriven servo,
50 Hz bursts and ADC noise, a rail that bounces and sags; the board ties them to its clock and servos.
:attr:`SimWorld.events` logs picks, places, drops and faults with their time in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from ..config import RobotConfig, load_config
from ..errors import ConfigError, PlanError
from ..motion.claw import FINGER_THICKNESS_MM
from ..motion.servo_model import ServoTraits
from ..puzzle import Rules, State
from ..puzzle.rules import COLOUR_RULE_NAMES, RULE_NAMES
from ..render.svg import Frame
from .arm import SimArm
from .disks import BoardGeometry, DiskBoard, Event
from .rail import ServoRail
from .sensors import GripSensor

#: The hole in every disk of the default robot is this much wider (mm) than the peg it slides on (a config sets
#: its own with ``[board] disk_hole_diameter_mm``).
HOLE_CLEARANCE_MM = 6.0
#: How far (mm) fingers closing on a disk squeeze it and their own pads before they stop: a rigid printed ring
#: between plastic fingers gives a little (typical).
GRIP_COMPLIANCE_MM = 0.5
#: Disks on peg A when no start board is given (the CLI's default puzzle).
DEFAULT_DISKS = 3


class FaultLatch(Protocol):
    """The part of the firmware controller the world talks to."""

    def latch_fault(self, name: str) -> None: ...


def board_geometry(config: RobotConfig) -> BoardGeometry:
    """The simulated board and gripper shapes (mm) described by a robot config."""
    board, gripper = config.board, config.gripper
    return BoardGeometry(
        pegs_xy_mm=tuple((peg.x_mm, peg.y_mm) for peg in board.pegs),
        peg_heights_mm=tuple(peg.height_mm for peg in board.pegs),
        peg_diameter_mm=board.peg_diameter_mm,
        disk_diameters_mm=board.disk_diameters_mm,
        disk_thickness_mm=board.disk_thickness_mm,
        hole_diameter_mm=board.disk_hole_diameter_mm,
        finger_length_mm=gripper.finger_length_mm,
        palm_radius_mm=gripper.open_width_mm / 2 + FINGER_THICKNESS_MM,
        finger_thickness_mm=FINGER_THICKNESS_MM,
        finger_width_mm=gripper.finger_width_mm,
    )


class SimWorld:
    """Arm, disks and grip sensor of one simulated robot, driven by the servo pulses of a SimBoard.

    ``speed`` scales the servos' top speeds (``hanoibot emulate --speed``); ``geometry`` replaces the board the
    config describes (a randomized world's pegs and disks); ``frame_every_s`` (s), when set,
    records a picture :class:`~hanoibot.render.svg.Frame` that often and at every pick and place, for
    :func:`~hanoibot.render.svg.render_run_svg`.
    """

    def __init__(
        self,
        config: RobotConfig,
        start: State,
        *,
        arm: SimArm | None = None,
        speed: float = 1.0,
        frame_every_s: float | None = None,
        rules: Rules | None = None,
        geometry: BoardGeometry | None = None,
    ) -> None:
        if not (speed > 0 and math.isfinite(speed)):
            raise ConfigError(f"simulated servo speed factor {speed!r} is invalid: expected a positive number")
        self.config = config
        self.arm = arm if arm is not None else SimArm(config)
        self.events: list[Event] = []
        self.disks = DiskBoard(geometry or board_geometry(config), start.stacks, events=self.events, rules=rules)
        self.grip_sensor: GripSensor | None = (
            GripSensor(lambda: self.disks.grip_width_mm() > 0) if config.gripper.grip_sensor else None
        )
        self.rail = ServoRail()
        self.max_speed_us_per_s: list[float | None] = [rate * speed for rate in config.max_speeds_us_s()]
        #: How each servo follows its pulse (None: plain servos at :attr:`max_speed_us_per_s`); a randomized world
        #: (:mod:`.random_world`) sets its own, and the seed it drew them from.
        self.servo_traits: list[ServoTraits] | None = None
        self.seed: int | None = None
        self.frames: list[Frame] = []
        self._frame_every_s = frame_every_s
        self._next_frame_s = 0.0
        self._controller: FaultLatch | None = None
        self._blocks: dict[int, tuple[float | None, float | None]] = {}  # obstacles: channel -> (low, high) µs
        #: Called with each new event (pick, missed_pick, place, drop, fault) when set; SimBoard forwards them.
        self.on_event: Callable[[Event], None] | None = None

    def cut_servo_power(self, is_cut: bool = True) -> None:
        """Press (``is_cut``) or release the e-stop switch: the servo rail goes dead or comes back."""
        self.rail.is_powered = not is_cut

    # --- what stops a servo horn (bus servos feel it: hanoibot.sim.bus) -------------------------------------
    def block_joint(self, channel: int, *, low_us: float | None = None, high_us: float | None = None) -> None:
        """Put an obstacle in joint ``channel``'s way: its horn cannot go below ``low_us`` or above ``high_us``
        (pulses in µs; None: free that way), whatever it is told (a hand, a cable, a box on the table)."""
        self._blocks[channel] = (low_us, high_us)

    def unblock_joint(self, channel: int) -> None:
        """Take the obstacle out of joint ``channel``'s way."""
        self._blocks.pop(channel, None)

    def servo_stop_us(self, channel: int) -> tuple[float | None, float | None]:
        """The lowest and highest pulse (µs, None: free) servo ``channel``'s horn can reach now: an obstacle's, or,
        for the gripper with a disk between its fingers, the pulse at which they close on it (less the give of
        :data:`GRIP_COMPLIANCE_MM`): a closing gripper stalls there, pushing."""
        low, high = self._blocks.get(channel, (None, None))
        held = self.disks.held_disk
        if channel == self.config.gripper_channel and held is not None:
            gripper = self.config.gripper
            width_mm = self.disks.geometry.disk_diameters_mm[held - 1] - GRIP_COMPLIANCE_MM
            stop_us = gripper.pulse_for_width_us(width_mm)
            if gripper.closed_us > gripper.open_us:
                high = stop_us if high is None else min(high, stop_us)
            else:
                low = stop_us if low is None else max(low, stop_us)
        return low, high

    # --- the SimBoard hook ---------------------------------------------------------------------------------
    def attach(self, controller: FaultLatch) -> None:
        """Latch faults in ``controller`` from now on (SimBoard calls this at every boot)."""
        self._controller = controller

    def on_tick(self, t_s: float, pulses_us: Sequence[int | None]) -> None:
        """Move the arm to the servo pulses (µs; None = unpowered) at time ``t_s`` (s) and let the disks react."""
        seen = len(self.events)
        faults = self.disks.update(t_s, self.arm.pose(pulses_us))
        for fault in dict.fromkeys(faults):
            if self._controller is not None:
                self._controller.latch_fault(fault)
        new_events = self.events[seen:]
        if self.on_event is not None:
            for event in new_events:
                self.on_event(event)
        if self._frame_every_s is not None:
            moved = any(e["event"] in ("pick", "place", "drop") for e in new_events)
            if moved or t_s >= self._next_frame_s:
                self.frames.append(self.snapshot(t_s, pulses_us))
                self._next_frame_s = t_s + self._frame_every_s

    # --- what the host reads -------------------------------------------------------------------------------
    @property
    def state(self) -> State | None:
        """The disks as a puzzle State (irregular stacks allowed); None while one is held or has fallen off."""
        return self.disks.state

    @property
    def stacks(self) -> tuple[tuple[int, ...], ...]:
        """Each peg's disks, bottom first (the held and fallen disks are not on any)."""
        return self.disks.stacks

    @property
    def held_disk(self) -> int | None:
        """The disk between the fingers, if any."""
        return self.disks.held_disk

    def take_off(self, t_s: float, peg: int) -> int:
        """The operator lifts the top disk of ``peg`` (0 = A) off the board at ``t_s`` (s); see DiskBoard."""
        seen = len(self.events)
        disk = self.disks.take_off(t_s, peg)
        if self.on_event is not None:
            for event in self.events[seen:]:
                self.on_event(event)
        return disk

    def put_back(self, t_s: float, disk: int, peg: int) -> None:
        """The operator puts a held or fallen ``disk`` on top of ``peg`` (0 = A) at ``t_s`` (s); see DiskBoard."""
        seen = len(self.events)
        self.disks.put_back(t_s, disk, peg)
        if self.on_event is not None:
            for event in self.events[seen:]:
                self.on_event(event)

    def faults(self) -> list[str]:
        """Names of the faults raised so far, in order."""
        return [e["fault"] for e in self.events if e["event"] == "fault"]

    def snapshot(self, t_s: float, pulses_us: Sequence[int | None]) -> Frame:
        """A picture of the world now: disks, the arm's joints (mm) and the held disk."""
        points = self.arm.points_mm(pulses_us) or ()
        caption = f"t = {t_s:.2f} s"
        arm_mm = tuple((p.x_mm, p.y_mm, p.z_mm) for p in points)
        return Frame(self.stacks, arm_mm, self.held_disk, t_s, caption)


def make_world(
    config_path_or_config: RobotConfig | str | Path | None = None,
    board: State | str | None = None,
    *,
    speed: float = 1.0,
    servo_offsets_deg: Sequence[float] | None = None,
    peg_offsets_mm: Mapping[int, tuple[float, float]] | None = None,
    frame_every_s: float | None = None,
    rules: str | None = None,
) -> SimWorld:
    """The simulated world for a robot config (path, config, or None for hardware/robot.toml) and start board.

    ``board``, ``peg_offsets_mm`` and ``rules`` as :func:`world_setting` takes them. ``servo_offsets_deg`` (one per
    servo of the arm, wire order) makes the simulated servos differ from the config, to model mis-calibration. A
    randomized world (the robot as built within its tolerances) is :func:`hanoibot.sim.random_world.make_random_world`.
    """
    config, start, stacking = world_setting(config_path_or_config, board, peg_offsets_mm=peg_offsets_mm, rules=rules)
    arm = SimArm(config, servo_offsets_deg=servo_offsets_deg)
    return SimWorld(config, start, arm=arm, speed=speed, frame_every_s=frame_every_s, rules=stacking)


def world_setting(
    config_path_or_config: RobotConfig | str | Path | None,
    board: State | str | None,
    *,
    peg_offsets_mm: Mapping[int, tuple[float, float]] | None = None,
    rules: str | None = None,
) -> tuple[RobotConfig, State, Rules | None]:
    """The robot config, start state and rules a world is made of.

    ``config_path_or_config`` is a path, a config, or None for hardware/robot.toml. ``board`` is a State or a
    state string (``ACAB`` or ``A:3,1,2/B:4/C:``); None puts :data:`DEFAULT_DISKS` disks on peg A.
    ``peg_offsets_mm`` (peg index -> (dx, dy) in mm) moves pegs from where the config says. ``rules`` is a
    rule-set name (``classic``, ``linear``, ``cyclic``, ``big-on-top``; default classic): what may land on what;
    ``bicolor`` or ``tricolor`` also puts the robot's coloured disks on the board (2 or 3 per size, see
    :func:`colour_config`).
    """
    if isinstance(config_path_or_config, RobotConfig):
        config = config_path_or_config
    else:
        config = load_config(config_path_or_config)
    if peg_offsets_mm:
        config = _with_pegs_moved(config, peg_offsets_mm)
    pegs = len(config.board.pegs)
    if board is None:
        start = State.tower(DEFAULT_DISKS, pegs=pegs)
    elif isinstance(board, State):
        start = board
    else:
        start = State.parse(board, pegs=pegs)
    stacking = _rules(rules, start.pegs)
    if stacking is not None and stacking.per_size > 1:
        config = colour_config(config, start.n_disks, stacking.per_size)
    return config, start, stacking


def _rules(name: str | None, pegs: int) -> Rules | None:
    """The rules named by the ``rules`` sim option (None = classic; a coloured puzzle's name puts its coloured
    disks on the board); ConfigError naming the option if unknown."""
    if name is None:
        return None
    if name in COLOUR_RULE_NAMES.values():
        return Rules.coloured(name)
    try:
        return Rules.named(name, pegs)
    except PlanError:
        names = ", ".join((*RULE_NAMES, *COLOUR_RULE_NAMES.values()))
        raise ConfigError(f"sim option rules={name!r} is invalid: expected one of {names}") from None


def colour_config(config: RobotConfig, n_disks: int, per_size: int) -> RobotConfig:
    """``config`` with its coloured disk set in use for ``n_disks`` disks, ``per_size`` of each size."""
    if n_disks % per_size:
        raise ConfigError(f"a board of {n_disks} disks is not {per_size} disks of each size (one per colour)")
    return config.with_colour_disks(n_disks // per_size, per_size)


def _with_pegs_moved(config: RobotConfig, offsets_mm: Mapping[int, tuple[float, float]]) -> RobotConfig:
    """A copy of ``config`` whose pegs stand moved by ``offsets_mm`` (peg index -> (dx, dy) in mm)."""
    pegs = list(config.board.pegs)
    for index, (dx_mm, dy_mm) in offsets_mm.items():
        if not 0 <= index < len(pegs):
            raise ConfigError(f"peg offset for peg {index}: expected a peg index 0..{len(pegs) - 1}")
        peg = pegs[index]
        pegs[index] = replace(peg, x_mm=peg.x_mm + dx_mm, y_mm=peg.y_mm + dy_mm)
    return replace(config, board=replace(config.board, pegs=tuple(pegs)))
