"""Disk physics of the simulated board, driven by hand-written gripper pose streams (no arm, no firmware)."""

from __future__ import annotations

import pytest
from hanoibot.errors import StateError
from hanoibot.puzzle import Move, Rules, State
from hanoibot.sim.disks import (
    GRIP_CENTRE_TOLERANCE_MM,
    GRIP_HEIGHT_TOLERANCE_MM,
    BoardGeometry,
    DiskBoard,
    GripperPose,
)
from hypothesis import given
from hypothesis import strategies as st

GEOMETRY = BoardGeometry(
    pegs_xy_mm=((100.0, 0.0), (200.0, 0.0), (300.0, 0.0)),
    peg_heights_mm=(70.0, 70.0, 70.0),
    peg_diameter_mm=8.0,
    disk_diameters_mm=(24.0, 30.0, 36.0, 42.0, 48.0),
    disk_thickness_mm=10.0,
    hole_diameter_mm=11.0,
    finger_length_mm=80.0,
    palm_radius_mm=34.0,
)
OPEN_MM = 60.0
CLOSED_MM = 5.0
SAFE_Z_MM = 100.0  # above every peg tip, with a held disk hanging below the fingertips
TICK_MM = 6.0  # how far the fingertips move per simulated tick in these streams


def glide(start: GripperPose, end: GripperPose, step_mm: float = TICK_MM) -> list[GripperPose]:
    """Poses from ``start`` (excluded) to ``end`` at most ``step_mm`` apart, like servo ticks."""
    span = max(abs(a - b) for a, b in zip(start, end, strict=True))
    count = max(1, int(span // step_mm) + 1)
    return [
        GripperPose(*(a + (b - a) * i / count for a, b in zip(start, end, strict=True))) for i in range(1, count + 1)
    ]


def waypoints_for(state: State, move: Move, *, dst_shift_mm: float = 0.0) -> list[GripperPose]:
    """The corners of a pick-and-place path for ``move`` on ``GEOMETRY`` (optionally aiming off the target)."""
    (sx, sy), (dx, dy) = GEOMETRY.pegs_xy_mm[move.src], GEOMETRY.pegs_xy_mm[move.dst]
    dx += dst_shift_mm
    t = GEOMETRY.disk_thickness_mm
    grip_z = (state.height(move.src) - 0.5) * t
    place_z = (state.height(move.dst) + 0.5) * t
    return [
        GripperPose(sx, sy, SAFE_Z_MM, OPEN_MM),
        GripperPose(sx, sy, grip_z, OPEN_MM),
        GripperPose(sx, sy, grip_z, CLOSED_MM),
        GripperPose(sx, sy, SAFE_Z_MM, CLOSED_MM),
        GripperPose(dx, dy, SAFE_Z_MM, CLOSED_MM),
        GripperPose(dx, dy, place_z, CLOSED_MM),
        GripperPose(dx, dy, place_z, OPEN_MM),
        GripperPose(dx, dy, SAFE_Z_MM, OPEN_MM),
    ]


def drive(board: DiskBoard, waypoints: list[GripperPose], t0_s: float = 0.0) -> list[str]:
    """Feed the path through ``waypoints`` to ``board`` tick by tick; returns every fault raised."""
    faults: list[str] = []
    pose = waypoints[0]
    faults += board.update(t0_s, pose)
    t_s = t0_s
    for target in waypoints[1:]:
        for step in glide(pose, target):
            t_s += 0.01
            faults += board.update(t_s, step)
        pose = target
    return faults


def kinds(board: DiskBoard) -> list[str]:
    return [event["event"] for event in board.events]


@given(st.integers(1, 5).flatmap(lambda n: st.lists(st.integers(0, 2), min_size=n, max_size=n)), st.data())
def test_legal_moves_played_by_the_gripper_end_where_the_rules_say(
    pegs_of_disks: list[int], data: st.DataObject
) -> None:
    state = State.from_pegs(pegs_of_disks)
    board = DiskBoard(GEOMETRY, state.stacks)
    for _ in range(data.draw(st.integers(0, 6))):
        move = data.draw(st.sampled_from(state.legal_moves()))
        assert drive(board, waypoints_for(state, move)) == []
        state = state.apply(move)  # the oracle: the puzzle's own rules
        assert board.state == state
    assert "fault" not in kinds(board)


def test_a_pick_is_logged_and_the_grip_sensor_width_is_the_disk_diameter() -> None:
    board = DiskBoard(GEOMETRY, State.tower(3).stacks)
    path = waypoints_for(State.tower(3), Move(1, 0, 2))
    drive(board, path[:4])
    assert board.held_disk == 1
    assert board.grip_width_mm() == GEOMETRY.disk_diameters_mm[0]
    assert board.state is None  # a disk in the air is not a puzzle state
    assert board.events[-1]["event"] == "pick" and board.events[-1]["peg"] == "A"


@given(
    st.floats(-3 * GRIP_CENTRE_TOLERANCE_MM, 3 * GRIP_CENTRE_TOLERANCE_MM),
    st.floats(-3 * GRIP_HEIGHT_TOLERANCE_MM, 3 * GRIP_HEIGHT_TOLERANCE_MM),
)
def test_the_fingers_take_a_disk_only_at_its_centre_and_mid_height(offset_x_mm: float, offset_z_mm: float) -> None:
    board = DiskBoard(GEOMETRY, State.tower(2).stacks)
    grip_z = 1.5 * GEOMETRY.disk_thickness_mm
    above = GripperPose(100.0 + offset_x_mm, 0.0, SAFE_Z_MM, OPEN_MM)
    down = above._replace(z_mm=grip_z + offset_z_mm)
    drive(board, [above, down, down._replace(width_mm=CLOSED_MM)])
    aligned = abs(offset_x_mm) <= GRIP_CENTRE_TOLERANCE_MM and abs(offset_z_mm) <= GRIP_HEIGHT_TOLERANCE_MM
    assert (board.held_disk == 1) is aligned
    assert ("missed_pick" in kinds(board)) is not aligned
    assert (board.grip_width_mm() == 0.0) is not aligned


def test_opening_away_from_every_peg_drops_the_disk() -> None:
    board = DiskBoard(GEOMETRY, State.tower(3).stacks)
    path = waypoints_for(State.tower(3), Move(1, 0, 2))
    between = GripperPose(250.0, 0.0, SAFE_Z_MM, CLOSED_MM)
    faults = drive(board, [*path[:4], between, between._replace(width_mm=OPEN_MM)])
    assert faults == ["DROP"]
    assert board.loose_disks == [1] and board.held_disk is None and board.state is None
    assert board.stacks == ((3, 2), (), ())


def test_opening_above_a_peg_lets_the_disk_fall_onto_the_stack() -> None:
    board = DiskBoard(GEOMETRY, State.tower(3).stacks)
    path = waypoints_for(State.tower(3), Move(1, 0, 2))
    high_over_c = GripperPose(300.0, 0.0, SAFE_Z_MM, CLOSED_MM)
    assert drive(board, [*path[:5], high_over_c._replace(width_mm=OPEN_MM)]) == []
    assert board.state == State.parse("CAA")


def test_landing_on_a_smaller_disk_is_a_bad_stack_and_leaves_it_there() -> None:
    start = State.parse("ABB")  # disk 1 on A, disks 3 and 2 on B
    board = DiskBoard(GEOMETRY, start.stacks)
    faults = drive(board, waypoints_for(start, Move(2, 1, 0)))
    assert faults == ["BAD_STACK"]
    assert board.stacks == ((1, 2), (3,), ())


def test_sweeping_a_held_disk_through_a_peg_collides_with_it() -> None:
    board = DiskBoard(GEOMETRY, State.tower(1).stacks)
    path = waypoints_for(State.tower(1), Move(1, 0, 2))
    low = 45.0  # well below the peg tips (70 mm)
    faults = drive(board, [*path[:4], GripperPose(150.0, 0.0, SAFE_Z_MM, CLOSED_MM)._replace(z_mm=low)])
    assert faults == []  # lifted clear of peg A first, then lowered between the pegs
    faults = drive(board, [GripperPose(150.0, 0.0, low, CLOSED_MM), GripperPose(300.0, 0.0, low, CLOSED_MM)])
    assert "COLLISION" in faults
    assert "held disk 1 hits peg B" in [e.get("detail") for e in board.events]


def test_a_lasting_contact_is_reported_once_when_it_begins() -> None:
    board = DiskBoard(GEOMETRY, State.tower(1, peg=2).stacks)
    touching = GripperPose(200.0 - OPEN_MM / 2 - 1.0, 0.0, 40.0, OPEN_MM)  # a finger around peg B
    assert board.update(0.0, touching._replace(z_mm=SAFE_Z_MM)) == []
    assert board.update(0.01, touching) == ["COLLISION"]
    wiggles = [board.update(0.02 + i / 100, touching._replace(z_mm=40.0 + (i % 2))) for i in range(5)]
    assert wiggles == [[]] * 5


def test_a_fast_jump_across_a_thin_peg_does_not_tunnel_through_it() -> None:
    board = DiskBoard(GEOMETRY, State.tower(1, peg=2).stacks)
    low = 40.0
    assert board.update(0.0, GripperPose(160.0, 0.0, low, CLOSED_MM)) == []
    assert board.update(0.01, GripperPose(240.0, 0.0, low, CLOSED_MM)) == ["COLLISION"]


def test_lowering_onto_a_peg_that_is_20_mm_off_the_aim_collides_with_it() -> None:
    start = State.tower(2)
    board = DiskBoard(GEOMETRY, start.stacks)
    faults = drive(board, waypoints_for(start, Move(1, 0, 2), dst_shift_mm=20.0))
    assert "COLLISION" in faults
    assert any("peg C" in e.get("detail", "") for e in board.events)


def test_fingertips_below_the_board_surface_collide() -> None:
    board = DiskBoard(GEOMETRY, State.tower(1).stacks)
    assert board.update(0.0, GripperPose(250.0, 0.0, 5.0, OPEN_MM)) == []
    assert board.update(0.01, GripperPose(250.0, 0.0, -5.0, OPEN_MM)) == ["COLLISION"]


def test_descending_off_centre_onto_a_stack_hits_its_top_disk() -> None:
    board = DiskBoard(GEOMETRY, State.tower(3).stacks)
    above = GripperPose(100.0 + 25.0, 0.0, SAFE_Z_MM, OPEN_MM)  # a finger over the disk rims
    faults = drive(board, [above, above._replace(z_mm=25.0)])
    assert faults == ["COLLISION"]
    assert "disk 1 on peg A" in board.events[-1]["detail"]


def test_a_state_that_does_not_fit_the_geometry_is_refused() -> None:
    with pytest.raises(StateError, match="6 disks"):
        DiskBoard(GEOMETRY, State.tower(6).stacks)
    with pytest.raises(StateError, match="4 pegs"):
        DiskBoard(GEOMETRY, State.tower(2, pegs=4).stacks)


def test_under_big_on_top_only_the_largest_disk_may_land_on_a_smaller_one() -> None:
    start = State.parse("AAB")  # disks 2 and 1 on A, disk 3 on B
    rules = Rules.named("big-on-top")
    largest = DiskBoard(GEOMETRY, start.stacks, rules=rules)
    assert drive(largest, waypoints_for(start, Move(3, 1, 0))) == []
    assert largest.stacks == ((2, 1, 3), (), ())
    classic = DiskBoard(GEOMETRY, start.stacks)
    assert drive(classic, waypoints_for(start, Move(3, 1, 0))) == ["BAD_STACK"]
    middle_start = State.parse("ABB")  # disk 2 on top of B may still not land on disk 1
    middle = DiskBoard(GEOMETRY, middle_start.stacks, rules=rules)
    assert drive(middle, waypoints_for(middle_start, Move(2, 1, 0))) == ["BAD_STACK"]


COLOURED = GEOMETRY._replace(disk_diameters_mm=(24.0, 24.0, 36.0, 36.0))  # two disks of each of two sizes


def test_a_coloured_set_stacks_equal_diameters_and_refuses_a_wider_disk_on_a_narrower_one() -> None:
    # no rules given: the physics alone compares diameters (classic rules would refuse disk 2 on disk 1)
    start = State([[3], [1], [4, 2]])
    equal = DiskBoard(COLOURED, start.stacks)
    assert drive(equal, waypoints_for(start, Move(2, 2, 1))) == []
    assert equal.stacks == ((3,), (1, 2), (4,))
    after = State([[3], [1, 2], [4]])
    wider = DiskBoard(COLOURED, after.stacks, rules=Rules(3, per_size=2))
    assert drive(wider, waypoints_for(after, Move(4, 2, 1))) == ["BAD_STACK"]
    assert wider.stacks == ((3,), (1, 2, 4), ())
