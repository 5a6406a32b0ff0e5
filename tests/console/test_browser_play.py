"""The Play view in Chromium: drag and drop, keyboard play, Suggest move against the planner, Solve Fast."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hanoibot.planner import make_plan
from hanoibot.puzzle import RULE_NAMES, Rules, State

# In a real browser (or a running arm) each: in `make test` and CI, not in the fast `make check` loop.
pytestmark = pytest.mark.slow


def new_puzzle(page: Any, *, disks: int = 3, pegs: int = 3, rules: str = "classic", start: str = "", goal: str = ""):
    """Set the puzzle in the form and press New puzzle; waits until the page shows it."""
    page.select_option("#disks", str(disks))
    page.select_option("#pegs", str(pegs))
    page.select_option("#rules", rules)
    page.select_option("#start", "typed" if start else "tower")
    page.fill("#start-text", start)
    page.fill("#goal-text", goal)
    page.click("#new")
    shown = State.parse(start, pegs=pegs).to_string() if start else "A" * disks
    page.wait_for_function("text => document.getElementById('position').textContent === text", arg=shown)
    page.wait_for_function("() => /^\\d+$/.test(document.getElementById('moves-left').textContent)")


def drag_top_disk(page: Any, peg: int, to_u_mm: float, to_z_mm: float) -> None:
    """Drag the top disk of ``peg`` with the mouse so its centre ends at (u, z) mm of the board."""
    points = page.evaluate(
        """([peg, u, z]) => {
            const view = window.__game.view;
            const from = view.diskCentre(peg, view.stacks[peg].length - 1);
            return [view.clientPoint(from.u, from.z), view.clientPoint(u, z)];
        }""",
        [peg, to_u_mm, to_z_mm],
    )
    (x0, y0), (x1, y1) = (points[0]["x"], points[0]["y"]), (points[1]["x"], points[1]["y"])
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, min(y0, y1) - 40, steps=5)
    page.mouse.move(x1, y1, steps=5)
    page.mouse.up()


def peg_geometry(page: Any) -> dict[str, Any]:
    return page.evaluate("() => ({u: window.__game.view.g.peg_u_mm, top: window.__game.view.liftHeight()})")


def position(page: Any) -> str:
    return str(page.inner_text("#position"))


def test_drag_a_disk_legally_and_illegally(page: Any) -> None:
    new_puzzle(page, disks=3)
    geo = peg_geometry(page)
    drag_top_disk(page, 0, geo["u"][2], 5.0)
    assert position(page) == "CAA"
    assert page.inner_text("#move-count") == "1"
    drag_top_disk(page, 0, geo["u"][2], 20.0)  # disk 2 onto disk 1
    assert position(page) == "CAA"
    assert "disk 2 may not be put on smaller disk 1 on peg C" in page.inner_text("#play-message")
    assert page.locator("#play-message.bad").count() == 1


def test_drop_near_a_peg_lands_and_far_from_every_peg_returns(page: Any) -> None:
    new_puzzle(page, disks=3)
    geo = peg_geometry(page)
    spacing = geo["u"][1] - geo["u"][0]
    drag_top_disk(page, 0, geo["u"][1] + 0.2 * spacing, 15.0)  # near B: within the drop distance
    assert position(page) == "BAA"
    drag_top_disk(page, 0, geo["u"][1] + 0.5 * spacing, 15.0)  # half-way between B and C
    assert position(page) == "BAA"
    assert "went back" in page.inner_text("#play-message")
    drag_top_disk(page, 0, geo["u"][2], geo["top"] + 80.0)  # over C but far above its tip
    assert position(page) == "BAA"


def test_screen_reader_names_of_pegs_and_disks(page: Any) -> None:
    new_puzzle(page, disks=3)
    assert page.get_by_role("img", name="disk 3 on peg A").count() == 1
    assert page.get_by_role("button", name="peg A: 3 disks, top disk 1").count() == 1
    assert page.get_by_role("button", name="Suggest move").count() == 1
    assert page.get_by_role("button", name="E-STOP").count() == 1


def distances_to(goal: State, start: State, rules: Rules) -> dict[State, int]:
    """Exact number of moves to ``goal`` from every state reachable from ``start`` (plain breadth-first search
    over the puzzle's legal moves, independent of the planner)."""
    predecessors: dict[State, list[State]] = {start: []}
    frontier = deque([start])
    while frontier:
        state = frontier.popleft()
        for move in state.legal_moves(rules):
            after = state.apply(move, rules)
            if after not in predecessors:
                predecessors[after] = []
                frontier.append(after)
            predecessors[after].append(state)
    distance = {goal: 0}
    frontier = deque([goal])
    while frontier:
        state = frontier.popleft()
        for before in predecessors.get(state, []):
            if before not in distance:
                distance[before] = distance[state] + 1
                frontier.append(before)
    return distance


@pytest.mark.parametrize("pegs", [3, 4])
def test_suggest_move_equals_the_planners_next_optimal_move(page: Any, pegs: int) -> None:
    """Random positions of 4 disks under every rule set: the page's suggestion is make_plan's first move, and an
    independent breadth-first search agrees that it takes the position one move closer to the goal."""
    rng = random.Random(pegs)
    for rules in RULE_NAMES:
        rule_set = Rules.named(rules, pegs)
        goal = State.tower(4, pegs - 1, pegs)
        for _ in range(2):
            start = State.from_pegs([rng.randrange(pegs) for _ in range(4)], pegs)
            if start == goal:
                continue
            distance = distances_to(goal, start, rule_set)
            new_puzzle(page, disks=4, pegs=pegs, rules=rules, start=start.to_string())
            page.click("#suggest")
            page.wait_for_selector("#suggestion[data-disk]")
            shown = page.evaluate("() => ({...document.getElementById('suggestion').dataset})")
            move = make_plan(4, pegs=pegs, rules=rule_set, start=start, goal=goal).move_at(0)
            assert (int(shown["disk"]), shown["src"], shown["dst"]) == (move.disk, "ABCD"[move.src], "ABCD"[move.dst])
            after = start.apply(move, rule_set)
            assert distance[after] == distance[start] - 1, f"{rules}: {move} from {start} is not on a shortest path"
            assert f"{distance[start]} moves left" in page.inner_text("#suggestion")


def test_suggest_on_four_pegs_names_frame_stewart(page: Any) -> None:
    new_puzzle(page, disks=6, pegs=4)
    page.click("#suggest")
    page.wait_for_selector("#suggestion[data-disk]")
    assert "Frame–Stewart" in page.inner_text("#suggestion")
    assert page.inner_text("#moves-left") == "17"  # Frame–Stewart for 6 disks on 4 pegs (OEIS A007664)


def test_solve_fast_reaches_the_goal_and_undo_redo_walk_the_history(page: Any) -> None:
    new_puzzle(page, disks=4)
    page.click("#solve")
    page.wait_for_function("() => document.getElementById('position').textContent === 'CCCC'", timeout=30_000)
    page.wait_for_function("() => document.getElementById('moves-left').textContent === '0'")
    assert page.inner_text("#move-count") == "15"
    page.click("#undo")
    assert position(page) == "BCCC"  # the last move was disk 1 from B to C
    page.click("#redo")
    assert position(page) == "CCCC"


def test_solve_pauses_and_steps_one_move_at_a_time(page: Any) -> None:
    new_puzzle(page, disks=3)
    page.click("#solve-step")
    page.wait_for_function("() => document.getElementById('move-count').textContent === '1'")
    page.wait_for_timeout(1500)  # paused: no further move
    assert page.inner_text("#move-count") == "1" and position(page) == "CAA"
    page.click("#solve-step")
    page.wait_for_function("() => document.getElementById('move-count').textContent === '2'")
    assert position(page) == "CBA"


def test_keyboard_only_play_solves_three_disks(page: Any) -> None:
    new_puzzle(page, disks=3)
    for _ in range(40):  # Tab to the first peg
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.dataset.peg") == "A":
            break
    else:
        raise AssertionError("Tab never reached peg A")
    at = 0
    for move in make_plan(3):  # the 7 moves, as a person would key them in
        for src_or_dst in (move.src, move.dst):
            while at != src_or_dst:
                page.keyboard.press("ArrowRight")
                at = (at + 1) % 3
            page.keyboard.press("Enter")
    assert position(page) == "CCC"
    page.wait_for_function("() => document.getElementById('play-message').textContent.startsWith('Solved')")
    assert page.evaluate("() => document.activeElement.dataset.peg") == "C"


def test_play_view_screenshot(page: Any, screenshot_path: Callable[[str], Path]) -> None:
    new_puzzle(page, disks=5)
    geo = peg_geometry(page)
    drag_top_disk(page, 0, geo["u"][2], 5.0)
    page.click("#suggest")
    page.wait_for_selector("#suggestion[data-disk]")
    shot = screenshot_path("console-play.png")
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000


def test_a_coloured_puzzle_is_chosen_drawn_in_its_colours_and_solved(page: Any) -> None:
    page.select_option("#disks", "2")
    page.select_option("#rules", "bicolor")
    page.click("#new")
    # bicolor with 2 sizes, numbered size first: A holds 2 red (3) under 1 green (2), B 2 green (4) under 1 red (1)
    page.wait_for_function("() => document.getElementById('position').textContent === 'BAAB'")
    colours = page.evaluate(
        "() => [...document.querySelectorAll('#play-board rect.disk')].map(r => [r.dataset.disk, r.dataset.colour])"
    )
    assert sorted(colours) == [["1", "red"], ["2", "green"], ["3", "red"], ["4", "green"]]
    geo = peg_geometry(page)
    drag_top_disk(page, 0, geo["u"][1], 30.0)  # 1 green onto 1 red: equal sizes stack
    assert position(page) == "A:3/B:4,1,2/C:"
    drag_top_disk(page, 0, geo["u"][1], 40.0)  # 2 red onto 1 green: refused
    assert "disk 3 may not be put on smaller disk 2 on peg B" in page.inner_text("#play-message")
    page.click("#solve")
    # the goal: A 2 red (3) under 1 red (1), B 2 green (4) under 1 green (2)
    page.wait_for_function("() => document.getElementById('position').textContent === 'ABAB'", timeout=30_000)
    page.wait_for_function("() => document.getElementById('moves-left').textContent === '0'")
