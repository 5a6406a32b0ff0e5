"""Helpers shared by the planner tests of part B: replaying plans and drawing random boards."""

from __future__ import annotations

from hanoibot.planner.base import Plan
from hanoibot.puzzle import State
from hypothesis import strategies as st


def replay(plan: Plan) -> State:
    """Apply every move of ``plan`` under its rules (IllegalMove on a bad one); check the count; return the end."""
    state = plan.start
    count = 0
    for move in plan:
        state = state.apply(move, plan.rules)
        count += 1
    assert count == plan.length
    return state


@st.composite
def boards(draw: st.DrawFn, n_disks: int, pegs: int, *, regular: bool) -> State:
    """A random board of ``n_disks`` on ``pegs`` pegs; irregular stacks allowed unless ``regular``."""
    where = draw(st.lists(st.integers(0, pegs - 1), min_size=n_disks, max_size=n_disks))
    if regular:
        return State.from_pegs(where, pegs)
    order = draw(st.permutations(range(1, n_disks + 1)))
    stacks: list[list[int]] = [[] for _ in range(pegs)]
    for disk in order:
        stacks[where[disk - 1]].append(disk)
    return State(stacks)
