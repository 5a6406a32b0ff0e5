"""The Tower of Hanoi as a 16-row Turing machine, run literally; its tape writes are decoded into moves.

A 16-row control table over the tape ``#AAAA#`` (one peg letter per disk, smallest disk leftmost) moves the
tower to another peg. It follows the iterative rule of Buneman and Levy: the smallest disk steps one way round
(A -> B -> C -> A); then the smallest disk not on the smallest disk's peg is the top of its peg, and it moves to
the peg that holds neither it nor the smallest disk.

States: ``seek`` walks left to the left ``#`` (start state, head on the left ``#``); ``small`` moves disk 1;
``on_A``/``on_B``/``on_C`` scan right past disks that share disk 1's peg and rewrite the first other disk to the
third peg. A scan state that reaches the right ``#`` has no row: the machine halts, all disks on disk 1's peg.
With disk 1 stepping forwards the tower ends on C when n is even and on B when n is odd ("some other peg");
:class:`TuringRun` renames the machine's pegs onto the plan's source, target and spare pegs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ...errors import PlanError
from ...puzzle import Move
from . import towers

LEFT, RIGHT = -1, +1
BLANK = "#"

#: The control table, one row per (state, read symbol): (write, head move, next state). 16 rows.
TABLE: dict[tuple[str, str], tuple[str, int, str]] = {
    ("seek", "A"): ("A", LEFT, "seek"),
    ("seek", "B"): ("B", LEFT, "seek"),
    ("seek", "C"): ("C", LEFT, "seek"),
    ("seek", "#"): ("#", RIGHT, "small"),
    ("small", "A"): ("B", RIGHT, "on_B"),
    ("small", "B"): ("C", RIGHT, "on_C"),
    ("small", "C"): ("A", RIGHT, "on_A"),
    ("on_A", "A"): ("A", RIGHT, "on_A"),
    ("on_A", "B"): ("C", LEFT, "seek"),
    ("on_A", "C"): ("B", LEFT, "seek"),
    ("on_B", "B"): ("B", RIGHT, "on_B"),
    ("on_B", "A"): ("C", LEFT, "seek"),
    ("on_B", "C"): ("A", LEFT, "seek"),
    ("on_C", "C"): ("C", RIGHT, "on_C"),
    ("on_C", "A"): ("B", LEFT, "seek"),
    ("on_C", "B"): ("A", LEFT, "seek"),
}

MACHINE_PEGS = "ABC"


def machine_goal_peg(n_disks: int) -> int:
    """The peg (0 = A) on which the machine leaves a tower of ``n_disks`` disks that started on A."""
    return 2 if n_disks % 2 == 0 else 1


class TuringRun:
    """An iterator of the moves the machine makes, from move ``k`` of the transfer ``src`` -> ``dst``.

    The configuration at move ``k`` is rebuilt in O(n) (tape from the position after k moves; head on the left
    ``#`` in ``seek`` when k is even, else on disk 2 in the scan state of disk 1's peg), then the table runs
    literally. ``machine_steps`` counts the rows applied so far; ``is_halted`` turns True when no row applies.
    """

    def __init__(self, n_disks: int, src: int, dst: int, k: int = 0) -> None:
        if n_disks < 1:
            raise PlanError(f"disk count {n_disks} is not supported by the Turing machine: expected at least 1")
        goal = machine_goal_peg(n_disks)
        # plan peg of each machine peg: A -> src, the machine's goal -> dst, the other -> the spare peg
        to_plan = [src, 0, 0]
        to_plan[goal] = dst
        to_plan[3 - goal] = towers.aux_peg(src, dst)
        self._to_plan = tuple(to_plan)
        to_machine = {plan_peg: machine_peg for machine_peg, plan_peg in enumerate(to_plan)}
        where = towers.pegs_after(n_disks, src, dst, k)
        self.tape: list[str] = [BLANK, *(MACHINE_PEGS[to_machine[p]] for p in where), BLANK]
        if k % 2 == 0:
            self.head, self.state = 0, "seek"
        else:
            self.head, self.state = 2, "on_" + self.tape[1]
        self.machine_steps = 0
        self.is_halted = False

    def __iter__(self) -> Iterator[Move]:
        return self

    def __next__(self) -> Move:
        """Run rows until one changes a disk's letter; that write is the next move. StopIteration on halt."""
        tape, table = self.tape, TABLE
        while True:
            row = table.get((self.state, tape[self.head]))
            if row is None:
                self.is_halted = True
                raise StopIteration
            write, step, self.state = row
            cell = self.head
            old = tape[cell]
            tape[cell] = write
            self.head = cell + step
            self.machine_steps += 1
            if write != old:
                return Move(cell, self._to_plan[MACHINE_PEGS.index(old)], self._to_plan[MACHINE_PEGS.index(write)])


def run_table(tape: Sequence[str]) -> tuple[str, int]:
    """Run the table literally on ``tape`` from the left ``#`` in state ``seek``; return (final tape, steps).

    Pegs stay in the machine's own letters (no renaming): a debugging and teaching aid.
    """
    cells = list(tape)
    head, state, steps = 0, "seek", 0
    while (row := TABLE.get((state, cells[head]))) is not None:
        cells[head], step, state = row
        head += step
        steps += 1
    return "".join(cells), steps
