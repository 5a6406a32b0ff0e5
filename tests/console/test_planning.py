"""The console's planner answers equal the CLI planner's, and bad requests name the bad value."""

from __future__ import annotations

import random

import pytest
from hanoibot.console.planning import answer
from hanoibot.errors import HanoiError
from hanoibot.planner import make_plan
from hanoibot.puzzle import RULE_NAMES, Move, Rules, State

SEED_N3 = ["Move from Src to Dst", "Move from Src to Aux", "Move from Dst to Aux", "Move from Src to Dst",
           "Move from Aux to Src", "Move from Aux to Dst", "Move from Src to Dst"]  # fmt: skip


def test_three_disk_tower_answer_is_the_seed_sequence() -> None:
    """The seed's own 7 moves for N=3 (Src=A, Aux=B, Dst=C), and 2**3 - 1 moves left."""
    got = answer({"disks": 3, "pegs": 3, "rules": "classic", "state": "AAA", "goal": "CCC", "limit": 10})
    names = {"A": "Src", "B": "Aux", "C": "Dst"}
    listed = [f"Move from {names[m['text'].split()[1]]} to {names[m['text'].split()[2]]}" for m in got["moves"]]
    assert listed == SEED_N3
    assert got["moves_left"] == 7
    assert got["label"] == "optimal move"


@pytest.mark.parametrize("rules", RULE_NAMES)
@pytest.mark.parametrize("pegs", [3, 4])
def test_next_move_and_count_equal_make_plan_on_random_positions(rules: str, pegs: int) -> None:
    """For random legal positions the answer is make_plan's first move and exact length."""
    rng = random.Random(f"{rules}-{pegs}")
    for _ in range(5):
        state = State.from_pegs([rng.randrange(pegs) for _ in range(4)], pegs)
        goal = State.tower(4, pegs - 1, pegs)
        if state == goal:
            continue
        plan = make_plan(4, pegs=pegs, rules=Rules.named(rules, pegs), start=state, goal=goal)
        got = answer({"disks": 4, "pegs": pegs, "rules": rules, "state": state.to_string(), "goal": goal.to_string()})
        first = plan.move_at(0)
        assert (got["next"]["disk"], got["next"]["src"], got["next"]["dst"]) == (first.disk, first.src, first.dst)
        assert got["moves_left"] == plan.length


def test_four_peg_tower_is_labelled_frame_stewart() -> None:
    """A 4-peg tower transfer names Frame–Stewart; 17 moves for 6 disks (OEIS A007664)."""
    got = answer({"disks": 6, "pegs": 4, "rules": "classic", "state": "AAAAAA", "goal": "DDDDDD"})
    assert "Frame–Stewart" in got["label"]
    assert got["moves_left"] == 17


def test_solved_position_has_nothing_left() -> None:
    got = answer({"disks": 2, "pegs": 3, "rules": "classic", "state": "CC", "goal": "CC"})
    assert got["moves_left"] == 0 and got["next"] is None


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        ({"disks": 13, "pegs": 3, "state": "A", "goal": "C"}, "disks = 13"),
        ({"disks": 3, "pegs": 9, "state": "AAA", "goal": "III"}, "pegs = 9"),
        ({"disks": 3, "pegs": 3, "rules": "diagonal", "state": "AAA", "goal": "CCC"}, "'diagonal'"),
        ({"disks": 3, "pegs": 3, "state": "AAZ", "goal": "CCC"}, "state"),
        ({"disks": 3, "pegs": 3, "state": "AAA", "goal": 7}, "goal = 7"),
        ({"disks": 3, "pegs": 3, "state": "AAA", "goal": "CCC", "limit": -1}, "limit = -1"),
    ],
)
def test_bad_requests_name_the_bad_value(request_: dict[str, object], named: str) -> None:
    with pytest.raises(HanoiError, match=named):
        answer(request_)


def test_a_coloured_puzzle_is_answered_with_the_exact_searchs_count_and_a_legal_next_move() -> None:
    from hanoibot.planner.colours import shortest_moves
    from hanoibot.puzzle.colours import colours_of, start_and_goal

    start, goal = start_and_goal("tricolor", 2)
    request = {"disks": 6, "pegs": 3, "rules": "tricolor", "state": "ABCABC", "goal": "BCABCA", "limit": 3}
    got = answer(request)
    assert got["moves_left"] == len(shortest_moves(start, goal)) and got["optimal"]
    board = State.parse("ABCABC")
    first = got["next"]
    after = board.apply(Move(first["disk"], first["src"], first["dst"]), Rules.coloured("tricolor"))
    # one move later the count drops by one, from the board the page would send next
    later = answer(request | {"state": after.to_string()})
    assert later["moves_left"] == got["moves_left"] - 1
    assert len(shortest_moves(colours_of(after.stacks, 3), goal)) == later["moves_left"]


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"goal": "AAAAAA"}, "the tricolor puzzle's goal is"),
        ({"pegs": 4}, "expected 3 pegs"),
        ({"disks": 5, "state": "ABCAB", "goal": "BCABC"}, "3 disks per size"),
        ({"state": "A:1,4/B:2,5/C:3,6"}, "stands on smaller disk"),
    ],
)
def test_a_bad_coloured_request_names_the_problem(change: dict[str, object], says: str) -> None:
    request = {"disks": 6, "pegs": 3, "rules": "tricolor", "state": "ABCABC", "goal": "BCABCA"}
    with pytest.raises(HanoiError, match=says):
        answer(request | change)
