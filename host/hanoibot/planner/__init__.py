"""Pure, lazy plans for a :class:`PlanRequest`: :func:`plan_for` builds the plan, :func:`count_for` counts its moves.

Layers: the model (:mod:`.request`, :mod:`.base`), classic arithmetic (:mod:`.classic`: 3 pegs, classic rules, a
perfect tower to a perfect tower on another peg, O(n) per query) and the general solvers (:mod:`.general`: any start,
more pegs, restricted moves, shuffled towers, exact search; imported only when needed, so classic requests start
fast). :func:`make_plan` and :func:`count_moves` take the request's fields as keywords.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import PlanError
from ..puzzle import Rules, peg_letter
from .base import Plan
from .classic import DEFAULT_METHOD, METHODS, ClassicPlan
from .request import DEFAULT_MAX_STATES, PlanRequest, tower_peg

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads the name), without importing typing at start-up
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DEFAULT_MAX_STATES",
    "DEFAULT_METHOD",
    "METHODS",
    "ClassicPlan",
    "Plan",
    "PlanRequest",
    "count_for",
    "count_moves",
    "count_proved",
    "make_plan",
    "plan_for",
]


def _classic_pegs(request: PlanRequest) -> tuple[int, int] | None:
    """(source, target) pegs if the request is the classic tower transfer, else None; raises if they coincide."""
    if request.pegs != 3 or request.goal_any or request.rules != Rules(3):
        return None
    src = 0 if request.start is None else tower_peg(request.start)
    dst = request.pegs - 1 if request.goal is None else tower_peg(request.goal)
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


def plan_for(request: PlanRequest) -> Plan:
    """The plan for ``request``; ``request.method`` applies to the classic transfer only, except ``turing``, which
    also runs Basov's table from a shuffled start (:mod:`.general.turing_tape`)."""
    classic = _classic_pegs(request)
    if classic is not None:
        return ClassicPlan(request.n_disks, *classic, method=request.method or DEFAULT_METHOD)
    if request.method == "turing" and request.start is not None and request.pegs == 3 and request.classic_rules:
        from .general.turing_tape import tape_plan

        return tape_plan(request.start, request.goal)
    if request.method is not None:
        raise PlanError(
            f"method {request.method!r} applies only to the classic transfer (3 pegs, classic rules, tower to tower)"
        )
    plan: Plan = _general().make_general_plan(request)
    return plan


def count_for(request: PlanRequest) -> int:
    """The exact number of moves :func:`plan_for` would plan, computed without generating moves where possible."""
    if _classic_pegs(request) is not None:
        return (1 << request.n_disks) - 1
    count: int = _general().count_general_moves(request)
    return count


def count_proved(request: PlanRequest) -> tuple[int, bool | None, str]:
    """(moves, optimal, note): :func:`count_for` and whether that number is the proven optimum (True), only
    conjectured to be (None), or the length of a valid plan, an upper bound (False); ``note`` says it in words."""
    if _classic_pegs(request) is not None:
        return (1 << request.n_disks) - 1, True, "optimal (the classic transfer: 2**n - 1)"
    proved: tuple[int, bool | None, str] = _general().count_general_proved(request)
    return proved


def make_plan(n_disks: int, **fields: Any) -> Plan:
    """The plan for ``PlanRequest(n_disks, **fields)`` (pegs, rules, start, goal, goal_any, max_states, method)."""
    return plan_for(PlanRequest(n_disks, **fields))


def count_moves(n_disks: int, **fields: Any) -> int:
    """The move count for ``PlanRequest(n_disks, **fields)``, as :func:`count_for`."""
    return count_for(PlanRequest(n_disks, **fields))
