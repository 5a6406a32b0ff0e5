"""The page's planner questions, answered by :func:`hanoibot.planner.plan_for` so they equal the CLI's answers.

A request names the puzzle as the page shows it: disk and peg counts, rules by their CLI name, the current
position and the goal as state strings (seed notation). The answer is JSON-ready: how many moves are left, the
next move of the plan, whether the plan is proven optimal (Frame–Stewart on 4+ pegs is labelled), and at most
``limit`` moves of the plan for Solve Fast / Slow.
"""

from __future__ import annotations

from typing import Any

from ..errors import HanoiError, PlanError
from ..planner import Plan, PlanRequest, plan_for
from ..planner.colour_run import ColourRunPlan
from ..puzzle import MAX_PEGS, MIN_PEGS, Move, Rules, State
from ..puzzle.colours import colours_of
from ..puzzle.rules import COLOUR_RULE_NAMES

#: What the page offers: 1–12 disks, 3–8 pegs.
MAX_DISKS = 12
MAX_CONSOLE_PEGS = min(8, MAX_PEGS)
#: Most moves one answer lists (a 12-disk classic plan has 4095).
MAX_LISTED_MOVES = 20_000


def _int_field(request: dict[str, Any], key: str, low: int, high: int) -> int:
    """``request[key]`` as an int from ``low`` to ``high``; PlanError naming the key otherwise."""
    value = request.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PlanError(f"{key} = {value!r} is invalid: expected a whole number from {low} to {high}")
    return value


def _state_field(request: dict[str, Any], key: str, pegs: int, n_disks: int) -> State:
    """``request[key]`` parsed as a state of ``n_disks`` disks on ``pegs`` pegs; StateError naming the key."""
    text = request.get(key)
    if not isinstance(text, str):
        raise PlanError(f"{key} = {text!r} is invalid: expected a state string such as {'A' * n_disks}")
    try:
        return State.parse(text, pegs=pegs, n_disks=n_disks)
    except HanoiError as err:
        raise type(err)(f"{key}: {err}") from None


def parse_puzzle(request: dict[str, Any]) -> tuple[Rules, State, State]:
    """Rules, position and goal of a page request ``{disks, pegs, rules, state, goal}``; HanoiError if bad.

    ``rules`` ``bicolor`` or ``tricolor`` is that coloured puzzle on 3 pegs: its disks are numbered size first
    (:mod:`hanoibot.puzzle.colours`) and its goal must be the puzzle's own."""
    n_disks = _int_field(request, "disks", 1, MAX_DISKS)
    pegs = _int_field(request, "pegs", MIN_PEGS, MAX_CONSOLE_PEGS)
    rules_name = request.get("rules", "classic")
    if not isinstance(rules_name, str):
        raise PlanError(f"rules = {rules_name!r} is invalid: expected classic, linear, cyclic or big-on-top")
    if rules_name in COLOUR_RULE_NAMES.values():
        rules = Rules.coloured(rules_name)
        if pegs != 3 or n_disks % rules.per_size:
            raise PlanError(
                f"{rules_name} with {n_disks} disks on {pegs} pegs: expected 3 pegs and {rules.per_size} disks per size"
            )
        state, goal = _state_field(request, "state", 3, n_disks), _state_field(request, "goal", 3, n_disks)
        wanted = ColourRunPlan(rules_name, n_disks // rules.per_size).goal
        if goal != wanted:
            raise PlanError(f"goal = {goal}: the {rules_name} puzzle's goal is {wanted}")
        colours_of(state.stacks, rules.per_size)  # StateError for a disk on a smaller one
        return rules, state, goal
    rules = Rules.named(rules_name, pegs)
    return rules, _state_field(request, "state", pegs, n_disks), _state_field(request, "goal", pegs, n_disks)


def colour_puzzle_json(puzzle: str, sizes: int) -> dict[str, Any]:
    """The page's coloured board for ``puzzle`` with ``sizes`` sizes: the schematic geometry with each disk's
    colour, and the puzzle's start and goal as numbered stacks (bottom first)."""
    from ..puzzle.colours import COLOUR_NAMES
    from ..render.layout import schematic_colour_layout
    from .robot_view import geometry_json

    rules = Rules.coloured(puzzle)
    if not 1 <= sizes * rules.per_size <= MAX_DISKS:
        raise PlanError(f"{puzzle} with {sizes} sizes: expected 1 to {MAX_DISKS // rules.per_size} sizes")
    plan = ColourRunPlan(puzzle, sizes)
    layout = schematic_colour_layout(sizes, COLOUR_NAMES[: rules.per_size])
    stacks = {"start": [list(s) for s in plan.start.stacks], "goal": [list(s) for s in plan.goal.stacks]}
    return geometry_json(layout) | stacks


def move_json(move: Move) -> dict[str, Any]:
    """A move as the page reads it: disk number and peg indices, plus the plain text ``1 A C``."""
    return {"disk": move.disk, "src": move.src, "dst": move.dst, "text": move.plain()}


def plan_label(method: str, optimal: bool | None) -> str:
    """How the page names the answer: the Frame–Stewart move on 4+ pegs, optimal, or valid but not proven."""
    if method == "frame-stewart":
        return "Frame–Stewart move (optimal for 4 pegs)" if optimal else "Frame–Stewart move (presumed optimal)"
    return "optimal move" if optimal else "valid move, not proven optimal"


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """The planner's answer for a page request; ``limit`` (default 0) moves of the plan are listed."""
    rules, state, goal = parse_puzzle(request)
    limit = request.get("limit", 0)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= MAX_LISTED_MOVES:
        raise PlanError(f"limit = {limit!r} is invalid: expected a whole number from 0 to {MAX_LISTED_MOVES}")
    if state == goal:
        return {
            "moves_left": 0,
            "next": None,
            "optimal": True,
            "label": "solved",
            "method": "none",
            "note": "",
            "moves": [],
        }
    if rules.per_size > 1:
        colour_plan = ColourRunPlan(rules.name, state.n_disks // rules.per_size)
        plan: Plan = colour_plan.replan_from(state)
    else:
        plan = plan_for(PlanRequest(state.n_disks, rules.pegs, rules, start=state, goal=goal))
    listed = []
    for k, move in enumerate(plan):
        if k >= limit:
            break
        listed.append(move_json(move))
    return {
        "moves_left": plan.length,
        "next": move_json(plan.move_at(0)),
        "optimal": plan.optimal,
        "label": plan_label(plan.method, plan.optimal),
        "method": plan.method,
        "note": plan.note,
        "moves": listed,
    }


def refuse_coloured(rules: str) -> None:
    """HanoiError for a coloured puzzle: the console's arm holds the plain disk set; the command line swaps in the
    coloured one."""
    if rules in COLOUR_RULE_NAMES.values():
        raise HanoiError(
            f"the {rules} puzzle needs the coloured disks on the arm: play it with hanoibot run --puzzle {rules} -n N"
        )


def arm_plan(believed: State, rules: str, goal: str, pegs: int) -> Plan:
    """The plan that takes the arm's board from ``believed`` to the page's ``goal`` under ``rules`` (by name);
    HanoiError, in the page's words, when the page plays another board (``pegs``, or the goal's disks)."""
    puzzle_rules = Rules.named(rules, believed.pegs)
    if pegs != believed.pegs:
        raise HanoiError(f"the arm's board has {believed.pegs} pegs but the page plays {pegs}: press Connect")
    target = State.parse(goal, pegs=believed.pegs)
    if target.n_disks != believed.n_disks:
        raise HanoiError(
            f"the arm's board has {believed.n_disks} disks but the page plays {target.n_disks}: press Connect "
            "to give the arm the page's board"
        )
    if target == believed:
        raise HanoiError(f"the arm's board already is the goal {target}: nothing to move")
    return plan_for(PlanRequest(believed.n_disks, believed.pegs, puzzle_rules, start=believed, goal=target))


def arm_move_plan(believed: State, rules: str, move: Move) -> Plan:
    """The plan of the page's one ``move`` on the arm's board ``believed``; HanoiError unless its disk is on top."""
    from ..ops.start import OneMovePlan

    if believed.top(move.src) != move.disk:
        raise HanoiError(f"disk {move.disk} is not on top of peg {chr(65 + move.src)} on the arm's board {believed}")
    return OneMovePlan(believed, move, Rules.named(rules, believed.pegs))
