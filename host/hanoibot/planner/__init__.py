"""Pure, lazy plans. :func:`make_plan` is the one entry point; :func:`count_moves` answers without moves.

The classic request — 3 pegs, classic rules, a perfect tower to a perfect tower on another peg — is served here by
:class:`~hanoibot.planner.classic.ClassicPlan`. Every other request (any start state, more pegs, restricted moves,
shuffled towers, exact search) goes to :mod:`hanoibot.planner.general`, imported only when needed.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import PlanError, StateError
from ..puzzle import Rules, State, peg_letter
from .base import Plan
from .classic import DEFAULT_METHOD, METHODS, ClassicPlan

#: Default bound on the number of states an exact search may visit.
DEFAULT_MAX_STATES = 2_000_000

__all__ = ["DEFAULT_MAX_STATES", "DEFAULT_METHOD", "METHODS", "ClassicPlan", "Plan", "count_moves", "make_plan"]


def _check_request(n_disks: int, pegs: int, start: State | None, goal: State | None) -> None:
    """Raise if the disk count is not positive or a given state disagrees with ``n_disks`` or ``pegs``."""
    if isinstance(n_disks, bool) or not isinstance(n_disks, int) or n_disks < 1:
        raise StateError(f"disk count {n_disks!r} is not supported: expected a whole number of at least 1")
    for name, state in (("start", start), ("goal", goal)):
        if state is None:
            continue
        if state.n_disks != n_disks:
            raise StateError(f"{name} state {state} has {state.n_disks} disks but {n_disks} were asked for")
        if state.pegs != pegs:
            raise StateError(f"{name} state {state} has {state.pegs} pegs but the board has {pegs}")


def _tower_peg(state: State) -> int | None:
    """The peg holding every disk of ``state`` in order, or None if it is not a perfect tower."""
    full = [peg for peg in range(state.pegs) if state.height(peg) == state.n_disks]
    return full[0] if full and state.is_regular else None


def _classic_pegs(
    n_disks: int, pegs: int, rules: Rules | None, start: State | None, goal: State | None, goal_any: bool
) -> tuple[int, int] | None:
    """(source, target) pegs if the request is the classic tower transfer, else None; raises if they coincide."""
    if pegs != 3 or goal_any or (rules is not None and rules != Rules(3)):
        return None
    src = 0 if start is None else _tower_peg(start)
    dst = pegs - 1 if goal is None else _tower_peg(goal)
    if src is None or dst is None:
        return None
    if src == dst:
        raise PlanError(
            f"source peg {peg_letter(src)} is the target peg: the tower must move to another peg "
            "(give --from and --to towers on two different pegs)"
        )
    return src, dst


def _general() -> ModuleType:
    """The general planners, imported on first use so that classic requests start fast."""
    return importlib.import_module(f"{__name__}.general")


def make_plan(
    n_disks: int,
    *,
    pegs: int = 3,
    rules: Rules | None = None,
    start: State | None = None,
    goal: State | None = None,
    goal_any: bool = False,
    max_states: int = DEFAULT_MAX_STATES,
    method: str | None = None,
) -> Plan:
    """The plan for a request: ``n_disks`` disks on ``pegs`` pegs under ``rules`` (default classic).

    ``start`` defaults to the tower on A and ``goal`` to the tower on the last peg; ``goal_any`` asks for the
    nearest perfect tower instead of ``goal``. ``max_states`` bounds exact searches. ``method`` (one of
    :data:`METHODS`) applies to the classic transfer only, except ``turing``, which also runs Basov's table from a
    shuffled ``start`` (:func:`~hanoibot.planner.turing.tape_plan`).
    """
    _check_request(n_disks, pegs, start, goal)
    classic = _classic_pegs(n_disks, pegs, rules, start, goal, goal_any)
    if classic is not None:
        return ClassicPlan(n_disks, *classic, method=method or DEFAULT_METHOD)
    if method == "turing" and start is not None and pegs == 3 and (rules is None or rules == Rules(3)):
        from .turing import tape_plan

        return tape_plan(start, goal)
    if method is not None:
        raise PlanError(
            f"method {method!r} applies only to the classic transfer (3 pegs, classic rules, tower to tower)"
        )
    plan: Plan = _general().make_general_plan(
        n_disks, pegs=pegs, rules=rules, start=start, goal=goal, goal_any=goal_any, max_states=max_states
    )
    return plan


def count_moves(
    n_disks: int,
    *,
    pegs: int = 3,
    rules: Rules | None = None,
    start: State | None = None,
    goal: State | None = None,
    goal_any: bool = False,
    max_states: int = DEFAULT_MAX_STATES,
) -> int:
    """The exact number of moves :func:`make_plan` would plan, computed without generating moves where possible."""
    _check_request(n_disks, pegs, start, goal)
    classic = _classic_pegs(n_disks, pegs, rules, start, goal, goal_any)
    if classic is not None:
        return (1 << n_disks) - 1
    count: int = _general().count_general_moves(
        n_disks, pegs=pegs, rules=rules, start=start, goal=goal, goal_any=goal_any, max_states=max_states
    )
    return count
