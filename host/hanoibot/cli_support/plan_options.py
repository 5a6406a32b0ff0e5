"""Command-line options shared by ``solve`` and ``count``: what to plan (disks, pegs, rules, start, goal).

Numbers are taken as text and checked here, so bad input becomes one :class:`~hanoibot.errors.HanoiError` line
(exit code 2) that names the option and the value, never argparse's usage block or a traceback.
"""

from __future__ import annotations

import argparse

from ..errors import PlanError, StateError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads the name), without importing typing at start-up
if TYPE_CHECKING:
    from ..planner import PlanRequest
    from ..puzzle import State

RULES_HELP = "classic (default), linear (neighbouring pegs only), cyclic (one way round), big-on-top"
STATE_HELP = (
    "a peg letter per disk, smallest first (ACAB), the per-peg form bottom first (A:3,1,2/B:4/C:), "
    "or one letter for a perfect tower on that peg"
)
#: Most disks a request may name: beyond this a move count alone (2**n - 1) outgrows memory and hours of printing.
MAX_DISKS = 10_000_000


def add_plan_arguments(parser: argparse.ArgumentParser) -> None:
    """Add -n, --pegs, --rules, --from, --to and --max-states to ``parser``."""
    parser.add_argument("-n", "--disks", metavar="N", help="number of disks (default: as many as --from/--to name)")
    parser.add_argument("--pegs", metavar="P", default="3", help="number of pegs, 3 to 26 (default 3)")
    parser.add_argument("--rules", metavar="R", default="classic", help=RULES_HELP)
    parser.add_argument(
        "--from", dest="from_state", metavar="STATE", help=f"start state (default: tower on A): {STATE_HELP}"
    )
    parser.add_argument(
        "--to",
        dest="to_state",
        metavar="STATE",
        help="goal state (default: tower on the last peg), or 'any' = nearest tower",
    )
    parser.add_argument(
        "--max-states", metavar="N", default=None, help="limit on states an exact search may visit (default 2000000)"
    )


def whole_number(text: str | None, option: str, *, minimum: int, maximum: int | None = None) -> int | None:
    """``text`` as an int from ``minimum`` to ``maximum`` (None: no maximum; None text stays None); raise naming
    ``option`` otherwise."""
    if text is None:
        return None
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise PlanError(f"{option} {text!r} is not a whole number: expected a number of at least {minimum}") from None
    if value < minimum:
        raise PlanError(f"{option} {value} is too small: expected a number of at least {minimum}")
    if maximum is not None and value > maximum:
        raise PlanError(f"{option} {value} is too large: expected a number from {minimum} to {maximum}")
    return value


def _parse_state(text: str, option: str, pegs: int, n_disks: int | None) -> State:
    """A state from the command line; one letter with several disks means the perfect tower on that peg."""
    from ..puzzle import State, peg_index

    if text.strip().lower() == "any" and option == "--from":
        raise StateError("--from 'any' is not a start: 'any' is a goal only (--to any); expected a state such as ACB")
    try:
        if len(text.strip()) == 1 and text.strip().isalpha() and n_disks is not None and n_disks > 1:
            return State.tower(n_disks, peg_index(text.strip(), pegs), pegs)
        return State.parse(text, pegs=pegs, n_disks=n_disks)
    except StateError as err:
        raise StateError(f"{option}: {err}{_more_pegs_hint(text, pegs)}") from None


def _more_pegs_hint(text: str, pegs: int) -> str:
    """`` (or give --pegs N)`` when ``text`` names a peg letter beyond the board's ``pegs``, else empty."""
    from ..puzzle import PEG_LETTERS

    letters = [part.partition(":")[0].strip() for part in text.split("/")] if ":" in text else list(text.strip())
    beyond = [PEG_LETTERS.index(c.upper()) + 1 for c in letters if len(c) == 1 and c.upper() in PEG_LETTERS]
    needed = max(beyond, default=0)
    # Only a letter just past the board is likely meant as a peg; 'X' on 3 pegs is more likely a typo.
    return f" (or give --pegs {needed})" if pegs < needed <= pegs + 2 else ""


def plan_request(args: argparse.Namespace, method: str | None = None) -> PlanRequest:
    """Check the shared options and build the request (``method``: how to generate a classic transfer); raises a
    HanoiError naming the first bad value."""
    from ..planner import DEFAULT_MAX_STATES, PlanRequest
    from ..puzzle import Rules, check_peg_count

    pegs = check_peg_count(whole_number(args.pegs, "--pegs", minimum=3) or 3)
    rules = Rules.named(args.rules, pegs)
    n_disks = whole_number(args.disks, "-n", minimum=1, maximum=MAX_DISKS)
    start = goal = None
    if args.from_state is not None:
        start = _parse_state(args.from_state, "--from", pegs, n_disks)
        n_disks = start.n_disks
    goal_any = args.to_state is not None and args.to_state.strip().lower() == "any"
    if args.to_state is not None and not goal_any:
        goal = _parse_state(args.to_state, "--to", pegs, n_disks)
        n_disks = goal.n_disks
    if n_disks is None:
        raise PlanError("no disk count given: expected -n N (a whole number of at least 1) or a --from/--to state")
    max_states = whole_number(args.max_states, "--max-states", minimum=1) or DEFAULT_MAX_STATES
    check_start_is_not_goal(n_disks, pegs, start, goal, goal_any=goal_any)
    return PlanRequest(n_disks, pegs, rules, start, goal, goal_any, max_states, method)


def _is_tower_on(state: State, peg: int) -> bool:
    """True if every disk of ``state`` is on ``peg``, in order (a perfect tower)."""
    from ..planner.request import tower_peg

    return tower_peg(state) == peg


def check_start_is_not_goal(
    n_disks: int, pegs: int, start: State | None, goal: State | None, *, goal_any: bool = False
) -> None:
    """PlanError when the start (default: tower on A) already is the goal (default: tower on the last peg; with
    ``goal_any`` any perfect tower), whatever the rules or peg count: there is nothing to plan or move.

    Only the command line refuses this; :func:`hanoibot.planner.make_plan` itself may be asked for an empty plan
    (the sequencer and resume do). Towers are never built here, so a huge ``n_disks`` costs nothing.
    """
    from ..puzzle import peg_letter

    start_text = f"the tower on A ({n_disks} disks)" if start is None else f"the start {start}"
    if goal_any:
        is_goal = start is None or any(_is_tower_on(start, peg) for peg in range(pegs))
        goal_text = "a goal (--to any: any perfect tower)"
    elif goal is None:
        is_goal = start is not None and _is_tower_on(start, pegs - 1)
        goal_text = f"the goal (the tower on {peg_letter(pegs - 1)})"
    else:
        is_goal = _is_tower_on(goal, 0) if start is None else start == goal
        goal_text = f"the goal {goal}"
    if is_goal:
        raise PlanError(f"{start_text} already is {goal_text}: nothing to move; expected a --to goal other than it")
