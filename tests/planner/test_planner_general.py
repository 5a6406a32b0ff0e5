"""The general entry: dispatch, optimality labels, counts without moves, and every bad request.

Properties: for random requests (every rule set, 3 to 5 pegs, regular or shuffled starts, a goal or the
nearest tower) the plan replays legally to its goal, its count equals its length, and plans labelled optimal
are as short as the exact search (breadth-first sweep of the whole space, :func:`distances_from`).
"""

from __future__ import annotations

import itertools

import pytest
from hanoibot.errors import PlanError, SearchLimitExceeded, StateError
from hanoibot.planner import PlanRequest
from hanoibot.planner.general import count_general_moves, make_general_plan
from hanoibot.planner.general.frame_stewart import fs_count
from hanoibot.planner.general.search import distances_from, make_codec
from hanoibot.puzzle import Rules, State
from hypothesis import given, settings
from hypothesis import strategies as st
from planner_checks import boards, replay

RULE_NAMES = ["classic", "linear", "cyclic", "big-on-top"]


@settings(max_examples=80)
@given(st.data(), st.integers(1, 5), st.sampled_from(RULE_NAMES), st.integers(3, 4))
def test_random_requests_replay_and_optimal_ones_are_shortest(
    data: st.DataObject, n: int, name: str, pegs: int
) -> None:
    rules = Rules.named(name, pegs)
    start = data.draw(boards(n, pegs, regular=data.draw(st.booleans()) or name != "classic"))
    goal_any = data.draw(st.booleans())
    if name == "big-on-top":
        goal = None if goal_any else State.tower(n, data.draw(st.integers(0, pegs - 1)), pegs)
    else:
        goal = None if goal_any else data.draw(boards(n, pegs, regular=True))
    request = PlanRequest(n, pegs=pegs, rules=rules, start=start, goal=goal, goal_any=goal_any)
    plan = make_general_plan(request)
    end = replay(plan)
    assert end == plan.goal
    if goal is not None:
        assert end == goal
    assert count_general_moves(request) == plan.length
    if plan.optimal:
        codec = make_codec(n, rules, [start])
        reach = distances_from(start, rules)
        targets = [plan.goal] if goal is not None else [State.tower(n, p, pegs) for p in range(pegs)]
        assert plan.length == min(reach[codec.encode(t)] for t in targets)


# Every rule set up to 4 disks, big-on-top also at 5. Classic at 5 disks is test_planner_regular3's all-pairs test;
# linear and cyclic between arbitrary boards at 5 disks (243 x 243 searches) take ~20 s each, so the random-request
# property above samples them instead.
ALL_PAIRS_SLOW = {("linear", 4), ("cyclic", 4), ("big-on-top", 5)}  # 25 s or more each: make test only
ALL_PAIRS_CASES = [
    pytest.param(name, n, marks=[pytest.mark.slow] if (name, n) in ALL_PAIRS_SLOW else [])
    for name, n in [*((name, n) for name in RULE_NAMES for n in range(1, 5)), ("big-on-top", 5)]
]


@pytest.mark.parametrize(("name", "n"), ALL_PAIRS_CASES)
def test_all_ordered_pairs_of_small_boards_under_every_rule_set(name: str, n: int) -> None:
    rules = Rules.named(name)
    states = [State.from_pegs(where) for where in itertools.product(range(3), repeat=n)]
    goals = [State.tower(n, peg) for peg in range(3)] if name == "big-on-top" else states
    for start in states:
        reach = distances_from(start, rules)
        codec = make_codec(n, rules, [start])
        for goal in goals:
            plan = make_general_plan(PlanRequest(n, rules=rules, start=start, goal=goal))
            assert plan.optimal is True
            assert plan.length == reach[codec.encode(goal)]
            assert replay(plan) == goal


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=[pytest.mark.slow] if name == "big-on-top" else []) for name in RULE_NAMES]
)
@settings(max_examples=20)
@given(st.data(), st.integers(6, 8))
def test_random_samples_up_to_eight_disks_under_every_rule_set(name: str, data: st.DataObject, n: int) -> None:
    rules = Rules.named(name)
    start = data.draw(boards(n, 3, regular=True))
    goal_peg = data.draw(st.integers(0, 2))
    goal = State.tower(n, goal_peg) if name == "big-on-top" else data.draw(boards(n, 3, regular=True))
    plan = make_general_plan(PlanRequest(n, rules=rules, start=start, goal=goal))
    assert replay(plan) == goal
    assert plan.length == distances_from(start, rules)[make_codec(n, rules, [start]).encode(goal)]


@pytest.mark.parametrize(
    ("kwargs", "method", "optimal"),
    [
        ({"start": State.parse("ACBA")}, "hinz", True),
        ({"goal_any": True, "start": State.parse("ACBA")}, "greedy", True),
        ({"pegs": 4}, "frame-stewart", True),
        ({"pegs": 6}, "frame-stewart", None),
        ({"pegs": 4, "start": State.parse("ABCD", pegs=4)}, "search", True),
        ({"pegs": 4, "start": State.parse("ABCD", pegs=4), "max_states": 100}, "gather", False),
        ({"rules": Rules.named("linear")}, "linear", True),
        ({"rules": Rules.named("cyclic"), "goal": State.tower(4, 1)}, "cyclic", True),
        ({"rules": Rules.named("big-on-top")}, "search", True),
        ({"rules": Rules.named("big-on-top"), "max_states": 10}, "big-on-top", False),
        ({"start": State.parse("A:3,1,2/B:4/C:")}, "search", True),
        ({"start": State.parse("A:3,1,2/B:4/C:"), "max_states": 10}, "search", True),
        ({"start": State.parse("A:1,2,3/B:4/C:"), "max_states": 1}, "shuffled", False),
        ({"start": State.parse("A:1,2,3/B:4/C:"), "goal": State.parse("ABBA"), "max_states": 1}, "shuffled", False),
    ],
)
def test_dispatch_and_honest_labels(kwargs: dict, method: str, optimal: bool | None) -> None:
    pegs = kwargs.get("pegs", 3)
    plan = make_general_plan(PlanRequest(4, **kwargs))
    assert (plan.method, plan.optimal) == (method, optimal)
    assert replay(plan) == plan.goal
    words = {True: "optimal", None: "conjectured", False: "not proven optimal"}[optimal]
    assert words in plan.note
    if "goal" not in kwargs and not kwargs.get("goal_any"):
        assert plan.goal == State.tower(4, pegs - 1, pegs)


def test_counts_without_moves() -> None:
    assert count_general_moves(PlanRequest(10**6, pegs=4)) == fs_count(10**6, 4)
    assert count_general_moves(PlanRequest(10**6, pegs=10)) == fs_count(10**6, 10)
    assert count_general_moves(PlanRequest(3, pegs=4, start=State.tower(3, 0, 4), goal_any=True)) == 0
    assert count_general_moves(PlanRequest(40, rules=Rules.named("linear"))) == 3**40 - 1
    n = 2_000
    start = State.from_pegs([d % 3 for d in range(n)])
    assert (
        count_general_moves(PlanRequest(n, start=start, goal=State.tower(n, 2)))
        == make_general_plan(PlanRequest(n, start=start, goal=State.tower(n, 2))).length
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n_disks": 0}, StateError, "disk count 0"),
        ({"n_disks": 3, "start": State.parse("AB")}, StateError, "start state AB has 2 disks but 3"),
        ({"n_disks": 2, "goal": State.tower(2, 1, 4)}, StateError, "goal state .* has 4 pegs but the board has 3"),
        ({"n_disks": 2, "rules": Rules(4)}, PlanError, "made for 4 pegs, not 3"),
        ({"n_disks": 2, "goal": State.tower(2), "goal_any": True}, PlanError, "not both"),
        ({"n_disks": 3, "rules": Rules.named("big-on-top"), "goal": State.parse("ABC")}, PlanError, "ordered tower"),
        ({"n_disks": 3, "goal": State.parse("A:/B:2,3/C:1")}, PlanError, "unreachable.*disk 3 rests on smaller disk 2"),
        ({"n_disks": 2, "max_states": 0}, PlanError, "state limit 0"),
        (
            {"n_disks": 12, "pegs": 4, "rules": Rules.named("linear", 4), "max_states": 500},
            SearchLimitExceeded,
            "linear rules exist on 3 pegs only",
        ),
        (
            {"n_disks": 12, "rules": Rules.named("cyclic"), "start": State.parse("ABCABCABCABC"), "max_states": 500},
            SearchLimitExceeded,
            "more than 500 states.*perfect tower to perfect tower only",
        ),
        (
            {
                "n_disks": 9,
                "rules": Rules.named("linear"),
                "start": State.parse("A:9,8,7,6,5,4,3,1,2/B:/C:"),
                "max_states": 500,
            },
            SearchLimitExceeded,
            "only under --rules classic",
        ),
    ],
)
def test_bad_requests_name_the_problem(kwargs: dict, error: type[Exception], message: str) -> None:
    n = kwargs.pop("n_disks")
    with pytest.raises(error, match=message):
        make_general_plan(PlanRequest(n, **kwargs))
    with pytest.raises(error, match=message):
        count_general_moves(PlanRequest(n, **kwargs))


def test_irregular_goal_that_keeps_the_start_stack_is_planned() -> None:
    start = State.parse("A:1,2/B:3/C:")
    plan = make_general_plan(PlanRequest(3, start=start, goal=State.parse("A:1,2/B:/C:3")))
    assert (plan.length, plan.optimal) == (1, True)
    assert replay(plan) == State.parse("A:1,2/B:/C:3")
