"""Basov's Turing machine: the seed's 16 rows, hand-traced runs, the optimal transfer on every n <= 20, and what
the table does from shuffled tapes (checked against a breadth-first search written here)."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator

import pytest
from hanoibot.errors import PlanError
from hanoibot.planner import make_plan
from hanoibot.planner.classic import ClassicPlan
from hanoibot.planner.classic.turing import ROWS, TABLE, TuringRun, machine_goal_peg, machine_steps, run_table, run_tape
from hanoibot.puzzle import Move, State


def textbook(n: int, src: int, dst: int) -> Iterator[Move]:
    """The recursive transfer, lazily (independent oracle)."""
    if n:
        aux = 3 - src - dst
        yield from textbook(n - 1, src, aux)
        yield Move(n, src, dst)
        yield from textbook(n - 1, aux, dst)


def distances_to_tower(n: int, peg: int) -> dict[tuple[int, ...], int]:
    """Exact moves from every regular state (pegs of disks, smallest first) to the tower on ``peg``: plain BFS."""
    goal = (peg,) * n
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        here = queue.popleft()
        tops: dict[int, int] = {}
        for disk in range(n - 1, -1, -1):
            tops[here[disk]] = disk
        for src, disk in tops.items():
            for dst in range(3):
                if dst != src and (dst not in tops or tops[dst] > disk):
                    there = (*here[:disk], dst, *here[disk + 1 :])
                    if there not in dist:
                        dist[there] = dist[here] + 1
                        queue.append(there)
    return dist


def test_table_is_the_seed_table_with_its_state_numbers() -> None:
    assert [row[0] for row in ROWS] == list(range(1, 17))
    assert len(TABLE) == 16
    assert {state for state, _ in TABLE} == {1, 2, 3, 4, 5}
    # rows 1-3: disk 1 steps round A -> B -> C -> A; rows 13-16: walk left, then start again in state 1
    assert [TABLE[(1, c)] for c in "ABC"] == [("B", 1, 2), ("C", 1, 3), ("A", 1, 4)]
    assert [TABLE[(5, c)] for c in "ABC#"] == [("A", -1, 5), ("B", -1, 5), ("C", -1, 5), ("#", 1, 1)]
    # no row for a scan state on '#': that is the halt
    assert all((state, "#") not in TABLE for state in (1, 2, 3, 4))


def test_one_disk_by_hand() -> None:
    # row 1: A -> B, right, state 2; state 2 reads '#': no row, halt.
    assert run_table("#A#") == ("#B#", 1)


def test_two_disks_by_hand() -> None:
    # 1: row 1 A->B > | 2: row 5 A->C < | 3: row 14 B < | 4: row 16 # > | 5: row 2 B->C > | 6: row 7 C > | halt
    assert run_table("#AA#") == ("#CC#", 6)
    run = TuringRun(2, 0, 2)
    assert list(run) == [Move(1, 0, 1), Move(2, 0, 2), Move(1, 1, 2)]
    assert run.machine_steps == 6 and run.is_halted


@pytest.mark.parametrize("n", [*range(1, 16), *(pytest.param(n, marks=pytest.mark.slow) for n in range(16, 21))])
def test_table_run_from_the_tower_on_a_is_the_optimal_transfer(n: int) -> None:
    goal = machine_goal_peg(n)
    run = TuringRun(n, 0, goal)  # machine pegs = plan pegs: a literal run on '#AA…A#'
    for count, (got, want) in enumerate(itertools.zip_longest(run, textbook(n, 0, goal)), start=1):
        assert got == want, f"move {count}"
    assert run.is_halted
    assert count == 2**n - 1
    assert "".join(run.tape) == "#" + "ABC"[goal] * n + "#"
    # rounds moving disk k >= 2 take 2k steps (disk k moves 2**(n-k) times); the last round n steps
    assert run.machine_steps == sum(2 * k * 2 ** (n - k) for k in range(2, n + 1)) + n == machine_steps(n)


@pytest.mark.parametrize("n", range(1, 10))
def test_decoded_moves_match_the_textbook_for_every_peg_pair(n: int) -> None:
    for src, dst in itertools.permutations(range(3), 2):
        run = TuringRun(n, src, dst)
        assert list(run) == list(textbook(n, src, dst))
        assert run.machine_steps == machine_steps(n)


@pytest.mark.parametrize("n", [5, 8])
def test_restart_mid_run_matches_the_tail(n: int) -> None:
    moves = list(textbook(n, 2, 0))
    for k in range(len(moves)):
        assert list(TuringRun(n, 2, 0, k)) == moves[k:]


def test_plan_with_turing_method_counts_steps() -> None:
    moves = ClassicPlan(4, method="turing").moves_from(0)
    assert len(list(moves)) == 15
    assert moves.machine_steps == run_table("#AAAA#")[1] == 40  # type: ignore[attr-defined]


def test_zero_disks_is_refused() -> None:
    with pytest.raises(PlanError, match="disk count 0"):
        TuringRun(0, 0, 2)


def test_seed_shuffled_tape_acabc_never_halts() -> None:
    # by hand: disks 1 and 2 chase each other, disk 3 (on A) never moves; 3 rounds of 4 steps
    halts, moves, steps, final = run_tape("ACABC")
    assert (halts, moves, steps, final) == (False, 6, 12, "ACABC")


def _machine_run_states(n: int) -> dict[str, int]:
    """Tapes after an even number of moves on the textbook run from each tower towards the machine's goal
    (disk 1 stepping A -> B -> C), with the peg that run ends on."""
    found: dict[str, int] = {}
    for src in range(3):
        dst = (src + machine_goal_peg(n)) % 3
        where = [src] * n
        for index, move in enumerate([None, *textbook(n, src, dst)]):
            if move is not None:
                where[move.disk - 1] = move.dst
            if index % 2 == 0:
                found["".join("ABC"[p] for p in where)] = dst
    return found


@pytest.mark.parametrize("n", range(1, 7))
def test_shuffled_tapes_halt_exactly_on_the_machines_own_runs_and_then_optimally(n: int) -> None:
    on_run = _machine_run_states(n)
    dist = [distances_to_tower(n, peg) for peg in range(3)]
    halting = 0
    for pegs in itertools.product(range(3), repeat=n):
        letters = "".join("ABC"[p] for p in pegs)
        halts, moves, _, final = run_tape(letters)
        assert halts == (letters in on_run), letters
        if halts:
            halting += 1
            peg = "ABC".index(final[0])
            assert final == final[0] * n and peg == on_run[letters]
            assert moves == dist[peg][pegs]  # optimal to the tower it stops on
        else:
            # one period: replaying it returns to the tape and never passes through a tower
            state = State.parse(letters)
            for move in itertools.islice(_literal_moves(letters), moves):
                state = state.apply(move)
                assert len(set(state.pegs_of_disks())) > 1 or state.to_string() == letters
            assert state.to_string() == letters
    assert halting == 3 * 2 ** (n - 1)


def _literal_moves(letters: str) -> Iterator[Move]:
    from hanoibot.planner.classic.turing import TuringMachine

    return TuringMachine(["#", *letters, "#"], 1, 1)


def test_make_plan_runs_the_table_from_a_halting_tape() -> None:
    plan = make_plan(3, start=State.parse("BCA"), method="turing")
    assert plan.goal == State.tower(3, 1) and plan.length == 5 and plan.optimal
    state = plan.start
    for move in plan:
        state = state.apply(move)
    assert state == plan.goal
    assert plan.move_at(3) == list(plan)[3]


def test_make_plan_says_the_table_never_halts_and_how_far_the_nearest_tower_is() -> None:
    nearest = min(distances_to_tower(5, peg)[(0, 2, 0, 1, 2)] for peg in range(3))
    with pytest.raises(PlanError, match=rf"does not halt from ACABC: after 6 moves \(12 steps\).* {nearest} moves"):
        make_plan(5, start=State.parse("ACABC"), method="turing")


def test_make_plan_refuses_a_goal_the_table_does_not_reach() -> None:
    with pytest.raises(PlanError, match="moves BCA to the tower on B, not to CCC"):
        make_plan(3, start=State.parse("BCA"), goal=State.tower(3, 2), method="turing")


@pytest.mark.parametrize("n", range(1, 6))
def test_every_halting_tape_plan_is_legal_move_by_move_and_ends_on_a_tower(n: int) -> None:
    for pegs in itertools.product(range(3), repeat=n):
        start = State.from_pegs(list(pegs))
        if len(set(pegs)) == 1 or not run_tape(start.to_string())[0]:
            continue
        plan = make_plan(n, start=start, method="turing")
        state = start
        for move in plan:
            state = state.apply(move)  # raises on an illegal move
        assert state == plan.goal and len(set(state.pegs_of_disks())) == 1
        assert plan.optimal
