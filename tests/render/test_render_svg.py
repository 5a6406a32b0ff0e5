"""SVG pictures: parse them as XML and check they show the right disks on the right pegs, where they belong."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hanoibot.errors import RenderError
from hanoibot.puzzle import Move, State
from hanoibot.render.layout import layout_from_pegs
from hanoibot.render.svg import Frame, render_run_svg, render_state_svg
from hypothesis import given
from hypothesis import strategies as st

NS = {"svg": "http://www.w3.org/2000/svg"}
TOL = 0.02  # SVG coordinates are rounded to 0.01


@st.composite
def boards(draw: st.DrawFn) -> State:
    """Any state (irregular stacks included) of 1..8 disks on 3..6 pegs."""
    pegs = draw(st.integers(3, 6))
    n = draw(st.integers(1, 8))
    where = draw(st.lists(st.integers(0, pegs - 1), min_size=n, max_size=n))
    return State([draw(st.permutations([d for d in range(1, n + 1) if where[d - 1] == p])) for p in range(pegs)])


def rects(parent: ET.Element, css: str) -> list[ET.Element]:
    return [r for r in parent.iter(f"{{{NS['svg']}}}rect") if r.get("class") == css]


def centre_x(rect: ET.Element) -> float:
    return float(rect.get("x", "nan")) + float(rect.get("width", "nan")) / 2


def stacks_shown(parent: ET.Element, pegs: list[str]) -> list[list[int]]:
    """Disks per peg letter, bottom first, from the data attributes."""
    on_pegs = [r for r in rects(parent, "disk") if r.get("data-peg") != "held"]
    by_level = sorted(on_pegs, key=lambda r: int(r.get("data-level", "-1")))
    return [[int(r.get("data-disk", "0")) for r in by_level if r.get("data-peg") == peg] for peg in pegs]


@given(boards())
def test_a_state_picture_shows_each_disk_on_its_peg_stacked_from_the_board_up(state: State) -> None:
    root = ET.fromstring(render_state_svg(state))
    pegs = {p.get("data-peg", ""): p for p in rects(root, "peg")}
    assert list(pegs) == [chr(ord("A") + i) for i in range(state.pegs)]
    assert stacks_shown(root, list(pegs)) == [list(s) for s in state.stacks]
    for letter, peg in pegs.items():
        floor_y = float(peg.get("y", "nan")) + float(peg.get("height", "nan"))
        column = sorted(
            (r for r in rects(root, "disk") if r.get("data-peg") == letter), key=lambda r: r.get("data-level")
        )
        for disk in column:
            assert abs(centre_x(disk) - centre_x(peg)) < TOL
            bottom_y = float(disk.get("y", "nan")) + float(disk.get("height", "nan"))
            assert abs(bottom_y - floor_y) < TOL  # each disk rests on the one below (or on the board)
            floor_y = float(disk.get("y", "nan"))


@given(boards())
def test_a_larger_disk_is_drawn_wider(state: State) -> None:
    widths = {
        int(r.get("data-disk", "0")): float(r.get("width", "nan"))
        for r in rects(ET.fromstring(render_state_svg(state)), "disk")
    }
    ordered = [widths[d] for d in sorted(widths)]
    assert ordered == sorted(set(ordered))


def test_a_run_has_one_frame_per_state_each_showing_that_state_in_turn() -> None:
    states = [State.tower(3)]
    for move in [Move(1, 0, 2), Move(2, 0, 1), Move(1, 2, 1)]:
        states.append(states[-1].apply(move))
    root = ET.fromstring(render_run_svg(None, states, frame_s=0.25))
    frames = root.findall("svg:g[@class='frame']", NS)
    assert [int(f.get("data-index", "-1")) for f in frames] == [0, 1, 2, 3]
    letters = ["A", "B", "C"]
    assert [stacks_shown(f, letters) for f in frames] == [[list(s) for s in state.stacks] for state in states]
    assert [f.get("visibility") for f in frames] == ["visible", "hidden", "hidden", "hidden"]
    for index, frame in enumerate(frames):
        animate = frame.find("svg:animate", NS)
        assert animate is not None and animate.get("dur") == "1s"
        _, start, end = (float(t) for t in animate.get("keyTimes", "").split(";"))
        assert (start, end) == pytest.approx((index / 4, (index + 1) / 4))


def test_a_frame_draws_the_arm_and_the_held_disk_at_the_grip_point() -> None:
    layout = layout_from_pegs(
        [(150.0, -100.0), (180.0, 0.0), (150.0, 100.0)],
        peg_height_mm=80.0,
        peg_diameter_mm=8.0,
        disk_diameters_mm=(30.0, 40.0, 50.0),
        disk_thickness_mm=10.0,
    )
    arm = ((0.0, 0.0, 90.0), (60.0, 0.0, 200.0), (180.0, 0.0, 160.0), (180.0, 0.0, 100.0))
    frame = Frame(stacks=((3, 2), (), ()), arm_points_mm=arm, held_disk=1, caption="disk 1 A -> B")
    root = ET.fromstring(render_run_svg(layout, [frame]))
    polyline = root.find(".//svg:polyline[@class='arm']", NS)
    assert polyline is not None
    points = [tuple(float(v) for v in p.split(",")) for p in polyline.get("points", "").split()]
    assert len(points) == 5  # the base on the table, then shoulder, elbow, wrist, grip
    held = [r for r in rects(root, "disk") if r.get("data-peg") == "held"]
    assert [r.get("data-disk") for r in held] == ["1"]
    assert abs(centre_x(held[0]) - points[-1][0]) < TOL
    peg_b = next(r for r in rects(root, "peg") if r.get("data-peg") == "B")
    assert abs(centre_x(peg_b) - points[-1][0]) < TOL  # the grip point (180, 0) is right over peg B


def test_a_run_without_frames_or_with_a_bad_frame_time_is_refused() -> None:
    with pytest.raises(RenderError, match="at least one frame"):
        render_run_svg(None, [])
    with pytest.raises(RenderError, match="frame_s = 0"):
        render_run_svg(None, [State.tower(2)], frame_s=0)


def test_a_coloured_set_is_drawn_in_its_colours_with_equal_widths_per_size() -> None:
    from hanoibot.config import load_config
    from hanoibot.render.svg import COLOUR_FILLS

    config = load_config().with_colour_disks(2, 3)  # disks 1-3: size 1 red, green, blue; 4-6: size 2
    root = ET.fromstring(render_state_svg(State([[4, 1], [5, 2], [6, 3]]), config))
    disks = {int(r.get("data-disk", "0")): r for r in rects(root, "disk")}
    want = {1: "red", 2: "green", 3: "blue", 4: "red", 5: "green", 6: "blue"}
    assert {d: r.get("data-colour") for d, r in disks.items()} == want
    assert {d: r.get("fill") for d, r in disks.items()} == {d: COLOUR_FILLS[c] for d, c in want.items()}
    assert disks[1].get("width") == disks[3].get("width") != disks[4].get("width") == disks[6].get("width")
    plain = ET.fromstring(render_state_svg(State.tower(3), load_config()))
    assert all(r.get("data-colour") is None for r in rects(plain, "disk"))
