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

from ..errors import PlanError, SearchLimitExceeded, StateError
from ..puzzle import Rules, State, check_peg_count, peg_letter
from .astar import shuffled_search
from .base import Plan
from .frame_stewart import fs_count, tower_plan
from .gather import gather
from .multipeg import multipeg_plan
from .regular3 import count_regular3, count_to_nearest_tower, nearest_tower_plan, regular3_plan
from .restricted import count_restricted_tower, restricted_tower_plan
from .search import DEFAULT_MAX_STATES, shortest_path
from .shuffled import SHUFFLED_NOTE, shuffled_plan, shuffled_run
from .transfer import Seq, TransferPlan


class _Request:
    """A checked planning request: rules, start, goal (None with ``goal_any``), state limit."""

    def __init__(
        self,
        n_disks: int,
        pegs: int,
        rules: Rules | None,
        start: State | None,
        goal: State | None,
        goal_any: bool,
        max_states: int,
    ) -> None:
        if n_disks < 1:
            raise StateError(f"disk count {n_disks} is not supported: expected at least 1")
        check_peg_count(pegs)
        if max_states < 1:
            raise PlanError(f"state limit {max_states} is too small: expected at least 1")
        self.rules = rules if rules is not None else Rules(pegs)
        if self.rules.pegs != pegs:
            raise PlanError(f"rules {self.rules.name} were made for {self.rules.pegs} pegs, not {pegs}")
        self.n_disks = n_disks
        self.max_states = max_states
        # Default towers stay unbuilt until a planner needs them: a 10**6-disk State costs far more than a count.
        self._start = _checked(start, n_disks, pegs, "start") if start is not None else None
        if goal_any and goal is not None:
            raise PlanError(f"give a goal state ({goal}) or ask for the nearest tower, not both")
        self.goal_any = goal_any
        self._goal = _checked(goal, n_disks, pegs, "goal") if goal is not None else None
        if self.rules.big_on_top and self._goal is not None and _tower_peg(self._goal) is None:
            raise PlanError(
                f"big-on-top rules end in the ordered tower, not {self._goal}: "
                f"give a perfect tower such as {peg_letter(pegs - 1) * n_disks} or 'any'"
            )
        if self._goal is not None and not self._goal.is_regular:
            _check_reachable(self.start, self._goal, self.rules)

    @property
    def start(self) -> State:
        """The start state (default: the tower on A)."""
        if self._start is None:
            self._start = State.tower(self.n_disks, 0, self.rules.pegs)
        return self._start

    @property
    def goal(self) -> State | None:
        """The goal state (default: the tower on the last peg), or None when the nearest tower is wanted."""
        if self._goal is None and not self.goal_any:
            self._goal = State.tower(self.n_disks, self.rules.pegs - 1, self.rules.pegs)
        return self._goal

    @property
    def classic(self) -> bool:
        """True for moves between any two pegs onto larger disks only."""
        return self.rules.topology == "any" and not self.rules.big_on_top

    @property
    def regular(self) -> bool:
        """True if start and goal are both regular."""
        start_regular = self._start is None or self._start.is_regular
        return start_regular and (self._goal is None or self._goal.is_regular)

    def goals(self) -> list[State]:
        """The goal, or every perfect tower when the nearest is wanted."""
        if self.goal is not None:
            return [self.goal]
        return [State.tower(self.n_disks, peg, self.rules.pegs) for peg in range(self.rules.pegs)]

    def towers(self) -> tuple[int, int | None] | None:
        """(start peg, goal peg or None for 'any') when start and goal are perfect towers, else None."""
        src = 0 if self._start is None else _tower_peg(self._start)
        if src is None:
            return None
        if self.goal_any:
            return src, None
        dst = self.rules.pegs - 1 if self._goal is None else _tower_peg(self._goal)
        return None if dst is None else (src, dst)


def _checked(state: State, n_disks: int, pegs: int, role: str) -> State:
    if state.n_disks != n_disks:
        raise StateError(f"{role} state {state} has {state.n_disks} disks but {n_disks} were asked for (-n)")
    if state.pegs != pegs:
        raise StateError(f"{role} state {state} is for {state.pegs} pegs but the board has {pegs} (--pegs)")
    return state


def _tower_peg(state: State) -> int | None:
    """The peg holding the whole perfect tower, or None."""
    for peg, stack in enumerate(state.stacks):
        if len(stack) == state.n_disks:
            return peg if state.is_regular else None
    return None


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


def _search(request: _Request) -> Plan:
    """Exact search; when it runs out of states, say what would work instead."""
    try:
        return shortest_path(request.start, request.goals(), request.rules, max_states=request.max_states)
    except SearchLimitExceeded as err:
        rules = request.rules
        if not request.start.is_regular and not request.classic:
            advice = "boards with a larger disk on a smaller one are planned beyond search only under --rules classic"
        elif not request.classic and rules.pegs > 3:
            advice = f"closed-form plans for {rules.name} rules exist on 3 pegs only"
        elif not request.classic:
            advice = f"closed-form plans for {rules.name} rules cover perfect tower to perfect tower only"
        else:
            raise
        raise SearchLimitExceeded(f"{err}; {advice}") from None


#: Largest shuffled board searched exactly (each board the search keeps costs memory in proportion to the disks).
SHUFFLED_SEARCH_MAX_DISKS = 24


def _shuffled_strategy(request: _Request) -> TransferPlan:
    """The polynomial strategy's plan from an irregular start to a regular goal (valid, not proven optimal)."""
    goal = request.goal
    if goal is None or _tower_peg(goal) is not None:
        return shuffled_plan(request.start, None if goal is None else _tower_peg(goal), request.rules)
    # A regular goal that is not a tower: gather the tower under the goal's largest disk, then unbuild it.
    pegs = request.rules.pegs
    peg = goal.peg_of(request.n_disks)
    everything = range(1, request.n_disks + 1)
    run = Seq((shuffled_run(request.start, peg), gather(everything, goal.pegs_of_disks(), peg, pegs).reversed()))
    return TransferPlan(
        request.start, goal, request.rules, run, method="shuffled", optimal=False, note=SHUFFLED_NOTE, regular=False
    )


def _shuffled(request: _Request) -> Plan:
    """Irregular start, classic rules: A* within the state limit first, else the strategy beside a lower bound."""
    goal = request.goal
    if goal is not None and not goal.is_regular:
        return _search(request)
    fallback = _shuffled_strategy(request)
    if request.n_disks > SHUFFLED_SEARCH_MAX_DISKS:
        found = shuffled_search(request.start, request.goals(), request.rules, max_states=0)
        why = f"exact search is tried up to {SHUFFLED_SEARCH_MAX_DISKS} disks"
    else:
        found = shuffled_search(
            request.start, request.goals(), request.rules, max_states=request.max_states, upper_bound=fallback.length
        )
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


def _big_on_top_searchable(request: _Request) -> bool:
    """True if the exact big-on-top optimum is cheap enough to find by search."""
    return request.n_disks <= BIG_ON_TOP_SEARCH_DISKS and 3**request.n_disks <= request.max_states


def _plan(request: _Request) -> Plan:
    rules, pegs, n = request.rules, request.rules.pegs, request.n_disks
    towers = request.towers()
    if request.classic and not request.start.is_regular:
        return _shuffled(request)
    if request.classic and request.regular:
        if pegs == 3:
            if request.goal is None:
                return nearest_tower_plan(request.start, rules)
            return regular3_plan(request.start, request.goal, rules)
        if towers is not None:
            src, dst = towers
            return tower_plan(n, src, src if dst is None else dst, rules)
        if pegs**n <= request.max_states:
            return _search(request)
        return multipeg_plan(request.start, request.goal, rules)
    if pegs == 3 and towers is not None and request.regular:
        src, dst = towers
        dst = src if dst is None else dst
        if rules.big_on_top and _big_on_top_searchable(request):
            return _search(request)
        return restricted_tower_plan(n, src, dst, rules)
    return _search(request)


def make_general_plan(
    n_disks: int,
    *,
    pegs: int = 3,
    rules: Rules | None = None,
    start: State | None = None,
    goal: State | None = None,
    goal_any: bool = False,
    max_states: int = DEFAULT_MAX_STATES,
) -> Plan:
    """A plan for any request: ``pegs`` 3–26, any rules, any start (irregular too), a goal or the nearest tower.

    ``start`` defaults to the tower on A, ``goal`` to the tower on the last peg; ``goal_any`` asks for the
    nearest perfect tower instead. ``max_states`` bounds any exact search. Raises StateError for a state that
    does not fit ``n_disks``/``pegs``, PlanError for an unreachable or unsupported goal, SearchLimitExceeded when
    only a search could answer and it needs more than ``max_states`` states.
    """
    return _plan(_Request(n_disks, pegs, rules, start, goal, goal_any, max_states))


def count_general_moves(
    n_disks: int,
    *,
    pegs: int = 3,
    rules: Rules | None = None,
    start: State | None = None,
    goal: State | None = None,
    goal_any: bool = False,
    max_states: int = DEFAULT_MAX_STATES,
) -> int:
    """The length of :func:`make_general_plan`'s plan, from closed forms without generating moves where possible.

    O(n) for regular states on 3 pegs under classic rules; O(t) big-integer additions for Frame–Stewart
    tower-to-tower counts (t ≈ the block index, ~1 400 for 10**6 disks on 4 pegs).
    """
    request = _Request(n_disks, pegs, rules, start, goal, goal_any, max_states)
    rules = request.rules
    towers = request.towers()
    if request.classic and towers is not None:
        src, dst = towers
        return 0 if dst is None or src == dst else fs_count(n_disks, rules.pegs)
    if request.classic and request.regular and rules.pegs == 3:
        if request.goal is None:
            return count_to_nearest_tower(request.start)[0]
        return count_regular3(request.start, request.goal)
    if not request.classic and rules.pegs == 3 and towers is not None and request.regular:
        src, dst = towers
        if not (rules.big_on_top and _big_on_top_searchable(request)):
            return count_restricted_tower(n_disks, src, src if dst is None else dst, rules)
    return _plan(request).length
