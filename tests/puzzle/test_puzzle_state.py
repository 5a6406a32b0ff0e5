"""State: both spellings, legality checks, moves, and errors that name the offending character, disk or peg."""

from __future__ import annotations

import itertools

import pytest
from hanoibot.errors import IllegalMove, StateError
from hanoibot.puzzle import Move, Rules, State
from hypothesis import given
from hypothesis import strategies as st


@st.composite
def boards(draw: st.DrawFn) -> State:
    """Any board, regular or not: disks 1..n dealt onto pegs in any order."""
    pegs = draw(st.integers(3, 6))
    n = draw(st.integers(1, 9))
    order = draw(st.permutations(range(1, n + 1)))
    cuts = sorted(draw(st.lists(st.integers(0, n), min_size=pegs - 1, max_size=pegs - 1)))
    bounds = [0, *cuts, n]
    return State([order[a:b] for a, b in itertools.pairwise(bounds)])


@given(pegs=st.integers(3, 26), data=st.data())
def test_compact_form_round_trips(pegs: int, data: st.DataObject) -> None:
    where = data.draw(st.lists(st.integers(0, pegs - 1), min_size=1, max_size=30))
    state = State.from_pegs(where, pegs)
    assert state.is_regular
    assert state.pegs_of_disks() == tuple(where)
    assert State.parse(state.to_string(), pegs=pegs) == state


@given(boards())
def test_per_peg_form_round_trips(state: State) -> None:
    assert State.parse(state.to_per_peg_string()) == state
    assert State.parse(state.to_string(), pegs=state.pegs) == state


def test_compact_example_from_the_design() -> None:
    state = State.parse("ACAB")
    assert state.stacks == ((3, 1), (4,), (2,))
    assert [state.peg_of(d) for d in (1, 2, 3, 4)] == [0, 2, 0, 1]
    assert state.top(0) == 1 and state.top(1) == 4 and state.height(0) == 2


def test_irregular_stack() -> None:
    state = State.parse("A:3,1,2/B:4/C:")
    assert not state.is_regular
    assert state.to_string() == "A:3,1,2/B:4/C:"
    assert State.parse("a:2,1/b:/c:") == State.tower(2)


@given(boards())
def test_legal_moves_are_exactly_the_applicable_ones(state: State) -> None:
    legal = set(state.legal_moves())
    for src in range(state.pegs):
        for dst in range(state.pegs):
            top = state.top(src)
            if top is None:
                continue
            move = Move(top, src, dst)
            try:
                after = state.apply(move)
            except IllegalMove:
                assert move not in legal
            else:
                assert move in legal
                assert after.top(dst) == top and after.n_disks == state.n_disks


def test_apply_follows_the_rules() -> None:
    state = State.parse("AAB")  # A: 3, 2, 1 ... no: A holds 2 and 1, B holds 3
    assert state.stacks == ((2, 1), (3,), ())
    assert state.apply(Move(1, 0, 2)).to_string() == "CAB"
    with pytest.raises(IllegalMove, match="disk 2 is not on top of peg A \\(top is 1\\)"):
        state.apply(Move(2, 0, 2))
    with pytest.raises(IllegalMove, match="disk 1 is not on top of peg C \\(top is nothing\\)"):
        state.apply(Move(1, 2, 0))
    with pytest.raises(IllegalMove, match="disk 3 may not be put on smaller disk 1"):
        State.parse("A:1/B:3/C:2").apply(Move(3, 1, 0))
    with pytest.raises(IllegalMove, match="may not move from A to C under linear rules"):
        state.apply(Move(1, 0, 2), Rules.named("linear"))
    with pytest.raises(IllegalMove, match="from peg 0 to peg 5 names a peg off the board: expected pegs 0 to 2"):
        state.apply(Move(1, 0, 5))
    with pytest.raises(IllegalMove, match="from peg -1 to peg 0 names a peg off the board"):
        state.apply(Move(1, -1, 0))


@pytest.mark.parametrize(
    ("text", "kwargs", "message"),
    [
        ("", {}, "empty state string"),
        ("ABD", {}, "unknown peg 'D': expected one of ABC"),
        ("ABD", {"pegs": 4}, None),
        ("A-B", {}, "bad character '-' at position 2 of state 'A-B'"),
        ("AAB", {"n_disks": 4}, "state 'AAB' has 3 disks but 4 were asked for"),
        ("A:1/A:2", {}, "peg A appears twice"),
        ("A1/B:2", {}, "bad peg entry 'A1'"),
        ("A:1,two/B:", {}, "bad disk list '1,two' for peg A"),
        ("A:1,1/B:2", {}, "disk 1 appears more than once"),
        ("A:0,1/B:2", {}, "disk 0 is not a disk number"),
        ("A:3,1/B:/C:", {}, "disk 2 is missing"),
        ("A:100000000000", {}, r"disk 1 is missing \(disk 100000000000 is more than the 1 disks given\)"),
        ("A:1,2/B:10000000000000000000000", {}, "disk 3 is missing"),
        ("A:1/E:2", {"pegs": 3}, "unknown peg 'E'"),
    ],
)
def test_parse_errors_name_the_problem(text: str, kwargs: dict[str, int], message: str | None) -> None:
    if message is None:
        assert State.parse(text, **kwargs).pegs == 4
        return
    with pytest.raises(StateError, match=message):
        State.parse(text, **kwargs)


def test_constructor_errors() -> None:
    with pytest.raises(StateError, match="disk count 0 is not supported"):
        State.tower(0)
    with pytest.raises(StateError, match="peg 3 does not exist on a board of 3 pegs"):
        State.tower(2, 3)
    with pytest.raises(StateError, match="disk 2 is on peg 4, which does not exist"):
        State.from_pegs([0, 4])
    with pytest.raises(StateError, match="peg count 2 is not supported"):
        State([(1,), ()])
    with pytest.raises(StateError, match="disk 5 is not on the board"):
        State.tower(3).peg_of(5)


def test_states_are_hashable_values() -> None:
    assert State.parse("ABC") == State.from_pegs([0, 1, 2])
    assert len({State.parse("ABC"), State.from_pegs([0, 1, 2]), State.tower(3)}) == 2
    assert State.tower(2) != "AA"
    assert repr(State.tower(2)) == "State('A:2,1/B:/C:')" and str(State.tower(2)) == "AA"
