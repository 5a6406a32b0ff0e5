"""Writers for ``hanoibot solve``: text (for people), plain (``DISK FROM TO``) and json (one object per line).

Each writer prints moves ``lo`` .. ``hi - 1`` (0-based) of a plan in bounded memory, from the runs of moves the
plan hands out (:meth:`~hanoibot.planner.base.Plan.runs_from`), formatted a run at a time with each recurring
block's text made once (:mod:`.move_lines`). Plain output of the classic recursive plan takes the bulk path
(:mod:`hanoibot.planner.classic.bulk`): large bytes blocks, no per-move Python. The plain and json writers return
the Turing machine's step count when the plan ran one (the text writer prints it as a footer), else None.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from itertools import islice

from ..planner import ClassicPlan, Plan
from ..puzzle import PEG_LETTERS, Move
from ..words import count_of
from .move_lines import RunStream, RunText, numbered_lines

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads the name), without importing typing at start-up
if TYPE_CHECKING:
    from typing import TextIO

#: Moves per run taken from a Turing machine's move iterator.
TURING_RUN_MOVES = 4096


def _open(plan: Plan, lo: int, hi: int) -> tuple[Iterator[Sequence[Move]], Iterator[Move] | None]:
    """The plan's runs of moves from move ``lo`` (none when nothing is to be shown) and, for the Turing machine,
    the move iterator whose step count is read at the end (else None)."""
    if hi <= lo:
        return iter(()), None
    if plan.method != "turing":
        return plan.runs_from(lo), None
    moves = plan.moves_from(lo)
    return iter(lambda: list(islice(moves, TURING_RUN_MOVES)), []), moves


def _steps(moves: Iterator[Move] | None, *, at_end: bool) -> int | None:
    """The machine step count of a Turing run, else None. When the last move was shown, the iterator is drained
    first so that a machine also counts the steps it takes to find that it is done."""
    if moves is None:
        return None
    if at_end:
        for _ in moves:
            pass
    steps = getattr(moves, "machine_steps", None)
    return steps if isinstance(steps, int) else None


def write_plain(plan: Plan, lo: int, hi: int, out: TextIO) -> int | None:
    """``DISK FROM TO`` lines, e.g. ``1 A C``; the classic recursive plan streams precomputed byte blocks."""
    out.flush()
    sink = out.buffer
    if isinstance(plan, ClassicPlan) and plan.method == "recursive":
        from ..planner.classic.bulk import plain_pieces

        for piece in plain_pieces(plan.n_disks, plan.src, plan.dst, lo, hi):
            sink.write(piece)
        return None
    runs, moves = _open(plan, lo, hi)
    text = RunText(lambda m: (m.plain() + "\n").encode())
    for run in RunStream(runs).take(hi - lo):
        sink.write(text.of(run))
    return _steps(moves, at_end=hi == plan.length)


def _plan_header(plan: Plan, lo: int, hi: int) -> dict[str, object]:
    """The JSON header object: what was planned, how long, how optimal, by which method, which moves follow."""
    return {
        "disks": plan.start.n_disks,
        "pegs": plan.rules.pegs,
        "rules": plan.rules.name,
        "start": plan.start.to_string(),
        "goal": plan.goal.to_string(),
        "length": plan.length,
        "optimal": plan.optimal,
        "note": plan.note,
        "method": plan.method,
        "first": lo + 1 if hi > lo else None,
        "last": hi if hi > lo else None,
    }


def _write_numbered(plan: Plan, lo: int, hi: int, out: TextIO, head: str, tail: Callable[[Move], str]) -> int | None:
    """Write ``head`` (its ``*`` replaced by the padding width) ``% k``, then ``tail(move)``, for moves ``lo`` ..
    ``hi - 1`` (k is 1-based); the width is the number of digits of the largest k in each chunk of 8 192 moves,
    so padding follows what is printed, not the plan's length (302 digits for n = 1000). Returns Turing steps."""
    runs, moves = _open(plan, lo, hi)
    out.flush()
    sink = out.buffer
    for text in numbered_lines(runs, lo, hi, head, tail):
        sink.write(text)
    return _steps(moves, at_end=hi == plan.length)


def write_json(plan: Plan, lo: int, hi: int, out: TextIO) -> int | None:
    """A header object (length, optimality, method, …), then one ``{"k", "disk", "from", "to"}`` object per move."""
    import json

    out.write(json.dumps(_plan_header(plan, lo, hi)) + "\n")
    return _write_numbered(
        plan,
        lo,
        hi,
        out,
        '{"k": %d, ',
        lambda m: f'"disk": {m.disk}, "from": "{PEG_LETTERS[m.src]}", "to": "{PEG_LETTERS[m.dst]}"}}\n',
    )


def steps_line(steps: int, plan: Plan, lo: int, hi: int) -> str:
    """``Turing machine: N steps``, naming the moves when only part of the plan was run."""
    part = "" if lo == 0 and hi == plan.length else f" for moves {lo + 1} to {hi}"
    return f"Turing machine: {steps} steps{part}"


def _short(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters for a header line people read."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def write_text(plan: Plan, lo: int, hi: int, out: TextIO) -> int | None:
    """A header line, then numbered moves like ``  5  disk 1  A -> C``; a Turing run adds a footer line."""
    shown = f"moves {lo + 1} to {hi}" if hi > lo else "no moves"
    length = count_of(plan.length, "move")
    out.write(
        f"{_short(plan.start.to_string())} -> {_short(plan.goal.to_string())} in {length}, {plan.note}; "
        f"method {plan.method}; showing {shown}\n"
    )
    steps = _write_numbered(
        plan,
        lo,
        hi,
        out,
        "  %*d  ",
        lambda m: f"disk {m.disk}  {PEG_LETTERS[m.src]} -> {PEG_LETTERS[m.dst]}\n",
    )
    if steps is not None:
        out.write(steps_line(steps, plan, lo, hi) + "\n")
    return None


WRITERS = {"text": write_text, "plain": write_plain, "json": write_json}


def write_plan(plan: Plan, lo: int, hi: int, fmt: str) -> None:
    """Print moves ``lo`` .. ``hi - 1`` of ``plan`` to stdout in format ``fmt``. The text writer puts a Turing
    machine's step count in its footer; for plain and json it goes to stderr so that stdout stays clean."""
    steps = WRITERS[fmt](plan, lo, hi, sys.stdout)
    if steps is not None:
        sys.stdout.flush()
        print(f"hanoibot: {steps_line(steps, plan, lo, hi)}", file=sys.stderr)
