"""ClassicPlan: all five methods give the same legal optimal sequence; O(n) queries agree with replaying it.

Oracles: a textbook recursive generator written here, replay through the puzzle model (State.apply), the
published length 2^n - 1 (OEIS A000225), and an exhaustive breadth-first search of the 3^n states for small n.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator

import pytest
from hanoibot.errors import PlanError
from hanoibot.planner.classic import METHODS, ClassicPlan
from hanoibot.puzzle import Move, Rules, State
from hypothesis import given
from hypothesis import strategies as st

PEG_PAIRS = list(itertools.permutations(range(3), 2))
A000225 = [0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 2047, 4095]  # 2^n - 1, OEIS A000225


def textbook(n: int, src: int, dst: int) -> Iterator[Move]:
    """The recursive solution as every textbook writes it (the independent oracle)."""
    if n:
        aux = 3 - src - dst
        yield from textbook(n - 1, src, aux)
        yield Move(n, src, dst)
        yield from textbook(n - 1, aux, dst)


def textbook_peg(n: int, src: int, dst: int, disk: int, k: int) -> int:
    """Where ``disk`` stands after ``k`` textbook moves (hand derivation, independent of the planner): it moves at
    moves 2^(disk-1), then every 2^disk, always the same way round — src -> dst -> aux when n - disk is even,
    src -> aux -> dst when it is odd."""
    aux = 3 - src - dst
    cycle = (src, dst, aux) if (n - disk) % 2 == 0 else (src, aux, dst)
    return cycle[((k + (1 << (disk - 1))) >> disk) % 3]


def replay(start: State, moves: list[Move]) -> list[State]:
    """Every state along ``moves`` (raises IllegalMove on a bad move)."""
    states = [start]
    for move in moves:
        states.append(states[-1].apply(move, Rules(3)))
    return states


def bfs_distance(n: int, src: int, dst: int) -> int:
    """Shortest number of moves between the two towers, by breadth-first search over all 3^n states."""
    start, goal = State.tower(n, src), State.tower(n, dst)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state == goal:
            return seen[state]
        for move in state.legal_moves():
            nxt = state.apply(move)
            if nxt not in seen:
                seen[nxt] = seen[state] + 1
                queue.append(nxt)
    raise AssertionError("goal not reachable")


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("n", range(1, 8))
def test_every_method_yields_the_textbook_sequence_for_every_peg_pair(method: str, n: int) -> None:
    for src, dst in PEG_PAIRS:
        assert list(ClassicPlan(n, src, dst, method=method)) == list(textbook(n, src, dst))


@given(n=st.integers(1, 12), pair=st.sampled_from(PEG_PAIRS), method=st.sampled_from(list(METHODS)))
def test_every_method_is_legal_reaches_the_goal_with_the_published_length(
    n: int, pair: tuple[int, int], method: str
) -> None:
    plan = ClassicPlan(n, *pair, method=method)
    moves = list(plan)
    states = replay(plan.start, moves)
    assert states[-1] == State.tower(n, pair[1]) == plan.goal
    assert len(moves) == plan.length == A000225[n]
    assert moves == list(textbook(n, *pair))


@pytest.mark.parametrize("n", range(1, 6))
def test_length_is_the_breadth_first_search_optimum(n: int) -> None:
    for src, dst in PEG_PAIRS:
        assert ClassicPlan(n, src, dst).length == bfs_distance(n, src, dst)


@given(n=st.integers(1, 12), pair=st.sampled_from(PEG_PAIRS), data=st.data())
def test_move_at_state_at_index_of_agree_with_replay(n: int, pair: tuple[int, int], data: st.DataObject) -> None:
    plan = ClassicPlan(n, *pair)
    moves = list(textbook(n, *pair))
    states = replay(plan.start, moves)
    k = data.draw(st.integers(0, plan.length - 1))
    assert plan.move_at(k) == moves[k]
    assert plan.state_at(k) == states[k]
    assert plan.state_at(plan.length) == states[-1]
    assert plan.index_of(states[k]) == k


@given(n=st.integers(1, 12), pair=st.sampled_from(PEG_PAIRS), method=st.sampled_from(list(METHODS)), data=st.data())
def test_moves_from_k_is_the_tail_of_the_sequence(
    n: int, pair: tuple[int, int], method: str, data: st.DataObject
) -> None:
    plan = ClassicPlan(n, *pair, method=method)
    k = data.draw(st.integers(0, plan.length - 1))
    tail = list(itertools.islice(plan.moves_from(k), 50))
    assert tail == list(itertools.islice(textbook(n, *pair), k, k + 50))


@given(n=st.integers(13, 200), pair=st.sampled_from(PEG_PAIRS), method=st.sampled_from(list(METHODS)), data=st.data())
def test_queries_agree_for_large_towers_at_random_k(
    n: int, pair: tuple[int, int], method: str, data: st.DataObject
) -> None:
    plan = ClassicPlan(n, *pair, method=method)
    k = data.draw(st.integers(0, plan.length - 4))
    state = plan.state_at(k)
    assert state == State.from_pegs([textbook_peg(n, *pair, disk, k) for disk in range(1, n + 1)])
    assert plan.move_at(k).disk == ((k + 1) & -(k + 1)).bit_length()  # the ruler sequence, OEIS A001511
    assert plan.index_of(state) == k
    following = list(itertools.islice(plan.moves_from(k), 3))
    assert following == [plan.move_at(k + i) for i in range(3)]
    for i, move in enumerate(following, start=1):
        state = state.apply(move)  # legal under the classic rules
        assert state == plan.state_at(k + i)


@pytest.mark.parametrize("n", range(1, 8))
def test_index_of_finds_exactly_the_states_on_the_path(n: int) -> None:
    plan = ClassicPlan(n, 1, 0)
    on_path = {state: k for k, state in enumerate(replay(plan.start, list(plan)))}
    for pegs in itertools.product(range(3), repeat=n):
        state = State.from_pegs(pegs)
        assert plan.index_of(state) == on_path.get(state)


def test_index_of_rejects_states_of_another_board() -> None:
    plan = ClassicPlan(3)
    assert plan.index_of(State.tower(4)) is None
    assert plan.index_of(State.tower(3, 0, pegs=4)) is None
    assert plan.index_of(State.parse("A:1,3,2/B:/C:")) is None


def test_64_disks_is_exact_and_instant() -> None:
    plan = ClassicPlan(64)
    assert plan.length == 18446744073709551615
    last = plan.move_at(plan.length - 1)
    assert last == Move(1, 1, 2)  # for even n the smallest disk cycles A -> B -> C, so it ends B -> C
    assert plan.state_at(plan.length) == State.tower(64, 2)
    assert plan.move_at(2**63 - 1) == Move(64, 0, 2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_disks": 0}, "disk count 0"),
        ({"n_disks": 3, "src": 1, "dst": 1}, "source peg B is the target peg"),
        ({"n_disks": 3, "dst": 3}, "target peg 3 does not exist"),
        ({"n_disks": 3, "method": "magic"}, "unknown method 'magic'"),
    ],
)
def test_bad_requests_name_the_value(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(PlanError, match=message):
        ClassicPlan(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("k", [-1, 7])
def test_indexes_out_of_range_are_plan_errors(k: int) -> None:
    plan = ClassicPlan(3)
    with pytest.raises(PlanError, match=f"move index {k} is out of range: expected 0 to 6"):
        plan.move_at(k)
    with pytest.raises(PlanError, match="state index 8"):
        plan.state_at(8)


@pytest.mark.parametrize("method", list(METHODS))
def test_moves_from_the_end_is_empty_and_past_it_an_error(method: str) -> None:
    plan = ClassicPlan(3, method=method)
    assert list(plan.moves_from(7)) == []
    for k in (-1, 8):
        with pytest.raises(PlanError, match=f"state index {k} is out of range: expected 0 to 7"):
            plan.moves_from(k)
