"""The simulated world's contact model for a level claw (a side grasp, issue 32): the MeArm preset's claw, driven
through its own servo pulses, takes the top disk of a 3-disk stack when it comes in radially at the disk's height,
and a grasp placed wrongly (too low, so a finger cuts into the wider disk below; too far in, so the palm meets the
disk; swung into a neighbouring stack) is a collision the world latches.

The wrong places are derived from the config's geometry (disk thickness, finger width and length, claw gap), not
from the world's output: each is chosen so that a body overlaps by at least 2 mm, twice the contact tolerance.
"""

from __future__ import annotations

import math

import pytest
from hanoibot.arm import preset_text
from hanoibot.config import RobotConfig, parse_config
from hanoibot.motion.claw import FINGER_THICKNESS_MM, standoff_xy_mm
from hanoibot.motion.kinematics import Point
from hanoibot.sim.disks import GripperPose
from hanoibot.sim.world import SimWorld, make_world

#: Each tick moves the claw at most this far (mm); the world subdivides further itself.
STEP_MM = 1.0


def mearm() -> RobotConfig:
    """The MeArm preset as a robot config."""
    return parse_config(preset_text("mearm").encode("utf-8"))


class Driver:
    """Drives a simulated world's arm along straight grip-point lines through the config's IK (level claw)."""

    def __init__(self, config: RobotConfig, world: SimWorld) -> None:
        self.config, self.world = config, world
        self.t_s = 0.0
        self.point = config.grip_point(config.start_pulses_us())
        self.gripper_us = config.gripper.open_us

    def tick(self) -> None:
        self.t_s += 0.02
        self.world.on_tick(self.t_s, list(self.config.pulses_at(self.point, round(self.gripper_us))))

    def go(self, x_mm: float, y_mm: float, z_mm: float) -> None:
        """Move the grip point in a straight line to (x, y, z) mm, the claw at its open or current gap."""
        start = self.point
        steps = max(1, math.ceil(math.dist(start, (x_mm, y_mm, z_mm)) / STEP_MM))
        for i in range(1, steps + 1):
            f = i / steps
            self.point = Point(*(a + (b - a) * f for a, b in zip(start, (x_mm, y_mm, z_mm), strict=True)))
            self.tick()

    def claw(self, width_mm: float) -> None:
        """Open or close the claw to ``width_mm`` in small steps."""
        start_us, end_us = self.gripper_us, self.config.gripper.pulse_for_width_us(width_mm)
        for i in range(1, 21):
            self.gripper_us = start_us + (end_us - start_us) * i / 20
            self.tick()


def side_grasp(config: RobotConfig, *, low_mm: float = 0.0, in_mm: float = 0.0, aside_mm: float = 0.0) -> SimWorld:
    """Take the top disk (disk 1) of a 3-disk stack on peg A the side-grasp way, its grip point ``low_mm`` below
    the disk's mid-plane and ``in_mm`` past the peg's axis, then lift it 20 mm; returns the world. ``aside_mm``:
    peg A really stands that far to the claw's left of where the config says (the claw goes where the config says).
    """
    peg = config.board.peg(0)
    radius_mm = math.hypot(peg.x_mm, peg.y_mm)
    left = (-peg.y_mm / radius_mm * aside_mm, peg.x_mm / radius_mm * aside_mm)
    world = make_world(config, "AAA", peg_offsets_mm={0: left}) if aside_mm else make_world(config, "AAA")
    drive = Driver(config, world)
    board, clearance_mm = config.board, config.motion.clearance_mm
    peg = board.peg(0)
    d_mm = board.disk_diameter_mm(1)
    mid_mm = board.grip_z_mm(2)
    z_mm = mid_mm - low_mm
    hover_mm = peg.height_mm + clearance_mm + config.gripper.finger_width_mm / 2
    sx, sy = standoff_xy_mm(peg.x_mm, peg.y_mm, d_mm / 2 + clearance_mm)
    ix, iy = standoff_xy_mm(peg.x_mm, peg.y_mm, -in_mm)
    drive.claw(d_mm + 2 * clearance_mm)
    drive.go(sx, sy, hover_mm)
    drive.go(sx, sy, z_mm)
    drive.go(ix, iy, z_mm)
    drive.claw(d_mm - config.gripper.squeeze_mm)
    drive.go(ix, iy, z_mm + 20.0)
    return world


def collisions(world: SimWorld) -> list[str]:
    return [e["detail"] for e in world.events if e["event"] == "fault" and e["fault"] == "COLLISION"]


def test_the_preset_is_a_level_claw_whose_fingers_pass_over_the_disk_below() -> None:
    config = mearm()
    assert config.gripper.finger_width_mm <= config.board.disk_thickness_mm
    assert make_world(config, "AAA").arm.pose(config.start_pulses_us()).is_level


def test_a_side_grasp_at_the_disks_mid_plane_takes_it_without_touching_anything() -> None:
    world = side_grasp(mearm())
    assert world.faults() == []
    assert world.held_disk == 1
    assert [e["event"] for e in world.events] == ["pick"]


def test_a_claw_too_low_cuts_into_the_wider_disk_below() -> None:
    config = mearm()
    board = config.board
    # The claw's bottom must go 2 mm into disk 2's top face: it sits half a disk below the mid-plane, and the claw's
    # bottom is half a finger below the grip point.
    low_mm = board.disk_thickness_mm / 2 - config.gripper.finger_width_mm / 2 + 2.0
    world = side_grasp(config, low_mm=low_mm)
    assert "COLLISION" in world.faults()
    assert any("claw finger hits disk 2 on peg A" in what for what in collisions(world)), collisions(world)


def test_a_claw_too_far_in_meets_the_disk_with_its_palm() -> None:
    # Past the arm's reach, so the claw's poses go to the world's disks directly (a claw on a longer arm). The palm
    # is a bar finger_length behind the grip point: this far in, its near face is 2 mm inside disk 1's rim.
    config = mearm()
    world = make_world(config, "BBB")
    board, gripper = config.board, config.gripper
    peg = board.peg(1)  # straight ahead: the claw points along +x
    d_mm = board.disk_diameter_mm(1)
    in_mm = gripper.finger_length_mm - d_mm / 2 - FINGER_THICKNESS_MM / 2 + 2.0
    z_mm, gap_mm = board.grip_z_mm(2), d_mm + 2 * config.motion.clearance_mm
    start_x = peg.x_mm - d_mm / 2 - config.motion.clearance_mm
    for i in range(0, 101):
        x_mm = start_x + (peg.x_mm + in_mm - start_x) * i / 100
        world.disks.update(i * 0.01, GripperPose(x_mm, peg.y_mm, z_mm, gap_mm, 1.0, 0.0))
    assert any("claw palm hits disk 1 on peg B" in what for what in collisions(world)), collisions(world)
    # The same path stopped at the axis touches nothing.
    world = make_world(config, "BBB")
    for i in range(0, 101):
        x_mm = start_x + (peg.x_mm - start_x) * i / 100
        world.disks.update(i * 0.01, GripperPose(x_mm, peg.y_mm, z_mm, gap_mm, 1.0, 0.0))
    assert world.faults() == []


def test_a_claw_swung_into_a_neighbouring_stack_is_a_collision() -> None:
    config = mearm()
    world = make_world(config, "BBB")  # the three disks on B, peg A empty
    drive = Driver(config, world)
    a, b = config.board.peg(0), config.board.peg(1)
    z_mm = config.board.grip_z_mm(1)  # disk 2's mid-plane on B
    drive.go(a.x_mm, a.y_mm, a.height_mm + 10.0)
    drive.go(a.x_mm, a.y_mm, z_mm)  # round the empty peg A: clear
    assert world.faults() == []
    # Turning about the base towards B at disk 2's height sweeps a finger into B's stack.
    radius_mm, yaw_a, yaw_b = math.hypot(a.x_mm, a.y_mm), math.atan2(a.y_mm, a.x_mm), math.atan2(b.y_mm, b.x_mm)
    for i in range(1, 61):
        yaw = yaw_a + (yaw_b - yaw_a) * i / 60
        drive.go(radius_mm * math.cos(yaw), radius_mm * math.sin(yaw), z_mm)
    assert any("claw finger hits disk 2 on peg B" in what for what in collisions(world)), collisions(world)


@pytest.mark.parametrize("low_mm", [0.0, 1.0])
def test_a_grasp_within_the_height_tolerance_is_clear(low_mm: float) -> None:
    # The claw's fingers are 2 mm shorter than a disk: 1 mm low still keeps them off the disk below.
    world = side_grasp(mearm(), low_mm=low_mm)
    assert world.faults() == [] and world.held_disk == 1


def test_closing_fingers_centre_a_disk_a_little_off_the_claws_middle() -> None:
    # Peg A 2 mm to the side (a peg placed a little off, within the world's grip-centre tolerance of 4 mm): the
    # closing fingers push the disk to their middle on its peg, as a top-down gripper's do.
    world = side_grasp(mearm(), aside_mm=2.0)
    assert world.faults() == [] and world.held_disk == 1


def test_a_disk_further_off_than_the_grip_tolerance_is_hit_by_a_finger() -> None:
    # 6 mm to the side: past the 4 mm a closing claw centres, the disk's rim 1 mm inside the open finger's face.
    world = side_grasp(mearm(), aside_mm=6.0)
    assert any("claw finger hits disk 1 on peg A" in what for what in collisions(world)), collisions(world)
