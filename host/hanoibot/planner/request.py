"""The one planning request: what to plan, checked once, taken by every planner entry.

A :class:`PlanRequest` names the disks, pegs and rules, the start and the goal (``None`` = the default towers, built
only when a planner needs them, so a request for 10**6 disks costs nothing), whether the nearest perfect tower will
do instead of a goal, the bound on exact searches and, for the classic transfer, the generation method.
"""

from __future__ import annotations

from functools import cached_property

from ..errors import PlanError, StateError
from ..frozen import Frozen
from ..puzzle import Rules, State, check_peg_count

#: Default bound on the number of states an exact search may visit.
DEFAULT_MAX_STATES = 2_000_000


def tower_peg(state: State) -> int | None:
    """The peg holding every disk of ``state`` in order (a perfect tower), or None."""
    for peg, stack in enumerate(state.stacks):
        if len(stack) == state.n_disks:
            return peg if state.is_regular else None
    return None


class PlanRequest(Frozen):
    """A checked request: ``n_disks`` disks on ``pegs`` pegs under ``rules`` (None = classic rules for ``pegs``).

    ``start`` defaults to the tower on A and ``goal`` to the tower on the last peg; ``goal_any`` asks for the
    nearest perfect tower instead of ``goal``. ``max_states`` bounds exact searches; ``method`` picks how the
    classic transfer is generated (None = the default). Raises StateError or PlanError naming the bad value.
    """

    FIELDS = ("n_disks", "pegs", "rules", "start", "goal", "goal_any", "max_states", "method")
    n_disks: int
    pegs: int
    rules: Rules
    start: State | None
    goal: State | None
    goal_any: bool
    max_states: int
    method: str | None

    def __init__(
        self,
        n_disks: int,
        pegs: int = 3,
        rules: Rules | None = None,
        start: State | None = None,
        goal: State | None = None,
        goal_any: bool = False,
        max_states: int = DEFAULT_MAX_STATES,
        method: str | None = None,
    ) -> None:
        if isinstance(n_disks, bool) or not isinstance(n_disks, int) or n_disks < 1:
            raise StateError(f"disk count {n_disks!r} is not supported: expected a whole number of at least 1")
        check_peg_count(pegs)
        if max_states < 1:
            raise PlanError(f"state limit {max_states} is too small: expected at least 1")
        if rules is None:
            rules = Rules(pegs)
        if rules.pegs != pegs:
            raise PlanError(f"rules {rules.name} were made for {rules.pegs} pegs, not {pegs}")
        for name, state in (("start", start), ("goal", goal)):
            if state is None:
                continue
            if state.n_disks != n_disks:
                raise StateError(f"{name} state {state} has {state.n_disks} disks but {n_disks} were asked for")
            if state.pegs != pegs:
                raise StateError(f"{name} state {state} has {state.pegs} pegs but the board has {pegs}")
        if goal_any and goal is not None:
            raise PlanError(f"give a goal state ({goal}) or ask for the nearest tower, not both")
        self.set_fields(n_disks, pegs, rules, start, goal, goal_any, max_states, method)

    @cached_property
    def start_state(self) -> State:
        """The start state (default: the tower on A)."""
        return self.start if self.start is not None else State.tower(self.n_disks, 0, self.pegs)

    @cached_property
    def goal_state(self) -> State | None:
        """The goal state (default: the tower on the last peg), or None when the nearest tower is wanted."""
        if self.goal is not None or self.goal_any:
            return self.goal
        return State.tower(self.n_disks, self.pegs - 1, self.pegs)

    @property
    def classic_rules(self) -> bool:
        """True for moves between any two pegs onto larger disks only."""
        return self.rules.topology == "any" and not self.rules.big_on_top

    @property
    def regular(self) -> bool:
        """True if start and goal are both regular (no larger disk on a smaller one)."""
        start_regular = self.start is None or self.start.is_regular
        return start_regular and (self.goal is None or self.goal.is_regular)

    def goals(self) -> list[State]:
        """The goal, or every perfect tower when the nearest is wanted."""
        if self.goal_state is not None:
            return [self.goal_state]
        return [State.tower(self.n_disks, peg, self.pegs) for peg in range(self.pegs)]

    def towers(self) -> tuple[int, int | None] | None:
        """(start peg, goal peg or None for 'any') when start and goal are perfect towers, else None."""
        src = 0 if self.start is None else tower_peg(self.start)
        if src is None:
            return None
        if self.goal_any:
            return src, None
        dst = self.pegs - 1 if self.goal is None else tower_peg(self.goal)
        return None if dst is None else (src, dst)
