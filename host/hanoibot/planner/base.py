"""The lazy plan interface every planner returns, with generic default implementations.

A plan is an iterable of :class:`~hanoibot.puzzle.Move` with an exact length (a Python int: ``2**64 - 1`` is a
normal answer). Subclasses must provide :meth:`Plan.move_at`; everything else has a generic fallback whose cost is
documented on the method. Planners whose mathematics allows it override the fallbacks with O(n) versions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice

from ..errors import PlanError
from ..puzzle import Move, Rules, State

#: Moves per run of the generic :meth:`Plan.runs_from`.
RUN_MOVES = 4096


class Plan:
    """A lazy, exact sequence of moves from ``start`` to ``goal`` under ``rules``.

    ``length`` is the exact number of moves (use it instead of ``len()``, which cannot hold 2**64 - 1).
    ``optimal`` is True when the length is proven minimal, None when only conjectured (Frame–Stewart on 5+ pegs),
    False when the plan is valid but not proven optimal; ``note`` says the same in words.
    """

    #: Short name of the method that generates the moves (e.g. ``recursive``), shown in CLI headers.
    method: str = "generic"

    def __init__(
        self,
        start: State,
        goal: State,
        rules: Rules,
        length: int,
        *,
        optimal: bool | None = True,
        note: str = "optimal",
    ) -> None:
        if length < 0:
            raise PlanError(f"plan length {length} is negative: expected 0 or more moves")
        self.start = start
        self.goal = goal
        self.rules = rules
        self.length = length
        self.optimal = optimal
        self.note = note

    # --- what subclasses provide ------------------------------------------------------------------------
    def move_at(self, k: int) -> Move:
        """Move number ``k`` (0-based). Subclasses must override this."""
        raise NotImplementedError(f"{type(self).__name__} does not implement move_at")

    # --- generic defaults -----------------------------------------------------------------------------
    def check_index(self, k: int, *, allow_end: bool = False) -> int:
        """Return ``k`` if it indexes a move (or, with ``allow_end``, the state after the last move); else raise."""
        last = self.length if allow_end else self.length - 1
        if not 0 <= k <= last:
            what = "state index" if allow_end else "move index"
            raise PlanError(f"{what} {k} is out of range: expected 0 to {last} for a plan of {self.length} moves")
        return k

    def __iter__(self) -> Iterator[Move]:
        """Every move in order (delegates to :meth:`moves_from` at 0)."""
        return self.moves_from(0)

    def moves_from(self, k: int) -> Iterator[Move]:
        """Moves ``k``, ``k + 1``, … to the end (none when ``k == length``). Generic cost: one :meth:`move_at`
        call per move."""
        self.check_index(k, allow_end=True)
        return (self.move_at(i) for i in range(k, self.length))

    def runs_from(self, k: int) -> Iterator[Sequence[Move]]:
        """Moves ``k``, ``k + 1``, … as runs (sequences of moves) in order, for writers that format many moves at
        once. Plans built from memoised blocks hand out the same tuple object each time a block recurs, so a writer
        may keep what it made of a run by the run's identity. Generic: :meth:`moves_from` in lists of
        :data:`RUN_MOVES`."""
        moves = self.moves_from(k)
        while run := list(islice(moves, RUN_MOVES)):
            yield run

    def state_at(self, k: int) -> State:
        """The state after ``k`` moves (``state_at(0) == start``). Generic cost: replays k moves, O(k·n)."""
        self.check_index(k, allow_end=True)
        state = self.start
        if k:
            for move in self.moves_from(0):
                state = state.apply(move, self.rules)
                k -= 1
                if not k:
                    break
        return state

    def index_of(self, state: State) -> int | None:
        """How many moves of this plan lead to ``state``, or None if the plan never passes through it.

        Generic cost: a replay of the whole plan, O(length·n) — only sensible for short plans.
        """
        current = self.start
        if current == state:
            return 0
        for index, move in enumerate(self.moves_from(0), start=1):
            current = current.apply(move, self.rules)
            if current == state:
                return index
        return None

    def all_optimal(self) -> tuple[Plan, ...]:
        """Every optimal plan for the same request; by default this plan alone (right when the optimum is unique)."""
        return (self,)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.start.to_string()!r} -> {self.goal.to_string()!r}, "
            f"length={self.length}, method={self.method!r})"
        )
