"""The entry for every plan that is not "3 pegs, classic rules, perfect tower to perfect tower".

:func:`make_general_plan` checks the request once and picks a planner:

=====================================  ====================================================  ==============
request                                planner                                               optimal
=====================================  ====================================================  ==============
classic, 3 pegs, regular states        Hinz's two candidates (:mod:`.regular3`)              True
classic, 4+ pegs, tower to tower       Frame–Stewart (:mod:`.frame_stewart`)                 True (4), None
classic, 4+ pegs, other regular        exact search if pegs**n <= max_states, else           True / False
                                       gather (:mod:`.multipeg`)
classic, irregular start               A* within max_states (:mod:`.astar`), else the        True / False
                                       shuffled strategy (:mod:`.shuffled`) and a lower bound
linear / cyclic, 3 pegs, towers        closed-form recursions (:mod:`.restricted`)           True
big-on-top, 3 pegs, towers             exact search up to 10 disks (and 3**n <= max_states), else a valid   True / False
                                       construction (:mod:`.restricted`)
anything else                          exact search within max_states (:mod:`.search`)       True
=====================================  ====================================================  ==============

:func:`count_general_moves` answers from the closed forms where they exist (O(n) for regular 3-peg states,
O(t) block sums for Frame–Stewart) and otherwise builds the lazy plan and reads its length.
"""

from __future__ import annotations

from ...errors import PlanError, SearchLimitExceeded
from ...puzzle import Rules, State, peg_letter
from ..base import Plan
from ..request import PlanRequest, tower_peg
from .astar import shuffled_search
from .frame_stewart import fs_count, tower_plan
from .frame_stewart import optimality as fs_optimality
from .gather import gather, gather_length3
from .multipeg import multipeg_plan
from .regular3 import count_regular3, count_to_nearest_tower, nearest_tower_plan, regular3_plan
from .restricted import BIG_ON_TOP_NOTE, count_restricted_tower, restricted_tower_plan
from .search import shortest_path
from .shuffled import SHUFFLED_NOTE, shuffled_plan, shuffled_run
from .transfer import Seq, TransferPlan


def check_feasible(request: PlanRequest) -> None:
    """PlanError for a goal no plan reaches under the request's rules (checked before any planner runs)."""
    goal = request.goal  # as given: the default goal is a perfect tower, and a huge one is costly to build
    if goal is None:
        return
    if request.rules.big_on_top and tower_peg(goal) is None:
        raise PlanError(
            f"big-on-top rules end in the ordered tower, not {goal}: "
            f"give a perfect tower such as {peg_letter(request.pegs - 1) * request.n_disks} or 'any'"
        )
    if not goal.is_regular:
        _check_reachable(request.start_state, goal, request.rules)


def _check_reachable(start: State, goal: State, rules: Rules) -> None:
    """Reject goals with a larger disk on a smaller one that no move can make (quick, exact test of pairs).

    A disk only lands on a larger disk (or, with big-on-top, the largest disk anywhere), so a disk resting
    directly on a smaller one has never moved, nor has anything under it: that part of the stack must be in the
    start already, on the same peg.
    """
    for peg, stack in enumerate(goal.stacks):
        for height in range(len(stack) - 1, 0, -1):
            disk, below = stack[height], stack[height - 1]
            if disk > below and not (rules.big_on_top and disk == goal.n_disks):
                if start.stacks[peg][: height + 1] != stack[: height + 1]:
                    raise PlanError(
                        f"goal {goal} is unreachable from {start}: disk {disk} rests on smaller disk {below} "
                        f"on peg {peg_letter(peg)}, and no move puts a disk on a smaller one; "
                        "only stacks already so in the start can stay"
                    )
                break


def _search(request: PlanRequest) -> Plan:
    """Exact search; when it runs out of states, say what would work instead."""
    try:
        return shortest_path(request.start_state, request.goals(), request.rules, max_states=request.max_states)
    except SearchLimitExceeded as err:
        rules = request.rules
        if not request.start_state.is_regular and not request.classic_rules:
            advice = "boards with a larger disk on a smaller one are planned beyond search only under --rules classic"
        elif not request.classic_rules and rules.pegs > 3:
            advice = f"closed-form plans for {rules.name} rules exist on 3 pegs only"
        elif not request.classic_rules:
            advice = f"closed-form plans for {rules.name} rules cover perfect tower to perfect tower only"
        else:
            raise
        raise SearchLimitExceeded(f"{err}; {advice}") from None


#: Largest shuffled board searched exactly. 12-14 disks mostly need 10**4-10**5 states (seconds); from 15 disks on
#: a search typically runs to the default limit (2 000 000 states: minutes and ~600 MB) before it gives up.
SHUFFLED_SEARCH_MAX_DISKS = 14


def _shuffled_strategy(request: PlanRequest) -> TransferPlan:
    """The polynomial strategy's plan from an irregular start to a regular goal (valid, not proven optimal)."""
    goal = request.goal_state
    if goal is None or tower_peg(goal) is not None:
        return shuffled_plan(request.start_state, None if goal is None else tower_peg(goal), request.rules)
    # A regular goal that is not a tower: gather the tower under the goal's largest disk, then unbuild it.
    pegs = request.rules.pegs
    peg = goal.peg_of(request.n_disks)
    everything = range(1, request.n_disks + 1)
    run = Seq((shuffled_run(request.start_state, peg), gather(everything, goal.pegs_of_disks(), peg, pegs).reversed()))
    return TransferPlan(
        request.start_state,
        goal,
        request.rules,
        run,
        method="shuffled",
        optimal=False,
        note=SHUFFLED_NOTE,
        regular=False,
    )


def _shuffled(request: PlanRequest) -> Plan:
    """Irregular start, classic rules: A* within the state limit first, else the strategy beside a lower bound."""
    goal = request.goal_state
    if goal is not None and not goal.is_regular:
        return _search(request)
    fallback = _shuffled_strategy(request)
    start, goals, rules = request.start_state, request.goals(), request.rules
    if request.n_disks > SHUFFLED_SEARCH_MAX_DISKS:
        found = shuffled_search(start, goals, rules, max_states=0)
        why = f"exact search is tried up to {SHUFFLED_SEARCH_MAX_DISKS} disks"
    else:
        found = shuffled_search(start, goals, rules, max_states=request.max_states, upper_bound=fallback.length)
        why = f"exact search stopped after {found.visited} states: raise --max-states to prove the optimum"
    if found.plan is not None:
        return found.plan
    if found.lower_bound >= fallback.length:
        fallback.optimal = True
        fallback.note = f"optimal (proven by A* search over {found.visited} states)"
        return fallback
    fallback.note = (
        f"valid plan for a shuffled board, not proven optimal: {fallback.length} moves, "
        f"at least {found.lower_bound} needed ({why})"
    )
    return fallback


#: Big-on-top towers are searched up to this many disks (about half a second of bidirectional search).
BIG_ON_TOP_SEARCH_DISKS = 10


def _big_on_top_searchable(request: PlanRequest) -> bool:
    """True if the exact big-on-top optimum is cheap enough to find by search."""
    return request.n_disks <= BIG_ON_TOP_SEARCH_DISKS and 3**request.n_disks <= request.max_states


def _plan(request: PlanRequest) -> Plan:
    rules, pegs, n = request.rules, request.rules.pegs, request.n_disks
    towers = request.towers()
    if request.classic_rules and not request.start_state.is_regular:
        return _shuffled(request)
    if request.classic_rules and request.regular:
        if pegs == 3:
            if request.goal_state is None:
                return nearest_tower_plan(request.start_state, rules)
            return regular3_plan(request.start_state, request.goal_state, rules)
        if towers is not None:
            src, dst = towers
            return tower_plan(n, src, src if dst is None else dst, rules)
        if pegs**n <= request.max_states:
            return _search(request)
        return multipeg_plan(request.start_state, request.goal_state, rules)
    if pegs == 3 and towers is not None and request.regular:
        src, dst = towers
        dst = src if dst is None else dst
        if rules.big_on_top and _big_on_top_searchable(request):
            return _search(request)
        return restricted_tower_plan(n, src, dst, rules)
    return _search(request)


def make_general_plan(request: PlanRequest) -> Plan:
    """A plan for any request: ``pegs`` 3–26, any rules, any start (irregular too), a goal or the nearest tower.

    Raises PlanError for an unreachable or unsupported goal, SearchLimitExceeded when only a search could answer
    and it needs more than ``request.max_states`` states.
    """
    check_feasible(request)
    return _plan(request)


def count_general_moves(request: PlanRequest) -> int:
    """The length of :func:`make_general_plan`'s plan, from closed forms without generating moves where possible.

    O(n) for regular states on 3 pegs under classic rules; O(t) big-integer additions for Frame–Stewart
    tower-to-tower counts (t ≈ the block index, ~1 400 for 10**6 disks on 4 pegs).
    """
    return count_general_proved(request)[0]


def count_general_proved(request: PlanRequest) -> tuple[int, bool | None, str]:
    """(moves, optimal, note) of :func:`make_general_plan`'s plan: ``optimal`` as :attr:`Plan.optimal` (True
    proven, None conjectured, False only an upper bound), ``note`` the same in words."""
    check_feasible(request)
    n_disks, rules = request.n_disks, request.rules
    towers = request.towers()
    if request.classic_rules and towers is not None:
        src, dst = towers
        if dst is None or src == dst:
            return 0, True, "optimal (the start is the goal)"
        return (fs_count(n_disks, rules.pegs), *fs_optimality(rules.pegs))
    if request.classic_rules and request.regular and rules.pegs == 3:
        proven = "optimal (proven for regular states on 3 pegs)"
        if request.goal_state is None:
            return count_to_nearest_tower(request.start_state)[0], True, proven
        goal_peg = tower_peg(request.goal_state)
        if goal_peg is not None:  # one linear walk: the greedy gather is the optimum to a tower
            return gather_length3(request.start_state.pegs_of_disks(), goal_peg), True, proven
        return count_regular3(request.start_state, request.goal_state), True, proven
    if not request.classic_rules and rules.pegs == 3 and towers is not None and request.regular:
        src, dst = towers
        if not (rules.big_on_top and _big_on_top_searchable(request)):
            count = count_restricted_tower(n_disks, src, src if dst is None else dst, rules)
            if rules.big_on_top:
                return count, False, BIG_ON_TOP_NOTE
            return count, True, f"optimal (proven for {rules.name} rules on 3 pegs)"
    plan = _plan(request)
    return plan.length, plan.optimal, plan.note
