"""The exact search engine: codecs, breadth-first and bidirectional search, limits and unreachable goals.

Oracles: published sequences — 3**n - 1 (linear, 3 pegs, end to end), OEIS A005665 / A005666 (cyclic, one and two
steps round) and OEIS A160002 (4 pegs in a line, end to end, offset 0: 0, 3, 10, 19, 34, 57, …) — and the
plain breadth-first sweep :func:`distances_from` against the bidirectional search.
"""

from __future__ import annotations

import pytest
from hanoibot.errors import PlanError, SearchLimitExceeded
from hanoibot.planner.general.search import RegularCodec, StackCodec, distances_from, make_codec, shortest_path
from hanoibot.puzzle import Rules, State
from hypothesis import given, settings
from hypothesis import strategies as st
from planner_checks import boards, replay

A005665 = [0, 1, 5, 15, 43, 119, 327, 895]
A005666 = [0, 2, 7, 21, 59, 163, 447, 1223]
A160002 = [0, 3, 10, 19, 34, 57]


@given(st.data(), st.integers(1, 7), st.integers(3, 6))
def test_codecs_round_trip(data: st.DataObject, n: int, pegs: int) -> None:
    regular = data.draw(boards(n, pegs, regular=True))
    shuffled = data.draw(boards(n, pegs, regular=False))
    assert RegularCodec(n, Rules(pegs)).decode(RegularCodec(n, Rules(pegs)).encode(regular)) == regular
    assert StackCodec(n, Rules(pegs)).decode(StackCodec(n, Rules(pegs)).encode(shuffled)) == shuffled


@given(st.data(), st.integers(1, 5), st.sampled_from(["classic", "linear", "cyclic", "big-on-top"]))
def test_successors_are_exactly_the_legal_moves(data: st.DataObject, n: int, name: str) -> None:
    rules = Rules.named(name)
    state = data.draw(boards(n, 3, regular=name != "big-on-top"))
    codec = make_codec(n, rules, [state])
    found = {(move, codec.decode(code)) for move, code in codec.successors(codec.encode(state))}
    assert found == {(move, state.apply(move, rules)) for move in state.legal_moves(rules)}


@pytest.mark.parametrize("n", range(1, 7))
def test_published_restricted_tower_lengths(n: int) -> None:
    tower_a, tower_b, tower_c = (State.tower(n, peg) for peg in range(3))
    assert shortest_path(tower_a, [tower_c], Rules.named("linear")).length == 3**n - 1
    assert shortest_path(tower_a, [tower_b], Rules.named("cyclic")).length == A005665[n]
    assert shortest_path(tower_a, [tower_c], Rules.named("cyclic")).length == A005666[n]


@pytest.mark.parametrize("n", range(1, 5))
def test_four_pegs_in_a_line_match_a160002(n: int) -> None:
    plan = shortest_path(State.tower(n, 0, 4), [State.tower(n, 3, 4)], Rules(4, "linear"))
    assert plan.length == A160002[n]
    assert replay(plan) == State.tower(n, 3, 4)


@settings(max_examples=25)
@given(st.data(), st.integers(1, 8), st.sampled_from(["classic", "linear"]))
def test_bidirectional_search_equals_the_full_sweep(data: st.DataObject, n: int, name: str) -> None:
    rules = Rules.named(name)
    start, goal = data.draw(boards(n, 3, regular=True)), data.draw(boards(n, 3, regular=True))
    plan = shortest_path(start, [goal], rules)
    assert plan.length == distances_from(start, rules)[RegularCodec(n, rules).encode(goal)]
    assert replay(plan) == goal
    assert plan.optimal is True and "exact search" in plan.note


def test_nearest_of_several_goals() -> None:
    towers = [State.tower(3, peg) for peg in range(3)]
    assert shortest_path(State.parse("ABB"), towers, Rules(3)).goal == State.tower(3, 1)
    plan = shortest_path(State.parse("AAB"), towers, Rules(3))
    assert (plan.length, plan.goal) == (3, State.tower(3, 1))


def test_limit_is_enforced_with_advice() -> None:
    with pytest.raises(SearchLimitExceeded, match=r"more than 50 states .*raise --max-states"):
        shortest_path(State.tower(6), [State.tower(6, 2)], Rules.named("cyclic"), max_states=50)
    with pytest.raises(SearchLimitExceeded):
        distances_from(State.tower(6), Rules(3), max_states=100)
    with pytest.raises(PlanError, match="state limit 0"):
        shortest_path(State.tower(2), [State.tower(2, 2)], Rules(3), max_states=0)


def test_an_unreachable_goal_is_reported_after_the_whole_space() -> None:
    # Disk 2 on disk 1 cannot be made, and the start's irregular pair sits on another peg.
    start = State.parse("A:1,2/B:3/C:")
    with pytest.raises(PlanError, match="cannot be reached"):
        shortest_path(start, [State.parse("A:/B:1,2/C:3")], Rules(3))
