"""Every optimal plan of a request: what ``hanoibot solve --all-optimal`` prints.

The classic tower transfer has one optimal plan, and Hinz's two candidates (:mod:`.regular3`) cover every regular
3-peg classic request. Everything else is enumerated by a breadth-first sweep from the start that keeps *every*
parent one level up of each state, down to the level of the goal; the optimal plans are then all the paths back
from the goal. The sweep stays within the search's state limit and the number of plans within
:data:`MAX_OPTIMAL_PLANS`; past either, :class:`~hanoibot.errors.PlanError` says which limit was hit.
"""

from __future__ import annotations

from itertools import pairwise

from ..errors import PlanError, SearchLimitExceeded
from .base import Plan
from .classic import ClassicPlan
from .general.search import Codec, SearchPlan, make_codec

#: Most optimal plans printed at once; more is refused with their number.
MAX_OPTIMAL_PLANS = 1000


def all_optimal_plans(plan: Plan, *, max_states: int, max_plans: int = MAX_OPTIMAL_PLANS) -> tuple[Plan, ...]:
    """Every optimal plan from ``plan.start`` to ``plan.goal`` under ``plan.rules`` (``plan`` itself first when
    it is one of them). Raises PlanError when the sweep needs more than ``max_states`` states or there are more
    than ``max_plans`` plans."""
    if isinstance(plan, ClassicPlan) or plan.method == "hinz":
        return plan.all_optimal()  # proven complete: unique classic transfer; Hinz's at most two
    codec = make_codec(plan.start.n_disks, plan.rules, [plan.start, plan.goal])
    start, goal = codec.encode(plan.start), codec.encode(plan.goal)
    parents = _shortest_path_parents(codec, start, goal, max_states)
    count = _count_paths(parents, start, goal)
    if count > max_plans:
        raise PlanError(
            f"--all-optimal: there are {count} optimal plans, more than the {max_plans} printed at once; "
            "expected a request with fewer of them (fewer disks)"
        )
    plans = [_as_plan(plan, codec, codes, len(parents)) for codes in _paths(parents, start, goal)]
    mine = list(plan) if plan.length == plans[0].length else None
    plans.sort(key=lambda each: each.moves != mine)  # stable: the plan the planner chose comes first
    return tuple(plans)


def _shortest_path_parents(codec: Codec, start: int, goal: int, max_states: int) -> dict[int, list[int]]:
    """For every state up to the goal's level: all its parents one level nearer the start (the start: none)."""
    parents: dict[int, list[int]] = {start: []}
    frontier = [start]
    while goal not in parents:
        if not frontier:
            raise PlanError(f"the goal cannot be reached under {codec.rules.name} rules")
        level: dict[int, list[int]] = {}
        for code in frontier:
            for _, nxt in codec.successors(code):
                if nxt not in parents:
                    level.setdefault(nxt, []).append(code)
        parents.update(level)
        if len(parents) > max_states:
            raise SearchLimitExceeded(
                f"--all-optimal needs an exact sweep of more than {max_states} states for this request "
                f"(seen {len(parents)}): raise --max-states or use fewer disks"
            )
        frontier = list(level)
    return parents


def _count_paths(parents: dict[int, list[int]], start: int, goal: int) -> int:
    """How many shortest paths lead from ``start`` to ``goal`` (dynamic programming over the parent lists)."""
    ways: dict[int, int] = {start: 1}

    def count(code: int) -> int:
        stack = [code]
        while stack:
            top = stack[-1]
            missing = [p for p in parents[top] if p not in ways]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            ways[top] = sum(ways[p] for p in parents[top]) if top != start else 1
        return ways[code]

    return count(goal)


def _paths(parents: dict[int, list[int]], start: int, goal: int) -> list[list[int]]:
    """Every shortest path from ``start`` to ``goal`` as a list of codes (depth-first, in parent order)."""
    found: list[list[int]] = []
    stack: list[tuple[int, list[int]]] = [(goal, [goal])]
    while stack:
        code, tail = stack.pop()
        if code == start:
            found.append(tail[::-1])
            continue
        for parent in reversed(parents[code]):
            stack.append((parent, [*tail, parent]))
    return found


def _as_plan(plan: Plan, codec: Codec, codes: list[int], visited: int) -> SearchPlan:
    """The path ``codes`` as a plan for ``plan``'s request."""
    moves = [next(move for move, code in codec.successors(here) if code == there) for here, there in pairwise(codes)]
    return SearchPlan(plan.start, plan.goal, plan.rules, moves, visited)
