"""`hanoibot run --puzzle bicolor|tricolor` on sim://, judged from the simulated board's own disks.

The expected boards are written out by hand from the puzzles' rules (README "Bicolor towers", "3-colour towers")
and the robot's coloured set in hardware/robot.toml, not taken from the planner.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import hanoibot.sim.world
import pytest
from cli_runner import ctrl_c_after_move
from hanoibot.cli import main
from hanoibot.config import load_config
from hanoibot.puzzle import State
from hanoibot.run.journal import load_journal

SIZES_MM = load_config().board.colour_set.diameters_mm  # type: ignore[union-attr]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def worlds(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every simulated world sim:// builds during the test, in order."""
    made: list[Any] = []
    original = hanoibot.sim.world.make_world

    def spy(*args: Any, **kwargs: Any) -> Any:
        world = original(*args, **kwargs)
        world.test_start_stacks = world.stacks  # where its disks stood when it was built
        made.append(world)
        return world

    monkeypatch.setattr(hanoibot.sim.world, "make_world", spy)
    return made


def pegs_seen(world: Any, *, at_start: bool = False) -> list[list[tuple[float, str | None]]]:
    """Each peg's disks as the simulated board holds them (now, or when it was built), bottom first: (diameter in
    mm, colour)."""
    board = world.config.board
    assert world.held_disk is None and not world.disks.loose_disks
    stacks = world.test_start_stacks if at_start else world.stacks
    return [[(board.disk_diameter_mm(d), board.disk_colour(d)) for d in stack] for stack in stacks]


def optimum(puzzle: str, sizes: int) -> int:
    """The fewest moves of ``puzzle``, by the exact search (itself checked against an independent search in
    tests/planner/test_planner_colours.py)."""
    from hanoibot.planner.colours import shortest_moves
    from hanoibot.puzzle.colours import start_and_goal

    return len(shortest_moves(*start_and_goal(puzzle, sizes)))


def tower(sizes: int, colour: str) -> list[tuple[float, str | None]]:
    """One colour's tower of ``sizes`` sizes, bottom (largest) first."""
    return [(SIZES_MM[size - 1], colour) for size in range(sizes, 0, -1)]


def test_bicolor_with_three_sizes_ends_with_a_red_and_a_green_tower(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, worlds: list[Any]
) -> None:
    report_path = tmp_path / "r.json"
    code, out, err = run_cli(capsys, "run", "--plain", "--puzzle", "bicolor", "-n", "3", "--report", str(report_path))
    assert code == 0, out + err
    assert len(worlds) == 1
    # the start the board was given: alternating towers, the largest red on A and green on B
    alternating = [(SIZES_MM[2], "red"), (SIZES_MM[1], "green"), (SIZES_MM[0], "red")]
    assert pegs_seen(worlds[0], at_start=True) == [
        alternating,
        [(d, {"red": "green", "green": "red"}[c]) for d, c in alternating],
        [],
    ]
    assert [e for e in worlds[0].events if e["event"] == "fault"] == []
    assert pegs_seen(worlds[0]) == [tower(3, "red"), tower(3, "green"), []]
    report = json.loads(report_path.read_text())
    assert report["status"] == "done" and report["faults"] == []
    assert report["colours"] == "A red red red / B green green green / C -"
    assert "colours A red red red / B green green green / C -" in out
    from hanoibot.planner.colours import shortest_moves
    from hanoibot.puzzle.colours import start_and_goal

    start = start_and_goal("bicolor", 3)[0]
    first = shortest_moves(start, start_and_goal("bicolor", 3)[1])[0]
    lifted = start.top(first.src)
    assert lifted is not None
    named = f"({first.disk} {('red', 'green')[lifted[1]]}) {'ABC'[first.src]} -> {'ABC'[first.dst]}"
    assert named in out.splitlines()[1], "the progress names a disk by its size and colour"


def test_tricolor_with_two_sizes_moves_every_colour_to_another_peg(
    capsys: pytest.CaptureFixture[str], worlds: list[Any]
) -> None:
    code, out, err = run_cli(capsys, "run", "--plain", "--puzzle", "tricolor", "-n", "2")
    assert code == 0, out + err
    assert pegs_seen(worlds[0], at_start=True) == [tower(2, "red"), tower(2, "green"), tower(2, "blue")]
    # red A -> B, green B -> C, blue C -> A
    assert pegs_seen(worlds[0]) == [tower(2, "blue"), tower(2, "red"), tower(2, "green")]
    places = [e for e in worlds[0].events if e["event"] == "place"]
    assert len(places) == optimum("tricolor", 2), "as many places as the exact search's optimum"


def test_a_run_whose_board_ends_in_the_wrong_colours_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the simulated board is set up with the two smallest disks swapped (1 green on A, 1 red on B): equal sizes, so
    # every move goes through, and only the colours the board ends with show the mistake
    original = hanoibot.sim.world.make_world

    def swapped(config: Any = None, board: Any = None, **options: Any) -> Any:
        assert State.parse(str(board)) == State.parse("A:5,4,1/B:6,3,2/C:")
        return original(config, "A:5,4,2/B:6,3,1/C:", **options)

    monkeypatch.setattr(hanoibot.sim.world, "make_world", swapped)
    code, out, err = run_cli(capsys, "run", "--plain", "--puzzle", "bicolor", "-n", "3")
    assert code == 1, out + err
    assert err == (
        "hanoibot: the board's colours are A red red green / B green green red / C -, "
        "not the goal A red red red / B green green green / C -\n"
    )


def test_a_coloured_run_stopped_by_the_operator_resumes_and_finishes_on_the_goal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, worlds: list[Any]
) -> None:
    from hanoibot.commands import run_view

    journal_path = tmp_path / "run.journal"
    original = ctrl_c_after_move(monkeypatch, 3)
    code, _, err = run_cli(capsys, "run", "--plain", "--puzzle", "bicolor", "-n", "3", "--journal", str(journal_path))
    assert code == 130 and "hanoibot resume" in err
    monkeypatch.setattr(run_view.RunView, "move_done", original)
    log = load_journal(journal_path)
    assert log.end_status == "stopped" and log.moves_done == 4 and log.plan_spec["puzzle"] == "bicolor"
    stopped = worlds[0].stacks  # where the first simulated board's disks really are
    code, out, err = run_cli(capsys, "resume", "--journal", str(journal_path), "--board", State(stopped).to_string())
    assert code == 0, out + err
    assert len(worlds) == 2
    assert pegs_seen(worlds[1]) == [tower(3, "red"), tower(3, "green"), []]
    assert [e for e in worlds[1].events if e["event"] == "fault"] == []
    finished = load_journal(journal_path)
    assert finished.end_status == "done" and "colours A red red red / B green green green / C -" in out
    places = sum(1 for world in worlds for e in world.events if e["event"] == "place")
    assert places == optimum("bicolor", 3), "every move of the optimum made exactly once across both runs"


@pytest.mark.parametrize(
    ("board", "words"),
    [
        ("A:1,5/B:6,3,2/C:4", ["--board A:1,5/B:6,3,2/C:4", "disk 5 stands on smaller disk 1"]),
        ("A:5,4,1/B:6,3,2,7/C:", ["--board A:5,4,1/B:6,3,2,7/C:", "7 disks", "6 coloured disks"]),
    ],
)
def test_resume_refuses_an_impossible_colour_board_in_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    worlds: list[Any],
    board: str,
    words: list[str],
) -> None:
    from hanoibot.commands import run_view

    journal_path = tmp_path / "run.journal"
    original = ctrl_c_after_move(monkeypatch, 1)
    assert run_cli(capsys, "run", "--plain", "--puzzle", "bicolor", "-n", "3", "--journal", str(journal_path))[0] == 130
    monkeypatch.setattr(run_view.RunView, "move_done", original)
    code, out, err = run_cli(capsys, "resume", "--journal", str(journal_path), "--board", board)
    assert code == 2 and out == "", out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hanoibot: error: "), err
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert len(worlds) == 1, "no second simulated board was built"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--puzzle", "bicolor", "-n", "3", "--from", "ABAB"], ["--puzzle bicolor", "--from"]),
        (["--puzzle", "bicolor", "-n", "3", "--rules", "linear"], ["--rules"]),
        (["--puzzle", "tricolor", "-n", "2", "--pegs", "4"], ["--pegs"]),
        (["--puzzle", "bicolor", "-n", "4"], ["[board.colour_set]", "3 sizes", "at least 4"]),
        (["--puzzle", "bicolor", "-n", "1"], ["-n 1", "already is the goal"]),
        (["--puzzle", "bicolor", "-n", "0"], ["-n 0"]),
        (["--puzzle", "bicolor"], ["needs -n"]),
        (["--puzzle", "quadcolor", "-n", "2"], ["'quadcolor'", "bicolor, tricolor"]),
    ],
)
def test_bad_puzzle_input_is_one_line_and_nothing_moves(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: list[str], worlds: list[Any]
) -> None:
    code, out, err = run_cli(capsys, "run", "--plain", *argv)
    assert code == 2, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hanoibot: error: "), err
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert worlds == [], "no simulated board was even built"
