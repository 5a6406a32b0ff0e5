"""Perfect-tower transfers under linear, cyclic and big-on-top rules on 3 pegs.

Oracles: published sequences — 3**n - 1 (linear end to end), OEIS A005665 (cyclic, one step round) and
A005666 (cyclic, two steps round), first terms for n = 0..15 — and exact search for every peg pair.
"""

from __future__ import annotations

import itertools

import pytest
from hanoibot.errors import PlanError
from hanoibot.planner.general.restricted import (
    big_on_top_run,
    count_big_on_top_run,
    count_restricted_tower,
    restricted_tower_plan,
)
from hanoibot.planner.general.search import shortest_path
from hanoibot.planner.general.transfer import moves_from
from hanoibot.puzzle import Rules, State
from planner_checks import replay

A005665 = [0, 1, 5, 15, 43, 119, 327, 895, 2447, 6687, 18271, 49919, 136383, 372607, 1017983, 2781183]
A005666 = [0, 2, 7, 21, 59, 163, 447, 1223, 3343, 9135, 24959, 68191, 186303, 508991, 1390591, 3799167]
PAIRS = list(itertools.permutations(range(3), 2))


def test_published_lengths() -> None:
    linear, cyclic = Rules.named("linear"), Rules.named("cyclic")
    for n in range(1, 16):
        assert count_restricted_tower(n, 0, 2, linear) == 3**n - 1
        assert count_restricted_tower(n, 0, 1, cyclic) == A005665[n]
        assert count_restricted_tower(n, 1, 0, cyclic) == A005666[n]


@pytest.mark.parametrize("name", ["linear", "cyclic"])
@pytest.mark.parametrize("n", range(1, 7))
def test_optimal_and_valid_for_every_peg_pair(name: str, n: int) -> None:
    rules = Rules.named(name)
    for src, dst in PAIRS:
        plan = restricted_tower_plan(n, src, dst, rules)
        assert replay(plan) == State.tower(n, dst)
        assert plan.length == count_restricted_tower(n, src, dst, rules)
        assert plan.length == shortest_path(plan.start, [plan.goal], rules).length
        assert plan.optimal is True
        k = plan.length // 2
        assert list(plan.moves_from(k)) == list(plan)[k:]


@pytest.mark.parametrize("n", range(1, 10))
def test_big_on_top_construction_is_valid(n: int) -> None:
    rules = Rules.named("big-on-top")
    for src, dst in PAIRS:
        run = big_on_top_run(n, src, dst)
        state = State.tower(n, src)
        for move in moves_from(run, 0):
            state = state.apply(move, rules)
        assert state == State.tower(n, dst)
        assert run.length == count_big_on_top_run(n, src, dst)


@pytest.mark.parametrize("n", range(3, 9))
def test_big_on_top_construction_to_and_from_the_middle_equals_search(n: int) -> None:
    rules = Rules.named("big-on-top")
    for src, dst in [(0, 1), (1, 2)]:
        found = shortest_path(State.tower(n, src), [State.tower(n, dst)], rules)
        assert found.length == count_big_on_top_run(n, src, dst)


def test_big_on_top_end_to_end_is_labelled_not_proven() -> None:
    rules = Rules.named("big-on-top")
    plan = restricted_tower_plan(6, 0, 2, rules)
    assert plan.optimal is False and "not proven optimal" in plan.note
    assert plan.length >= shortest_path(plan.start, [plan.goal], rules).length
    assert replay(plan) == State.tower(6, 2)


def test_cyclic_transfer_cannot_be_reversed() -> None:
    plan = restricted_tower_plan(2, 0, 1, Rules.named("cyclic"))
    with pytest.raises(PlanError, match="cannot be played backwards"):
        plan.root.reversed()
