"""A coloured-tower puzzle as the arm plays it: a :class:`~hanoibot.planner.base.Plan` over numbered disks.

The arm, the journal and the simulated board know disks by number; :mod:`hanoibot.puzzle.colours` numbers the
coloured disks size first (:func:`~hanoibot.puzzle.colours.disk_number`), and the plan's ``rules`` let a disk land
on one of its own size. The moves are those of the coloured plan (exact search when the board is small, else the
level-by-level construction beyond it), each naming the numbered disk it lifts.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..errors import PlanError
from ..puzzle import Move, Rules, State
from ..puzzle.colours import COLOURS_PER_SIZE, ColourState, colours_of, disk_number, physical_state
from .base import Plan
from .colours import ColourPlan


def colour_plan(puzzle: str, sizes: int) -> ColourPlan:
    """The exact plan when the exact search takes the board, else the level-by-level construction."""
    return ColourPlan(puzzle, sizes)


class ColourRunPlan(Plan):
    """``puzzle`` (bicolor or tricolor) with ``sizes`` disk sizes, from ``start`` (default the puzzle's own start,
    else any coloured board, e.g. one confirmed after a reset) to the puzzle's goal, over numbered disks."""

    def __init__(self, puzzle: str, sizes: int, start: ColourState | None = None) -> None:
        if puzzle not in COLOURS_PER_SIZE:
            raise PlanError(f"unknown puzzle {puzzle!r}: expected one of {', '.join(COLOURS_PER_SIZE)}")
        self.puzzle = puzzle
        self.sizes = sizes
        self.per_size = COLOURS_PER_SIZE[puzzle]
        self._plan = ColourPlan(puzzle, sizes, start=start)
        self.colour_start, self.colour_goal = self._plan.start, self._plan.goal
        length, optimal, note, self.method = self._plan.length, self._plan.optimal, self._plan.note, self._plan.method
        rules = Rules(3, per_size=self.per_size)
        start_state = physical_state(self.colour_start, self.per_size)
        goal_state = physical_state(self.colour_goal, self.per_size)
        super().__init__(start_state, goal_state, rules, length, optimal=optimal, note=note)

    def _colour_moves(self) -> Iterator[Move]:
        """The coloured plan's moves (sizes, not disk numbers)."""
        return iter(self._plan)

    def moves_from(self, k: int) -> Iterator[Move]:
        """Moves ``k``, ``k + 1``, … to the end, naming numbered disks (replays the first ``k``: O(k·n))."""
        self.check_index(k, allow_end=True)
        state = self.colour_start
        for index, move in enumerate(self._colour_moves()):
            top = state.top(move.src)
            state = state.apply(move)
            if index >= k and top is not None:
                yield Move(disk_number(top[0], top[1], self.per_size), move.src, move.dst)

    def move_at(self, k: int) -> Move:
        """Move number ``k`` (0-based)."""
        self.check_index(k)
        return next(self.moves_from(k))

    def replan_from(self, board: State) -> ColourRunPlan:
        """The same puzzle from ``board`` (numbered disks, e.g. confirmed after a reset) to its goal."""
        if board.n_disks != self.start.n_disks or board.pegs != 3:
            raise PlanError(
                f"board {board} has {board.n_disks} disks on {board.pegs} pegs: expected {self.start.n_disks} on 3"
            )
        return ColourRunPlan(self.puzzle, self.sizes, colours_of(board.stacks, self.per_size))
