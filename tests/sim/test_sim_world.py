"""The world hook: config -> shapes, start boards, the grip sensor, fault latching, the event feed and frames."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hanoibot.config import default_config_path, load_config
from hanoibot.errors import ConfigError, StateError
from hanoibot.motion.kinematics import Point
from hanoibot.motion.paths import pulses_at
from hanoibot.puzzle import State
from hanoibot.sim.world import (
    DEFAULT_DISKS,
    HOLE_CLEARANCE_MM,
    board_geometry,
    make_world,
)

CONFIG = load_config()
BOARD = CONFIG.board
OPEN_US = CONFIG.gripper.open_us
CLOSED_US = CONFIG.gripper.closed_us


class RecordingController:
    """Stands in for the firmware controller: remembers every latched fault."""

    def __init__(self) -> None:
        self.latched: list[str] = []

    def latch_fault(self, name: str) -> None:
        self.latched.append(name)


def at(x_mm: float, y_mm: float, z_mm: float, gripper_us: int) -> list[int | None]:
    """Channel pulses that put the fingertips at (x, y, z) mm with the gripper pulse ``gripper_us``."""
    return list(pulses_at(CONFIG, Point(x_mm, y_mm, z_mm), gripper_us))


def test_without_options_the_world_is_the_default_robot_with_three_disks_on_a() -> None:
    world = make_world()
    assert world.state == State.tower(DEFAULT_DISKS, pegs=len(BOARD.pegs))
    assert world.grip_sensor is not None and not world.grip_sensor.is_stalled()
    assert world.max_speed_us_per_s == pytest.approx(list(CONFIG.max_speeds_us_s()))


def test_the_start_board_may_be_a_state_string_or_a_state_and_the_config_a_path() -> None:
    assert make_world(str(default_config_path()), "ACB").state == State.parse("ACB")
    assert make_world(CONFIG, "A:3,1/B:2/C:").stacks == ((3, 1), (2,), ())
    assert make_world(CONFIG, State.tower(4, peg=1)).state == State.tower(4, peg=1)


def test_a_start_board_the_config_cannot_hold_is_refused() -> None:
    with pytest.raises(StateError, match=f"{BOARD.disk_count + 1} disks"):
        make_world(CONFIG, State.tower(BOARD.disk_count + 1))
    with pytest.raises(StateError, match="4 pegs"):
        make_world(CONFIG, State.tower(2, pegs=4))


@pytest.mark.parametrize("speed", [0.0, -1.0, float("inf"), float("nan")])
def test_a_speed_factor_that_is_not_a_positive_number_is_refused(speed: float) -> None:
    with pytest.raises(ConfigError, match="speed factor"):
        make_world(CONFIG, speed=speed)


def test_the_speed_factor_scales_every_servo_top_speed() -> None:
    assert make_world(CONFIG, speed=4.0).max_speed_us_per_s == pytest.approx([4 * r for r in CONFIG.max_speeds_us_s()])


def test_a_peg_offset_for_a_peg_that_does_not_exist_is_refused() -> None:
    with pytest.raises(ConfigError, match="peg offset for peg 7"):
        make_world(CONFIG, peg_offsets_mm={7: (20.0, 0.0)})


def test_a_moved_peg_stands_where_it_was_moved_to_in_the_simulated_board_only() -> None:
    world = make_world(CONFIG, peg_offsets_mm={1: (20.0, -5.0)})
    moved = world.disks.geometry.pegs_xy_mm[1]
    assert moved == pytest.approx((BOARD.pegs[1].x_mm + 20.0, BOARD.pegs[1].y_mm - 5.0))
    assert CONFIG.board.pegs[1].x_mm == BOARD.pegs[1].x_mm  # the host's config is untouched


def test_the_simulated_shapes_come_from_the_config() -> None:
    geometry = board_geometry(CONFIG)
    assert geometry.pegs_xy_mm == tuple((peg.x_mm, peg.y_mm) for peg in BOARD.pegs)
    assert geometry.peg_heights_mm == tuple(peg.height_mm for peg in BOARD.pegs)
    assert geometry.disk_diameters_mm == BOARD.disk_diameters_mm
    assert geometry.hole_diameter_mm == BOARD.peg_diameter_mm + HOLE_CLEARANCE_MM
    assert geometry.finger_length_mm == CONFIG.gripper.finger_length_mm


def test_a_robot_without_a_grip_sensor_offers_none() -> None:
    config = replace(CONFIG, gripper=replace(CONFIG.gripper, grip_sensor=False))
    assert make_world(config).grip_sensor is None


def test_a_pick_then_a_release_between_pegs_reads_the_sensor_and_latches_drop() -> None:
    world = make_world(CONFIG, State.tower(3), frame_every_s=0.1)
    controller = RecordingController()
    world.attach(controller)
    heard: list[str] = []
    world.on_event = lambda event: heard.append(event["event"])
    peg_a = BOARD.pegs[0]
    grip_z = BOARD.grip_z_mm(2)
    between = ((BOARD.pegs[0].x_mm + BOARD.pegs[1].x_mm) / 2, (BOARD.pegs[0].y_mm + BOARD.pegs[1].y_mm) / 2)
    ticks = [
        at(peg_a.x_mm, peg_a.y_mm, peg_a.height_mm + 10, OPEN_US),
        at(peg_a.x_mm, peg_a.y_mm, grip_z, OPEN_US),
        at(peg_a.x_mm, peg_a.y_mm, grip_z, CLOSED_US),
        at(peg_a.x_mm, peg_a.y_mm, peg_a.height_mm + 10, CLOSED_US),
        at(*between, peg_a.height_mm + 10, CLOSED_US),
    ]
    for i, pulses in enumerate(ticks):
        world.on_tick(i * 0.5, pulses)
    assert world.grip_sensor is not None and world.grip_sensor.is_stalled()
    assert world.state is None and world.held_disk == 1
    world.on_tick(3.0, at(*between, peg_a.height_mm + 10, OPEN_US))
    assert controller.latched == ["DROP"]
    assert world.faults() == ["DROP"]
    assert heard == ["pick", "drop", "fault"]
    assert not world.grip_sensor.is_stalled()
    held_frames = [f for f in world.frames if f.held_disk == 1]
    assert held_frames and all(len(f.arm_points_mm) == len(CONFIG.chain.joints) + 1 for f in world.frames)


def test_while_the_servos_are_unpowered_nothing_moves() -> None:
    world = make_world(CONFIG, State.tower(3))
    world.attach(RecordingController())
    for i in range(5):
        world.on_tick(i * 0.01, [None] * 5)
    assert world.events == [] and world.state == State.tower(3)
