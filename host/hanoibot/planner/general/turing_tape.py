"""Basov's Turing machine run from a shuffled tape (``solve --method turing --from ACABC``), as a plan or a refusal.

The table itself lives in :mod:`hanoibot.planner.classic.turing`. From a tape that lies on the machine's own run
from a tower the table halts, in the optimal number of moves to the tower it stops on; from any other tape it loops
forever, and :func:`tape_plan` says so with the period it found and the distance to the nearest tower.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...errors import PlanError
from ...puzzle import Move, Rules, State, peg_letter
from ..base import Plan
from ..classic.turing import BLANK, MACHINE_PEGS, START_STATE, TuringMachine, run_tape
from .regular3 import count_regular3, count_to_nearest_tower


class TapePlan(Plan):
    """The moves Basov's table makes from a shuffled tape that halts, decoded literally (machine peg = plan peg)."""

    method = "turing"

    def __init__(self, start: State, goal: State, length: int, *, optimal: bool, note: str) -> None:
        super().__init__(start, goal, Rules(3), length, optimal=optimal, note=note)
        self._letters = start.to_string()

    def moves_from(self, k: int) -> Iterator[Move]:
        """Moves ``k``, ``k + 1``, … of the literal run (the first ``k`` are run and dropped)."""
        self.check_index(k, allow_end=True)
        machine = TuringMachine([BLANK, *self._letters, BLANK], 1, START_STATE)
        for _ in range(k):
            next(machine)
        machine.machine_steps = 0
        return machine

    def move_at(self, k: int) -> Move:
        """Move ``k`` (0-based), by running the table up to it."""
        self.check_index(k)
        return next(self.moves_from(k))


def tape_plan(start: State, goal: State | None) -> TapePlan:
    """The table run from ``start`` (a regular 3-peg state) as a plan; ``goal`` None accepts any tower.

    Raises :class:`PlanError` saying what the machine does instead when it never halts, or halts elsewhere.
    """
    if start.pegs != 3 or not start.is_regular:
        raise PlanError(
            f"start {start} cannot be written on the Turing machine's tape: expected one letter A-C per disk"
        )
    letters = start.to_string()
    halts, moves, steps, final = run_tape(letters)
    nearest, nearest_peg = count_to_nearest_tower(start)
    if not halts:
        raise PlanError(
            f"Basov's table does not halt from {letters}: after {moves} moves ({steps} steps) the tape reads "
            f"{letters} again and the run repeats forever; the nearest tower ({peg_letter(nearest_peg)}) is "
            f"{nearest} moves away (solve --from {letters} --to any)"
        )
    end = State.tower(start.n_disks, MACHINE_PEGS.index(final[0]))
    if goal is not None and goal != end:
        raise PlanError(
            f"Basov's table moves {letters} to the tower on {final[0]}, not to {goal}: use --to {final[0]} or --to any"
        )
    optimum = count_regular3(start, end)
    note = (
        f"Basov's table halts on {final[0]} after {moves} moves ({steps} steps); optimum to that tower "
        f"{optimum}, to the nearest tower {nearest}"
    )
    return TapePlan(start, end, moves, optimal=moves == optimum, note=note)
