"""Basov's Turing machine for the Tower of Hanoi (1992), run literally; its tape writes are decoded into moves.

The tape holds one peg letter per disk, smallest disk leftmost, between two ``#`` marks (``#AAAA#``). The machine
starts in state 1 on the leftmost disk cell. :data:`ROWS` is the 16-row control table as printed in the seed
document (Russian Wikipedia, "Ханойская башня", section "Решение для машины Тьюринга"), with its state numbers:

* state 1 moves disk 1 one step round A -> B -> C -> A and remembers its new peg in the state (B: 2, C: 3, A: 4);
* states 2, 3, 4 walk right past the disks on disk 1's peg and move the first other disk to the third peg;
* state 5 walks left to the ``#`` and starts the next round in state 1.

A scan state that reaches the right ``#`` has no row: the machine halts, every disk on disk 1's peg. From the tower
on A it halts with the tower on C when n is even and on B when n is odd ("some other peg"), after exactly the
2**n - 1 moves of the optimal transfer and 3 * 2**n - n - 4 machine steps. :class:`TuringRun` renames the machine's
pegs onto a plan's source, target and spare pegs.

A shuffled tape (one letter per disk, any letters) makes the machine halt only when the tape lies on its own run
from one of the three towers; from every other tape the tape returns to its start and the run repeats forever
(:func:`run_tape` finds out by running the table; :mod:`hanoibot.planner.general.turing_tape` reports it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ...errors import PlanError
from ...puzzle import Move
from . import towers

BLANK = "#"
START_STATE = 1
MACHINE_PEGS = "ABC"
#: Most disks a shuffled tape may have: the run that finds a repeat is literal and takes up to 3 * 2**(n-1) moves.
MAX_TAPE_DISKS = 20

#: The seed's control table, row by row: (row, read symbol, state, write symbol, new state, head move).
ROWS: tuple[tuple[int, str, int, str, int, str], ...] = (
    (1, "A", 1, "B", 2, ">"),
    (2, "B", 1, "C", 3, ">"),
    (3, "C", 1, "A", 4, ">"),
    (4, "B", 2, "B", 2, ">"),
    (5, "A", 2, "C", 5, "<"),
    (6, "C", 2, "A", 5, "<"),
    (7, "C", 3, "C", 3, ">"),
    (8, "B", 3, "A", 5, "<"),
    (9, "A", 3, "B", 5, "<"),
    (10, "A", 4, "A", 4, ">"),
    (11, "B", 4, "C", 5, "<"),
    (12, "C", 4, "B", 5, "<"),
    (13, "A", 5, "A", 5, "<"),
    (14, "B", 5, "B", 5, "<"),
    (15, "C", 5, "C", 5, "<"),
    (16, "#", 5, "#", 1, ">"),
)

#: The table for lookup: (state, read symbol) -> (write symbol, head step (+1 right, -1 left), new state).
TABLE: dict[tuple[int, str], tuple[str, int, int]] = {
    (state, read): (write, +1 if move == ">" else -1, new) for _, read, state, write, new, move in ROWS
}

#: The scan state the machine enters after disk 1 lands on a peg (read from rows 1-3).
SCAN_STATE: dict[str, int] = {TABLE[(START_STATE, read)][0]: TABLE[(START_STATE, read)][2] for read in "ABC"}


def machine_goal_peg(n_disks: int) -> int:
    """The peg (0 = A) on which the machine leaves a tower of ``n_disks`` disks that started on A."""
    return 2 if n_disks % 2 == 0 else 1


def machine_steps(n_disks: int) -> int:
    """Machine steps from the tower on A to the halt: 3 * 2**n - n - 4 (a round that moves disk k >= 2 takes
    2k steps, disk k moves 2**(n-k) times, and the last round takes n steps to find the right ``#``)."""
    return 3 * (1 << n_disks) - n_disks - 4


class TuringMachine:
    """The table running on a tape; iterating yields one :class:`Move` per write that changes a disk's letter.

    ``rename`` maps machine peg numbers (A = 0) to plan pegs. ``machine_steps`` counts the rows applied so far;
    ``is_halted`` turns True when no row applies (then iteration stops).
    """

    def __init__(self, tape: Sequence[str], head: int, state: int, rename: Sequence[int] = (0, 1, 2)) -> None:
        self.tape: list[str] = list(tape)
        self.head = head
        self.state = state
        self._rename = tuple(rename)
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
                rename = self._rename
                return Move(cell, rename[MACHINE_PEGS.index(old)], rename[MACHINE_PEGS.index(write)])


class TuringRun(TuringMachine):
    """The machine in the configuration it has after ``k`` moves of the transfer ``src`` -> ``dst``, renamed.

    The tape comes from the position after k moves (O(n)); the head is on disk 1 in state 1 when k is even, else
    on disk 2 in the scan state of disk 1's peg. From there the table runs literally.
    """

    def __init__(self, n_disks: int, src: int, dst: int, k: int = 0) -> None:
        if n_disks < 1:
            raise PlanError(f"disk count {n_disks} is not supported by the Turing machine: expected at least 1")
        goal = machine_goal_peg(n_disks)
        to_plan = [src, 0, 0]
        to_plan[goal] = dst
        to_plan[3 - goal] = towers.aux_peg(src, dst)
        to_machine = {plan_peg: machine_peg for machine_peg, plan_peg in enumerate(to_plan)}
        where = towers.pegs_after(n_disks, src, dst, k)
        tape = [BLANK, *(MACHINE_PEGS[to_machine[p]] for p in where), BLANK]
        if k % 2 == 0:
            super().__init__(tape, 1, START_STATE, to_plan)
        else:
            super().__init__(tape, 2, SCAN_STATE[tape[1]], to_plan)


def run_table(tape: str) -> tuple[str, int]:
    """Run the table on ``tape`` (with its ``#`` marks) from disk 1 in state 1; return (final tape, steps).

    Pegs stay in the machine's own letters. The caller must know that the run halts (see :func:`run_tape`).
    """
    machine = TuringMachine(tape, 1, START_STATE)
    for _ in machine:
        pass
    return "".join(machine.tape), machine.machine_steps


def _check_tape(letters: str) -> None:
    """Raise naming the tape if it is not 1..MAX_TAPE_DISKS peg letters A, B, C."""
    bad = next((c for c in letters if c not in MACHINE_PEGS), None)
    if not letters or bad is not None:
        raise PlanError(f"tape {letters!r} is not a row of peg letters: expected A, B or C per disk")
    if len(letters) > MAX_TAPE_DISKS:
        raise PlanError(
            f"tape {letters} has {len(letters)} disks: the Turing machine runs shuffled tapes of at most "
            f"{MAX_TAPE_DISKS} disks"
        )


def run_tape(letters: str) -> tuple[bool, int, int, str]:
    """Run the table literally from ``letters`` (no ``#`` marks) until it halts or its tape repeats.

    Returns (halts, moves, machine steps, final tape letters): moves and steps up to the halt, or up to the first
    return to the starting tape (one period of the endless run, counted to the next round start). The tape is
    compared after every even move: from there the machine only walks back to row 16, so an equal tape means an
    equal configuration.
    """
    _check_tape(letters)
    start = [BLANK, *letters, BLANK]
    machine = TuringMachine(start, 1, START_STATE)
    moves = 0
    for _ in machine:
        moves += 1
        if moves % 2 == 0 and machine.tape == start:
            # state 5 walks from cell `head` to the left '#' (head steps), then row 16 (one step)
            return False, moves, machine.machine_steps + machine.head + 1, letters
    return True, moves, machine.machine_steps, "".join(machine.tape[1:-1])
